import Crypto
import Foundation

/// Verifies a Sign in with Apple client secret: an ES256 JWT with header `kid` = key ID,
/// `iss` = team ID, `sub` = client ID, `aud` = `https://appleid.apple.com` (or the provider's own
/// issuer), `iat`, and `exp` no later than `iat` + 15777000 s.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
struct AppleClientSecretVerifier: Sendable {
    static let maximumLifetime: TimeInterval = 15_777_000
    static let appleAudience = "https://appleid.apple.com"

    let key: DevProvider.AppleSignInKey
    let clientID: String
    let issuer: String
    let now: Date

    private struct Header: Decodable {
        let alg: String
        let kid: String?
    }

    private struct Claims: Decodable {
        let iss: String?
        let sub: String?
        let aud: Audience?
        let iat: Double?
        let exp: Double?
    }

    private enum Audience: Decodable {
        case one(String)
        case many([String])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(String.self) {
                self = .one(value)
            } else {
                self = .many(try container.decode([String].self))
            }
        }

        var values: [String] {
            switch self {
            case .one(let value): [value]
            case .many(let values): values
            }
        }
    }

    /// Returns a reason the secret is rejected, or `nil` if it is valid.
    func rejection(of secret: String) -> String? {
        let parts = secret.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = Data(base64URLEncoded: parts[0]),
            let claimsData = Data(base64URLEncoded: parts[1]),
            let signatureData = Data(base64URLEncoded: parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: headerData),
            let claims = try? JSONDecoder().decode(Claims.self, from: claimsData)
        else {
            return "The client secret is not a JWT."
        }
        guard header.alg == "ES256" else {
            return "The client secret must be signed with ES256."
        }
        guard header.kid == self.key.keyID else {
            return "The client secret was signed with an unknown key."
        }
        guard let publicKey = try? P256.Signing.PublicKey(pemRepresentation: self.key.publicKeyPEM),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
            publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8))
        else {
            return "The client secret signature is invalid."
        }
        guard claims.iss == self.key.teamID else {
            return "The client secret issuer is not the team ID."
        }
        guard claims.sub == self.clientID else {
            return "The client secret subject is not the client ID."
        }
        let audiences = claims.aud?.values ?? []
        guard audiences.contains(Self.appleAudience) || audiences.contains(self.issuer) else {
            return "The client secret audience is invalid."
        }
        guard let iat = claims.iat, let exp = claims.exp else {
            return "The client secret lacks iat or exp."
        }
        let now = self.now.timeIntervalSince1970
        guard exp > now else {
            return "The client secret has expired."
        }
        guard iat <= now + 60, exp - iat <= Self.maximumLifetime else {
            return "The client secret lifetime is invalid."
        }
        return nil
    }
}
