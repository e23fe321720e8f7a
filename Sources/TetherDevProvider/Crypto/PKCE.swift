import Crypto
import Foundation

/// PKCE verification (RFC 7636 §4.6, S256 only).
enum PKCE {
    /// `BASE64URL(SHA256(ASCII(code_verifier)))`.
    static func challenge(for verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncodedString()
    }

    /// Whether a verifier has the RFC 7636 §4.1 shape: 43–128 unreserved characters.
    static func isWellFormed(verifier: String) -> Bool {
        (43...128).contains(verifier.count)
            && verifier.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._~".contains($0)) }
    }
}
