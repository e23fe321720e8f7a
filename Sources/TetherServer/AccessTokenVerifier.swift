public import Foundation
public import Logging
public import Tether
public import TetherJWT
public import TetherOAuth

/// What a verified bearer token says.
public struct VerifiedToken: Sendable, Hashable {
    /// The checked claims: issuer, subject, audience, times, scopes and client, and the identity claims when
    /// present.
    public let claims: JWTClaims

    /// The subject (`sub`): who the token is about.
    public var subject: String { claims.subject }
    /// `scope` of a JWT access token, split on spaces; empty for ID tokens.
    public var scopes: [String] { claims.scopes }
    /// `client_id` of a JWT access token (RFC 9068 §2.2), if present.
    public var clientID: String? { claims.clientID }

    /// Creates a verified token.
    /// - Parameter claims: The checked claims.
    public init(claims: JWTClaims) {
        self.claims = claims
    }
}

/// Verifies the bearer tokens a resource server receives: Firebase ID tokens, Google ID tokens, Apple identity
/// tokens, or any issuer's JWT access tokens (RFC 9068).
///
/// Signature and claim checks are those of ``TetherJWT/JWTVerifier`` (the keys fetched over `https`, or `http` to a
/// loopback host only, and cached per `Cache-Control: max-age` for at most 24 hours; one rate-limited re-fetch for
/// an unknown `kid`; `none` and `HS*` refused); the claims are compared with the server's clock, with ``clockSkew``
/// of tolerance. A verifier made with ``init(keySource:issuer:alternativeIssuers:audiences:authorizedParties:acceptedTypes:extraRules:transport:clockSkew:dateSource:clock:minimumRefetchInterval:logger:)``
/// or ``oidc(issuer:jwksURL:audience:acceptedTypes:transport:clockSkew:dateSource:clock:logger:)`` accepts only
/// `typ` `at+jwt` by default, so an ID token is never taken for an access token; the Firebase, Google and Apple
/// presets verify ID tokens, on purpose.
///
/// ```swift
/// let verifier = AccessTokenVerifier.firebase(projectID: "my-project", transport: AsyncHTTPClientTransport())
/// let token = try await verifier.verify(bearer)
/// print(token.subject)
/// ```
///
/// Copies share one key cache; create one verifier per issuer and keep it.
public struct AccessTokenVerifier: Sendable {
    /// The issuer the token must name.
    public let issuer: String
    /// Other accepted spellings of the issuer.
    public let alternativeIssuers: [String]
    /// The audiences accepted; `aud` must contain one of them.
    public let audiences: [String]
    /// Other accepted `azp` values besides ``audiences``.
    public let authorizedParties: [String]
    /// The accepted `typ` header values (lowercased, without `application/`); `nil` accepts any. `["at+jwt"]`
    /// (RFC 9068 §4) unless the verifier was created otherwise; `nil` for the ID-token presets.
    public let acceptedTypes: Set<String>?
    /// The tolerance for `exp`, `iat` and `nbf`.
    public let clockSkew: Duration

    private let verifier: JWTVerifier
    private let dateSource: DateSource

    /// Where Google publishes the certificates that sign Firebase ID tokens (Firebase's "Verify ID tokens using a
    /// third-party JWT library" documentation); the Firebase preset has no key set, as Firebase's tokens are
    /// verified by their audience's servers, not by the client.
    public static let firebaseCertificatesURL = URL(
        string: "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
    )!
    /// Google's JSON Web Key Set: the `jwks_uri` of ``TetherOAuth/ProviderConfiguration/google(clientID:clientSecret:redirectURI:scopes:)``.
    public static let googleKeysURL = ProviderConfiguration.google(clientID: "").jwksURI!
    /// Apple's JSON Web Key Set for Sign in with Apple: the `jwks_uri` of
    /// ``TetherOAuth/ProviderConfiguration/apple(clientID:redirectURI:scopes:)``.
    public static let appleKeysURL = ProviderConfiguration.apple(clientID: "").jwksURI!

