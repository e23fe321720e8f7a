public import Foundation
import TetherOAuth

/// The checked claims of a verified JWT: the registered claims (RFC 7519 section 4.1) and those a JWT access token
/// carries (RFC 9068 section 2.2), with the identity claims when present.
public struct JWTClaims: Sendable, Hashable {
    /// `iss`.
    public var issuer: String
    /// `sub`.
    public var subject: String
    /// `aud`, always as a list.
    public var audience: [String]
    /// `exp`.
    public var expiresAt: Date
    /// `iat`.
    public var issuedAt: Date
    /// `nbf`, if present.
    public var notBefore: Date?
    /// `azp`, if present.
    public var authorizedParty: String?
    /// `auth_time`, if present.
    public var authTime: Date?
    /// `scope`, split on spaces; empty when absent.
    public var scopes: [String]
    /// `client_id` (RFC 9068 section 2.2), if present.
    public var clientID: String?
    /// `email`, if present.
    public var email: String?
    /// `email_verified`, if present.
    public var emailVerified: Bool?
    /// `name`, if present.
    public var name: String?

    /// Creates claims.
    /// - Parameters:
    ///   - issuer: `iss`.
    ///   - subject: `sub`.
    ///   - audience: `aud`.
    ///   - expiresAt: `exp`.
    ///   - issuedAt: `iat`.
    ///   - notBefore: `nbf`.
    ///   - authorizedParty: `azp`.
    ///   - authTime: `auth_time`.
    ///   - scopes: `scope`, split on spaces.
    ///   - clientID: `client_id`.
    ///   - email: `email`.
    ///   - emailVerified: `email_verified`.
    ///   - name: `name`.
    public init(
        issuer: String,
        subject: String,
        audience: [String],
        expiresAt: Date,
        issuedAt: Date,
        notBefore: Date? = nil,
        authorizedParty: String? = nil,
        authTime: Date? = nil,
        scopes: [String] = [],
        clientID: String? = nil,
        email: String? = nil,
        emailVerified: Bool? = nil,
        name: String? = nil
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.notBefore = notBefore
        self.authorizedParty = authorizedParty
        self.authTime = authTime
        self.scopes = scopes
        self.clientID = clientID
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
    }

    /// The checked claims in this shape, with what only the full claim set has.
    init(_ checked: IDTokenClaims, claimSet: JWTClaimSet) {
        self.init(
            issuer: checked.issuer,
            subject: checked.subject,
            audience: checked.audience,
            expiresAt: checked.expiresAt,
            issuedAt: checked.issuedAt,
            notBefore: claimSet.notBefore,
            authorizedParty: checked.authorizedParty,
            authTime: checked.authTime,
            scopes: claimSet.scope.map { $0.split(separator: " ").map(String.init) } ?? [],
            clientID: claimSet.clientID,
            email: checked.email,
            emailVerified: checked.emailVerified,
            name: checked.name
        )
    }
}
