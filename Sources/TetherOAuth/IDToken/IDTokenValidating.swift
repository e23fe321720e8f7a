public import Foundation
public import Tether

/// Verifies an OpenID Connect ID token (OIDC Core §3.1.3.7): signature, issuer, audience, authorized party,
/// expiry, issue time and nonce.
///
/// `JWKSIDTokenValidator` in the `TetherJWT` module implements it with the provider's JWKS.
public protocol IDTokenValidating: Sendable {
    /// Verifies a token and returns its claims.
    /// - Parameters:
    ///   - idToken: The compact JWT.
    ///   - expectations: What the token must say.
    /// - Returns: The verified claims.
    /// - Throws: ``IDTokenError``.
    func validate(_ idToken: IDToken, expecting expectations: IDTokenExpectations) async throws -> IDTokenClaims
}

/// What an ID token must say to be accepted.
public struct IDTokenExpectations: Sendable, Hashable {
    /// The issuer identifier, compared exactly. Microsoft's multi-tenant template
    /// `https://login.microsoftonline.com/{tenantid}/v2.0` is matched after the token's `tid` is substituted.
    public var issuer: String
    /// Other accepted issuer spellings (Google's legacy `accounts.google.com`).
    public var alternativeIssuers: [String]
    /// The client id, which `aud` must contain (and `azp` equal, when present).
    public var audience: String
    /// The nonce sent in the authorization request, if any; the claim must then be present and equal.
    public var nonce: String?
    /// The current time.
    public var now: Date
    /// The clock skew tolerated for `exp`, `iat` and `nbf`; 5 minutes by default (RFC 7519 §4.1.4).
    public var clockSkew: Duration
    /// The oldest acceptable `iat`, as an age; `nil` accepts any age.
    public var maximumAge: Duration?
    /// Other accepted audiences, for a server that accepts tokens for several client ids; none by default.
    public var alternativeAudiences: [String]
    /// Other accepted `azp` values besides the audiences: the client ids of apps that obtain tokens for this
    /// audience (Google: an Android or iOS app asking for an ID token for its server's client id). None by default,
    /// so a present `azp` must be the audience.
    public var authorizedParties: [String]

    /// Creates expectations.
    /// - Parameters:
    ///   - issuer: The issuer identifier.
    ///   - alternativeIssuers: Other accepted spellings of the issuer.
    ///   - audience: The client id.
    ///   - nonce: The nonce sent, if any.
    ///   - now: The current time.
    ///   - clockSkew: The tolerated skew.
    ///   - maximumAge: The oldest acceptable `iat`.
    ///   - alternativeAudiences: Other accepted audiences.
    ///   - authorizedParties: Other accepted `azp` values.
    public init(
        issuer: String,
        alternativeIssuers: [String] = [],
        audience: String,
        nonce: String? = nil,
        now: Date,
        clockSkew: Duration = .seconds(300),
        maximumAge: Duration? = nil,
        alternativeAudiences: [String] = [],
        authorizedParties: [String] = []
    ) {
        self.alternativeAudiences = alternativeAudiences
        self.authorizedParties = authorizedParties
        self.issuer = issuer
        self.alternativeIssuers = alternativeIssuers
        self.audience = audience
        self.nonce = nonce
        self.now = now
        self.clockSkew = clockSkew
        self.maximumAge = maximumAge
    }
}

/// The verified claims of an ID token.
public struct IDTokenClaims: Sendable, Hashable, Codable {
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
    /// `nonce`.
    public var nonce: String?
    /// `azp`.
    public var authorizedParty: String?
    /// `auth_time`.
    public var authTime: Date?
    /// `email`.
    public var email: String?
    /// `email_verified` (a Boolean, or the strings `"true"`/`"false"` as Apple sends it).
    public var emailVerified: Bool?
    /// `name`.
    public var name: String?
    /// `preferred_username` (Microsoft).
    public var preferredUsername: String?
    /// `tid` (Microsoft tenant).
    public var tenantID: String?

    /// Creates claims.
    public init(
        issuer: String,
        subject: String,
        audience: [String],
        expiresAt: Date,
        issuedAt: Date,
        nonce: String? = nil,
        authorizedParty: String? = nil,
        authTime: Date? = nil,
        email: String? = nil,
        emailVerified: Bool? = nil,
        name: String? = nil,
        preferredUsername: String? = nil,
        tenantID: String? = nil
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.nonce = nonce
        self.authorizedParty = authorizedParty
        self.authTime = authTime
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.preferredUsername = preferredUsername
        self.tenantID = tenantID
    }
}
