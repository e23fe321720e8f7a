import Crypto
import Foundation
import Tether

/// PKCE (RFC 7636) and the other one-time values of an authorization request.
enum PKCE {
    /// A code verifier: 32 random octets, base64url without padding — 43 characters of the unreserved set
    /// (RFC 7636 §4.1).
    static func makeVerifier<R: RandomNumberGenerator>(using random: inout R) -> CodeVerifier {
        CodeVerifier(randomToken(bytes: 32, using: &random))
    }

    /// `BASE64URL(SHA256(ASCII(code_verifier)))` without padding (RFC 7636 §4.2, S256).
    static func challenge(for verifier: CodeVerifier) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.revealedValue.utf8))))
    }

    /// A random base64url string of `bytes` random octets, for `state` and `nonce`.
    static func randomToken<R: RandomNumberGenerator>(bytes: Int, using random: inout R) -> String {
        var data = Data(count: bytes)
        for index in data.indices { data[index] = random.next() }
        return Base64URL.encode(data)
    }
}