    /// Creates a verifier for any issuer.
    /// - Parameters:
    ///   - keySource: Where the issuer's keys are published.
    ///   - issuer: The issuer the token must name.
    ///   - alternativeIssuers: Other accepted spellings of the issuer.
    ///   - audiences: The accepted audiences; at least one.
    ///   - authorizedParties: Other accepted `azp` values; none by default.
    ///   - acceptedTypes: The accepted `typ` values: `["at+jwt"]` by default (RFC 9068 §4: `at+jwt` or
    ///     `application/at+jwt`), so that an ID token (`typ` `JWT`) is not taken for an access token; `nil` accepts
    ///     any, for issuers whose access tokens carry another `typ` or none.
    ///   - extraRules: Checks beyond the registered claims, such as ``TetherOAuth/ExtraClaimRules/firebase``.
    ///   - transport: How the keys are fetched.
    ///   - clockSkew: The tolerance for time claims; 60 seconds by default.
    ///   - dateSource: The wall clock the time claims are compared with.
    ///   - clock: The monotonic clock of the key cache.
    ///   - minimumRefetchInterval: The shortest time between two fetches of the keys; 60 seconds by default.
    ///   - logger: Where key fetches and rejections are logged, at trace and debug level.
    public init(
        keySource: SigningKeySource,
        issuer: String,
        alternativeIssuers: [String] = [],
        audiences: [String],
        authorizedParties: [String] = [],
        acceptedTypes: Set<String>? = ["at+jwt"],
        extraRules: ExtraClaimRules = [],
        transport: any HTTPTransport,
        clockSkew: Duration = .seconds(60),
        dateSource: DateSource = .system,
        clock: any Clock<Duration> = ContinuousClock(),
        minimumRefetchInterval: Duration = .seconds(60),
        logger: Logger = .current
    ) {
        self.issuer = issuer
        self.alternativeIssuers = alternativeIssuers
        self.audiences = audiences
        self.authorizedParties = authorizedParties
        self.acceptedTypes = acceptedTypes.map { Set($0.map { $0.lowercased() }) }
        self.clockSkew = clockSkew
        self.dateSource = dateSource
        self.verifier = JWTVerifier(
            keySource: keySource,
            transport: transport,
            extraRules: extraRules,
            clock: clock,
            minimumRefetchInterval: minimumRefetchInterval,
            logger: logger
        )
    }

    /// Firebase Authentication ID tokens
    /// (https://firebase.google.com/docs/auth/admin/verify-id-tokens#verify_id_tokens_using_a_third-party_jwt_library):
    /// `RS256` with Google's X.509 certificate list, `iss` = `https://securetoken.google.com/<projectID>`, `aud` = the
    /// project id, a non-empty `sub`, and an `auth_time` in the past.
    /// - Parameters:
    ///   - projectID: The Firebase project id.
    ///   - transport: How the certificates are fetched.
    ///   - certificatesURL: Where they are fetched; Google's list by default.
    ///   - clockSkew: The tolerance for time claims.
    ///   - dateSource: The wall clock.
    ///   - clock: The monotonic clock of the key cache.
    ///   - logger: Where fetches and rejections are logged.
    /// - Returns: The verifier.
    public static func firebase(
        projectID: String,
        transport: any HTTPTransport,
        certificatesURL: URL = firebaseCertificatesURL,
        clockSkew: Duration = .seconds(60),
        dateSource: DateSource = .system,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current
    ) -> AccessTokenVerifier {
        preset(
            .firebase(apiKey: "", projectID: projectID),
            keySource: .x509Certificates(certificatesURL),
            audiences: [projectID],
            extraRules: .firebase,
            (transport, clockSkew, dateSource, clock, logger)
        )
    }

    /// Google ID tokens: Google's JWKS, `iss` = `https://accounts.google.com` or `accounts.google.com`, `aud` one of
    /// `clientIDs`.
    ///
    /// An Android or iOS app that asks Google for an ID token for its server (the server's client id as audience)
    /// gets a token whose `azp` is the app's own client id; list those ids in `authorizedParties`.
    /// - Parameters:
    ///   - clientIDs: The accepted audiences: the server's client id, and any app client ids that send their own
    ///     ID tokens.
    ///   - authorizedParties: App client ids accepted as `azp` of tokens for one of `clientIDs`.
    ///   - transport: How the keys are fetched.
    ///   - keysURL: Where they are fetched; Google's JWKS by default.
    ///   - clockSkew: The tolerance for time claims.
    ///   - dateSource: The wall clock.
    ///   - clock: The monotonic clock of the key cache.
    ///   - logger: Where fetches and rejections are logged.
    /// - Returns: The verifier.
    public static func google(
        clientIDs: [String],
        authorizedParties: [String] = [],
        transport: any HTTPTransport,
        keysURL: URL = googleKeysURL,
        clockSkew: Duration = .seconds(60),
        dateSource: DateSource = .system,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current
    ) -> AccessTokenVerifier {
        preset(
            .google(clientID: clientIDs.first ?? ""),
            keySource: .jwks(keysURL),
            audiences: clientIDs,
            authorizedParties: authorizedParties,
            (transport, clockSkew, dateSource, clock, logger)
        )
    }

    /// Sign in with Apple identity tokens: Apple's JWKS, `iss` = `https://appleid.apple.com`, `aud` one of
    /// `bundleIDs` (an app's bundle id, or a Services ID for the web).
    /// - Parameters:
    ///   - bundleIDs: The accepted audiences.
    ///   - transport: How the keys are fetched.
    ///   - keysURL: Where they are fetched; Apple's JWKS by default.
    ///   - clockSkew: The tolerance for time claims.
    ///   - dateSource: The wall clock.
    ///   - clock: The monotonic clock of the key cache.
    ///   - logger: Where fetches and rejections are logged.
    /// - Returns: The verifier.
    public static func apple(
        bundleIDs: [String],
        transport: any HTTPTransport,
        keysURL: URL = appleKeysURL,
        clockSkew: Duration = .seconds(60),
        dateSource: DateSource = .system,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current
    ) -> AccessTokenVerifier {
        preset(
            .apple(clientID: bundleIDs.first ?? ""),
            keySource: .jwks(keysURL),
            audiences: bundleIDs,
            (transport, clockSkew, dateSource, clock, logger)
        )
    }

