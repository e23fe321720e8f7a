import Crypto
import CryptoExtras
import Foundation

/// An RS256 signing key with its `kid` and public JWK.
struct SigningKey: Sendable {
    let kid: String
    let privateKey: _RSA.Signing.PrivateKey
    let jwk: JSONOutput

    init(privateKey: _RSA.Signing.PrivateKey) throws {
        let primitives = try privateKey.publicKey.getKeyPrimitives()
        let n = primitives.modulus.base64URLEncodedString()
        let e = primitives.publicExponent.base64URLEncodedString()
        // RFC 7638 thumbprint: SHA-256 over the required members in lexicographic order.
        let thumbprintInput = #"{"e":"\#(e)","kty":"RSA","n":"\#(n)"}"#
        self.kid = Data(SHA256.hash(data: Data(thumbprintInput.utf8))).base64URLEncodedString()
        self.privateKey = privateKey
        self.jwk = [
            "kty": "RSA",
            "use": "sig",
            "alg": "RS256",
            "kid": .string(self.kid),
            "n": .string(n),
            "e": .string(e),
        ]
    }

    /// A fresh 2048-bit key.
    static func generate() throws -> SigningKey {
        try SigningKey(privateKey: _RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    /// One key generated per process and shared by providers until they rotate, because RSA key
    /// generation is slow in debug builds and tests create many providers.
    static let processWide: SigningKey = {
        do {
            return try SigningKey.generate()
        } catch {
            fatalError("RSA key generation failed: \(error)")
        }
    }()

    /// Signs a JWT (JWS compact serialization, RS256).
    ///
    /// - Parameters:
    ///   - claims: The payload.
    ///   - type: The `typ` header (`JWT`, `at+jwt`).
    func sign(_ claims: JSONOutput, type: String) throws -> String {
        let header: JSONOutput = ["alg": "RS256", "kid": .string(self.kid), "typ": .string(type)]
        let signingInput =
            try header.encoded().base64URLEncodedString() + "." + claims.encoded().base64URLEncodedString()
        let signature = try self.privateKey.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        return signingInput + "." + signature.rawRepresentation.base64URLEncodedString()
    }
}
