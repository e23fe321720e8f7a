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

/// Why an ID token was rejected. It never contains the token.
public struct IDTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case malformed
        case unsupportedAlgorithm
        case badSignature
        case unknownKey
        case keysUnavailable
        case wrongIssuer
        case wrongAudience
        case wrongAuthorizedParty
        case expired
        case notYetValid
        case tooOld
        case missingNonce
        case nonceMismatch
    }

    let code: Code

    /// What was wrong, in one sentence, without the token.
    public let message: String

    /// The underlying error, if any.
    public let cause: (any Error)?

    init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// Not a compact JWS with three base64url parts and JSON header and claims.
    public static let malformed = IDTokenError(.malformed, "The ID token is malformed")
    /// `alg` is `none`, a MAC, or not supported.
    public static let unsupportedAlgorithm = IDTokenError(
        .unsupportedAlgorithm,
        "The ID token's algorithm is not accepted"
    )
    /// The signature does not verify with the issuer's key.
    public static let badSignature = IDTokenError(.badSignature, "The ID token's signature is invalid")
    /// No key of the issuer's JWKS has the token's `kid`, even after a re-fetch.
    public static let unknownKey = IDTokenError(.unknownKey, "The ID token was signed with an unknown key")
    /// The issuer's keys could not be fetched.
    public static let keysUnavailable = IDTokenError(.keysUnavailable, "The issuer's signing keys could not be fetched")
    /// `iss` is not the expected issuer.
    public static let wrongIssuer = IDTokenError(.wrongIssuer, "The ID token comes from another issuer")
    /// `aud` does not contain the client id.
    public static let wrongAudience = IDTokenError(.wrongAudience, "The ID token is meant for another client")
    /// `azp` is present and not the client id.
    public static let wrongAuthorizedParty = IDTokenError(
        .wrongAuthorizedParty,
        "The ID token was issued to another party"
    )
    /// `exp` has passed (beyond the skew).
    public static let expired = IDTokenError(.expired, "The ID token has expired")
    /// `iat` or `nbf` is in the future (beyond the skew).
    public static let notYetValid = IDTokenError(.notYetValid, "The ID token is not valid yet")
    /// `iat` is older than the maximum age.
    public static let tooOld = IDTokenError(.tooOld, "The ID token was issued too long ago")
    /// A nonce was sent but the token has none.
    public static let missingNonce = IDTokenError(.missingNonce, "The ID token has no nonce")
    /// The token's nonce is not the one sent.
    public static let nonceMismatch = IDTokenError(.nonceMismatch, "The ID token's nonce does not match")

    /// The same kind of error with a specific message and cause.
    /// - Parameters:
    ///   - message: One sentence without the token.
    ///   - cause: The underlying error.
    /// - Returns: A copy carrying the details.
    public func with(message: String, cause: (any Error)? = nil) -> IDTokenError {
        IDTokenError(code, message, cause: cause ?? self.cause)
    }

    /// Whether fetching the keys failed (transient), as opposed to a bad token.
    public var isTransient: Bool { code == .keysUnavailable }

    /// The message.
    public var description: String { "IDTokenError: \(message)" }

    /// Errors are equal when their kinds are.
    public static func == (lhs: IDTokenError, rhs: IDTokenError) -> Bool { lhs.code == rhs.code }

    /// Lets `switch` and `catch` match on the kind.
    public static func ~= (lhs: IDTokenError, rhs: any Error) -> Bool { (rhs as? IDTokenError)?.code == lhs.code }
}