    /// JWT access tokens of any OAuth 2.0 / OpenID Connect issuer (RFC 9068): the issuer's JWKS, `iss` and `aud`
    /// as given, and `typ` = `at+jwt` (or `application/at+jwt`) unless `acceptedTypes` says otherwise.
    /// - Parameters:
    ///   - issuer: The issuer identifier.
    ///   - jwksURL: The issuer's `jwks_uri`.
    ///   - audience: This resource server's identifier, which `aud` must contain.
    ///   - acceptedTypes: The accepted `typ` values; `["at+jwt"]` by default, `nil` for any.
    ///   - transport: How the keys are fetched.
    ///   - clockSkew: The tolerance for time claims.
    ///   - dateSource: The wall clock.
    ///   - clock: The monotonic clock of the key cache.
    ///   - logger: Where fetches and rejections are logged.
    /// - Returns: The verifier.
    public static func oidc(
        issuer: String,
        jwksURL: URL,
        audience: String,
        acceptedTypes: Set<String>? = ["at+jwt"],
        transport: any HTTPTransport,
        clockSkew: Duration = .seconds(60),
        dateSource: DateSource = .system,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current
    ) -> AccessTokenVerifier {
        AccessTokenVerifier(
            keySource: .jwks(jwksURL),
            issuer: issuer,
            audiences: [audience],
            acceptedTypes: acceptedTypes,
            transport: transport,
            clockSkew: clockSkew,
            dateSource: dateSource,
            clock: clock,
            logger: logger
        )
    }

    /// A verifier for a provider preset's tokens: the preset's issuer and its other spellings, `keySource` for
    /// the keys, and and the parameters every preset passes on
    /// unchanged.
    static func preset(
        _ provider: ProviderConfiguration,
        keySource: SigningKeySource,
        audiences: [String],
        authorizedParties: [String] = [],
        extraRules: ExtraClaimRules = [],
        _ common: (
            transport: any HTTPTransport, clockSkew: Duration, dateSource: DateSource, clock: any Clock<Duration>,
            logger: Logger
        )
    ) -> AccessTokenVerifier {
        AccessTokenVerifier(
            keySource: keySource,
            issuer: provider.issuer ?? "",
            alternativeIssuers: provider.alternativeIssuers,
            audiences: audiences,
            authorizedParties: authorizedParties,
            // The presets verify ID tokens, on purpose: their `typ` is `JWT` or absent.
            acceptedTypes: nil,
            extraRules: extraRules,
            transport: common.transport,
            clockSkew: common.clockSkew,
            dateSource: common.dateSource,
            clock: common.clock,
            logger: common.logger
        )
    }

    /// Verifies a bearer token.
    /// - Parameter token: The compact JWT from `Authorization: Bearer`.
    /// - Returns: What the token says.
    /// - Throws: ``AccessTokenError`` — ``AccessTokenError/expired``, ``AccessTokenError/invalid`` (with a
    ///   description of why), ``AccessTokenError/keysUnavailable`` — or `CancellationError`.
    public func verify(_ token: String) async throws -> VerifiedToken {
        guard let audience = audiences.first else {
            throw AccessTokenError.invalid.with(
                message: "The access token is meant for another audience",
                cause: nil
            )
        }
        let expectations = IDTokenExpectations(
            issuer: issuer,
            alternativeIssuers: alternativeIssuers,
            audience: audience,
            now: dateSource.now,
            clockSkew: clockSkew,
            alternativeAudiences: Array(audiences.dropFirst()),
            authorizedParties: authorizedParties
        )
        do {
            return VerifiedToken(
                claims: try await verifier.verify(token, expecting: expectations, acceptedTypes: acceptedTypes)
            )
        } catch let error as IDTokenError {
            throw Self.accessTokenError(for: error)
        }
    }

    static func accessTokenError(for error: IDTokenError) -> AccessTokenError {
        if error == .expired {
            return AccessTokenError.expired.with(message: "The access token expired", cause: error)
        }
        if error == .insecureKeySource {
            return AccessTokenError.keysUnavailable.with(
                message: "The token could not be checked: the issuer's keys would be fetched over plain HTTP",
                cause: error
            )
        }
        if error == .keysUnavailable {
            return AccessTokenError.keysUnavailable.with(
                message: "The token could not be checked; try again later",
                cause: error
            )
        }
        let descriptions: [(IDTokenError, String)] = [
            (.badSignature, "The access token's signature is invalid"),
            (.unknownKey, "The access token was signed with an unknown key"),
            (.unsupportedAlgorithm, "The access token's algorithm is not accepted"),
            (.wrongIssuer, "The access token comes from another issuer"),
            (.wrongAudience, "The access token is meant for another audience"),
            (.wrongAuthorizedParty, "The access token is meant for another audience"),
            (.notYetValid, "The access token is not valid yet"),
            (.tooOld, "The access token is too old"),
        ]
        let description = descriptions.first { $0.0 == error }?.1 ?? "The access token is malformed"
        return AccessTokenError.invalid.with(message: description, cause: error)
    }
}
