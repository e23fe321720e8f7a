package import Foundation
import JWTKit
package import Logging
import Tether

/// The keys of one fetch, indexed by `kid`.
package struct KeySet: Sendable {
    private let keysByID: [String: [VerificationKey]]
    private let keysWithoutID: [VerificationKey]

    /// The number of usable keys.
    package var count: Int { keysByID.values.reduce(0) { $0 + $1.count } + keysWithoutID.count }

    init(_ keys: [VerificationKey]) {
        keysByID = Dictionary(grouping: keys.filter { $0.keyID != nil }, by: { $0.keyID ?? "" })
        keysWithoutID = keys.filter { $0.keyID == nil }
    }

    /// The keys a token with `kid` may have been signed with.
    ///
    /// A token without `kid` matches only when the set holds exactly one key (OpenID Connect Core §10.1).
    /// - Parameter keyID: The token's `kid`.
    /// - Returns: The candidates, or `nil` when there are none.
    package func keys(for keyID: String?) -> [VerificationKey]? {
        if let keyID { return keysByID[keyID] }
        return count == 1 ? Array(keysByID.values.joined()) + keysWithoutID : nil
    }

    /// Reads a JSON Web Key Set (RFC 7517 §5), skipping keys that are not for signatures or that jwt-kit cannot use.
    /// - Parameters:
    ///   - data: The response body.
    ///   - logger: Where skipped keys are noted.
    /// - Returns: The set.
    /// - Throws: `DecodingError` when the body is not a JWKS.
    package static func jwks(from data: Data, logger: Logger) async throws -> KeySet {
        let document = try JSONDecoder().decode(LenientJWKS.self, from: data)
        var keys: [VerificationKey] = []
        for entry in document.keys {
            guard let jwk = entry.jwk, entry.use == nil || entry.use == "sig" else {
                logger.trace(
                    "Skipping a key that is not a signature key",
                    metadata: ["jwt.kid": "\(UntrustedText.sanitized(entry.kid ?? ""))"]
                )
                continue
            }
            let family: KeyFamily =
                switch jwk.keyType {
                case .rsa: .rsa
                case .ecdsa: .ec(jwk.curve?.rawValue ?? "")
                default: .okp(jwk.curve?.rawValue ?? "")
                }
            let declared = entry.alg.flatMap(JWSAlgorithm.init(rawValue:))
            if entry.alg != nil, declared == nil {
                // A key declared for an algorithm we refuse (HS256, RSA-OAEP, …) must not verify anything else.
                logger.trace(
                    "Skipping a key for an unaccepted algorithm",
                    metadata: ["jwt.kid": "\(UntrustedText.sanitized(entry.kid ?? ""))"]
                )
                continue
            }
            let key = VerificationKey(
                keyID: jwk.keyIdentifier?.string,
                family: family,
                declaredAlgorithm: declared,
                material: .jwk(jwk)
            )
            await keep(key, in: &keys, logger: logger)
        }
        return KeySet(keys)
    }

    /// Reads a JSON object of `kid` → PEM X.509 certificate, as Google publishes for Firebase.
    /// - Parameters:
    ///   - data: The response body.
    ///   - logger: Where skipped certificates are noted.
    /// - Returns: The set.
    /// - Throws: `DecodingError` when the body is not such an object.
    package static func x509Certificates(from data: Data, logger: Logger) async throws -> KeySet {
        let certificates = try JSONDecoder().decode([String: String].self, from: data)
        var keys: [VerificationKey] = []
        for (keyID, pem) in certificates.sorted(by: { $0.key < $1.key }) {
            let key: VerificationKey
            if let rsa = try? Insecure.RSA.PublicKey(certificatePEM: pem) {
                key = VerificationKey(
                    keyID: keyID,
                    family: .rsa,
                    declaredAlgorithm: .rs256,
                    material: .rsaCertificate(rsa)
                )
            } else if let ec = try? ES256PublicKey(certificate: pem) {
                key = VerificationKey(
                    keyID: keyID,
                    family: .ec("P-256"),
                    declaredAlgorithm: .es256,
                    material: .p256Certificate(ec)
                )
            } else if let ec = try? ES384PublicKey(certificate: pem) {
                key = VerificationKey(
                    keyID: keyID,
                    family: .ec("P-384"),
                    declaredAlgorithm: .es384,
                    material: .p384Certificate(ec)
                )
            } else if let ec = try? ES512PublicKey(certificate: pem) {
                key = VerificationKey(
                    keyID: keyID,
                    family: .ec("P-521"),
                    declaredAlgorithm: .es512,
                    material: .p521Certificate(ec)
                )
            } else {
                logger.trace(
                    "Skipping an unreadable certificate",
                    metadata: ["jwt.kid": "\(UntrustedText.sanitized(keyID))"]
                )
                continue
            }
            await keep(key, in: &keys, logger: logger)
        }
        return KeySet(keys)
    }

    private static func keep(_ key: VerificationKey, in keys: inout [VerificationKey], logger: Logger) async {
        do {
            try await key.prepare()
            keys.append(key)
        } catch {
            logger.trace(
                "Skipping an unusable key",
                metadata: ["jwt.kid": "\(UntrustedText.sanitized(key.keyID ?? ""))"]
            )
        }
    }
}

/// A JWKS whose entries decode one by one, so that one key of an unknown type does not void the set.
private struct LenientJWKS: Decodable {
    struct Entry: Decodable {
        let jwk: JWK?
        let use: String?
        let alg: String?
        let kid: String?

        enum CodingKeys: String, CodingKey {
            case use
            case alg
            case kid
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            use = try? container.decodeIfPresent(String.self, forKey: .use)
            alg = try? container.decodeIfPresent(String.self, forKey: .alg)
            kid = try? container.decodeIfPresent(String.self, forKey: .kid)
            // `alg` is read separately: jwt-kit rejects algorithm names it does not know.
            jwk = try? JWK(from: decoder)
        }
    }

    let keys: [Entry]
}
