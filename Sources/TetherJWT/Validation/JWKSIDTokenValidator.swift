public import Foundation
public import Logging
public import Tether
public import TetherOAuth

/// Verifies OpenID Connect ID tokens with the issuer's published keys: signature (through jwt-kit), then the
/// claim checks of OpenID Connect Core §3.1.3.7.
///
/// The keys come from a ``SigningKeySource`` — a JWKS (`jwks_uri`) or, for Firebase, a list of X.509
/// certificates. They are fetched on first use through the injected `HTTPTransport`, over `https` only (plain
/// `http` is refused with ``TetherOAuth/IDTokenError/insecureKeySource`` unless the host is 127.0.0.0/8, `::1` or
/// `localhost`), kept for the response's `Cache-Control: max-age` but at most 24 hours (``defaultCacheLifetime``
/// without one), and fetched again when a token names a key the cache lacks: at once the first time a `kid` is
/// missed (a provider that has just rotated its key), else at most once per ``minimumRefetchInterval``, and never
/// more than four times per interval however many unknown `kid`s tokens name; concurrent validations share one
/// request.
///
/// Accepted algorithms: `RS256/384/512`, `PS256/384/512`, `ES256/384/512` and `EdDSA` (Ed25519). The key decides:
/// a key that declares `alg` verifies only that algorithm; one that does not, any algorithm of its type. `none` and
/// the MAC algorithms (`HS*`) are always rejected.
///
/// ```swift
/// let validator = JWKSIDTokenValidator(
///     jwksURL: URL(string: "https://www.googleapis.com/oauth2/v3/certs")!,
///     transport: URLSessionTransport()
/// )
/// let claims = try await validator.validate(
///     idToken,
///     expecting: IDTokenExpectations(
///         issuer: "https://accounts.google.com",
///         alternativeIssuers: ["accounts.google.com"],
///         audience: clientID,
///         nonce: nonce,
///         now: dateSource.now
///     )
/// )
/// ```
///
/// Copies share one key cache. Errors and log entries never contain the token.
public struct JWKSIDTokenValidator: IDTokenValidating {
    private let verifier: JWTVerifier
    private let logger: Logger

    /// Where the keys come from.
    public var keySource: SigningKeySource { verifier.keySource }

    /// The shortest time between two fetches of the keys.
    public var minimumRefetchInterval: Duration { verifier.minimumRefetchInterval }

    /// How long keys are kept when the response has no `Cache-Control: max-age`.
    public var defaultCacheLifetime: Duration { verifier.defaultCacheLifetime }

    /// Creates a validator for an issuer's JSON Web Key Set.
    /// - Parameters:
    ///   - jwksURL: The issuer's `jwks_uri`.
    ///   - transport: How the keys are fetched.
    ///   - clock: The monotonic clock that times the cache and the re-fetch interval; `ContinuousClock` by default.
    ///   - minimumRefetchInterval: The shortest time between two fetches; 60 seconds by default.
    ///   - defaultCacheLifetime: How long keys are kept without `max-age`; one hour by default.
    ///   - logger: Where fetches and rejections are logged, at trace and debug level.
    public init(
        jwksURL: URL,
        transport: any HTTPTransport,
        clock: any Clock<Duration> = ContinuousClock(),
        minimumRefetchInterval: Duration = .seconds(60),
        defaultCacheLifetime: Duration = .seconds(3600),
        logger: Logger = .current
    ) {
        self.init(
            keySource: .jwks(jwksURL),
            transport: transport,
            clock: clock,
            minimumRefetchInterval: minimumRefetchInterval,
            defaultCacheLifetime: defaultCacheLifetime,
            logger: logger
        )
    }

    /// Creates a validator for any key source, with optional extra claim rules.
    /// - Parameters:
    ///   - keySource: Where the keys are published: ``SigningKeySource/jwks(_:)`` or
    ///     ``SigningKeySource/x509Certificates(_:)``.
    ///   - transport: How the keys are fetched.
    ///   - extraRules: Checks beyond OpenID Connect Core, such as ``ExtraClaimRules/firebase``; none by default.
    ///   - clock: The monotonic clock that times the cache and the re-fetch interval; `ContinuousClock` by default.
    ///   - minimumRefetchInterval: The shortest time between two fetches; 60 seconds by default.
    ///   - defaultCacheLifetime: How long keys are kept without `max-age`; one hour by default.
    ///   - logger: Where fetches and rejections are logged, at trace and debug level.
    public init(
        keySource: SigningKeySource,
        transport: any HTTPTransport,
        extraRules: ExtraClaimRules = [],
        clock: any Clock<Duration> = ContinuousClock(),
        minimumRefetchInterval: Duration = .seconds(60),
        defaultCacheLifetime: Duration = .seconds(3600),
        logger: Logger = .current
    ) {
        self.logger = logger
        self.verifier = JWTVerifier(
            keySource: keySource,
            transport: transport,
            extraRules: extraRules,
            clock: clock,
            minimumRefetchInterval: minimumRefetchInterval,
            defaultCacheLifetime: defaultCacheLifetime,
            logger: logger
        )
    }

    /// Verifies a token's structure, algorithm, signature and claims, and returns its claims.
    /// - Parameters:
    ///   - idToken: The compact JWT.
    ///   - expectations: What the token must say; `now` is the wall-clock time the time claims are compared with.
    /// - Returns: The verified claims.
    /// - Throws: ``TetherOAuth/IDTokenError``: `malformed` (not a JWS, header or claims not JSON, a required claim
    ///   absent), `unsupportedAlgorithm` (`none`, `HS*`, unknown, or not the key's `alg`), `unknownKey`,
    ///   `keysUnavailable` (transient: the keys could not be fetched), `badSignature`, `wrongIssuer`,
    ///   `wrongAudience`, `wrongAuthorizedParty`, `expired`, `notYetValid`, `tooOld`, `missingNonce`,
    ///   `nonceMismatch`; or `CancellationError`.
    public func validate(_ idToken: IDToken, expecting expectations: IDTokenExpectations) async throws -> IDTokenClaims
    {
        do {
            let claims = try await verify(idToken, expecting: expectations)
            logger.trace("ID token accepted", metadata: ["jwt.keys": "\(keySource)"])
            return claims
        } catch let error as IDTokenError {
            logger.debug("ID token rejected", metadata: ["jwt.error": "\(error.message)", "jwt.keys": "\(keySource)"])
            throw error
        }
    }

    private func verify(_ idToken: IDToken, expecting expectations: IDTokenExpectations) async throws -> IDTokenClaims {
        try await verifier.verifiedClaims(idToken.revealedValue, expecting: expectations).claims
    }
}
