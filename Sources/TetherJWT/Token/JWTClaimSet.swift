package import Foundation
import Tether
package import TetherOAuth

/// The claims of a JWT as sent, before any check; every field is optional so that checks decide what is required.
package struct JWTClaimSet: Sendable, Hashable {
    package var issuer: String?
    package var subject: String?
    package var audience: [String]?
    package var expiresAt: Date?
    package var issuedAt: Date?
    package var notBefore: Date?
    package var authTime: Date?
    package var nonce: String?
    package var authorizedParty: String?
    package var email: String?
    package var emailVerified: Bool?
    package var name: String?
    package var preferredUsername: String?
    package var tenantID: String?
    /// `scope` of a JWT access token (RFC 9068 §2.2.3): space-separated.
    package var scope: String?
    /// `client_id` of a JWT access token (RFC 9068 §2.2).
    package var clientID: String?

    /// Decodes a JWT payload.
    /// - Parameter payload: The payload's JSON bytes.
    /// - Throws: ``TetherOAuth/IDTokenError/malformed`` when it is not a JSON object or a claim has the wrong type.
    package init(decoding payload: Data) throws(IDTokenError) {
        do {
            self = try JSONDecoder().decode(JWTClaimSet.self, from: payload)
        } catch {
            // The decoding error is not attached: its description may quote claim values.
            throw IDTokenError.malformed.with(message: "The ID token's claims are not a valid JSON object")
        }
    }
}

extension JWTClaimSet: Decodable {
    enum CodingKeys: String, CodingKey {
        case issuer = "iss"
        case subject = "sub"
        case audience = "aud"
        case expiresAt = "exp"
        case issuedAt = "iat"
        case notBefore = "nbf"
        case authTime = "auth_time"
        case nonce
        case authorizedParty = "azp"
        case email
        case emailVerified = "email_verified"
        case name
        case preferredUsername = "preferred_username"
        case tenantID = "tid"
        case scope
        case clientID = "client_id"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try container.decodeIfPresent(String.self, forKey: .issuer)
        subject = try container.decodeIfPresent(String.self, forKey: .subject)
        // `aud` is a string or an array of strings (RFC 7519 §4.1.3).
        if let single = try? container.decodeIfPresent(String.self, forKey: .audience) {
            audience = [single]
        } else {
            audience = try container.decodeIfPresent([String].self, forKey: .audience)
        }
        expiresAt = try Self.numericDate(container, .expiresAt)
        issuedAt = try Self.numericDate(container, .issuedAt)
        notBefore = try Self.numericDate(container, .notBefore)
        authTime = try Self.numericDate(container, .authTime)
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        authorizedParty = try container.decodeIfPresent(String.self, forKey: .authorizedParty)
        email = try? container.decodeIfPresent(String.self, forKey: .email)
        // Apple sends `email_verified` as the string "true" or "false"; others send a Boolean.
        if let flag = try? container.decodeIfPresent(Bool.self, forKey: .emailVerified) {
            emailVerified = flag
        } else if let text = try? container.decodeIfPresent(String.self, forKey: .emailVerified) {
            emailVerified = text == "true" ? true : text == "false" ? false : nil
        } else {
            emailVerified = nil
        }
        name = try? container.decodeIfPresent(String.self, forKey: .name)
        preferredUsername = try? container.decodeIfPresent(String.self, forKey: .preferredUsername)
        tenantID = try container.decodeIfPresent(String.self, forKey: .tenantID)
        scope = try? container.decodeIfPresent(String.self, forKey: .scope)
        clientID = try? container.decodeIfPresent(String.self, forKey: .clientID)
    }

    /// A NumericDate (RFC 7519 §2): seconds since 1970, possibly fractional.
    private static func numericDate(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Date?
    {
        guard let seconds = try container.decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard seconds.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "Not a NumericDate")
        }
        return Date(timeIntervalSince1970: seconds)
    }
}
