import Foundation
public import Logging
public import Tether
public import TetherOAuth

/// Verifies signed JWTs, such as JWT access tokens (RFC 9068), with the issuer's published keys: structure,
/// algorithm, signature (through jwt-kit), `typ`, and the claims.
///
/// The keys come from a ``SigningKeySource`` and are cached as ``JWKSIDTokenValidator`` describes (that validator,
/// for OpenID Connect ID tokens, is built on this type). The claim checks are those of OpenID Connect Core
/// section 3.1.3.7 apart from the nonce, which the expectations leave out for tokens that have none.
///
/// Copies share one key cache. Errors and log entries never contain the token.
public struct JWTVerifier: Sendable {
    private let store: KeyStore
    private let extraRules: ExtraClaimRules
    private let logger: Logger

    /// Where the keys come from.
    public let keySource: SigningKeySource

    /// The shortest time between two fetches of the keys.
    public let minimumRefetchInterval: Duration

    /// How long keys are kept when the response has no `Cache-Control: max-age`.
    public let defaultCacheLifetime: Duration

    /// Creates a verifier for any key source, with optional extra claim rules.
    /// - Parameters:
    ///   - keySource: Where the keys are published: ``SigningKeySource/jwks(_:)`` or
    ///     ``SigningKeySource/x509Certificates(_:)``.
    ///   - transport: How the keys are fetched.
    ///   - extraRules: Checks beyond the registered claims, such as ``ExtraClaimRules/firebase``; none by default.
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
        self.keySource = keySource
        self.extraRules = extraRules
        self.minimumRefetchInterval = minimumRefetchInterval
        self.defaultCacheLifetime = defaultCacheLifetime
        self.logger = logger
        self.store = KeyStore(
            source: keySource,
            transport: transport,
            clock: clock,
            minimumRefetchInterval: minimumRefetchInterval,
            defaultCacheLifetime: defaultCacheLifetime,
            logger: logger
        )
    }

    /// Verifies a compact JWT and returns its claims.
    /// - Parameters:
    ///   - compact: The compact JWT.
    ///   - expectations: What the token must say; `now` is the wall-clock time the time claims are compared with.
    ///   - acceptedTypes: The accepted `typ` header values, compared case-insensitively, with or without the
    ///     `application/` prefix (RFC 9068 section 4); `nil` (the default) accepts any.
    /// - Returns: The verified claims.
    /// - Throws: ``TetherOAuth/IDTokenError`` as ``JWKSIDTokenValidator/validate(_:expecting:)`` does; `malformed`
    ///   for a `typ` that is not accepted; or `CancellationError`.
    public func verify(
        _ compact: String,
        expecting expectations: IDTokenExpectations,
        acceptedTypes: Set<String>? = nil
    ) async throws -> JWTClaims {
        let (checked, claimSet) = try await verifiedClaims(
            compact,
            expecting: expectations,
            acceptedTypes: acceptedTypes
        )
        return JWTClaims(checked, claimSet: claimSet)
    }

    /// Verifies a compact JWT and returns both the checked claims and the whole claim set.
    package func verifiedClaims(
        _ compact: String,
        expecting expectations: IDTokenExpectations,
        acceptedTypes: Set<String>? = nil
    ) async throws -> (claims: IDTokenClaims, claimSet: JWTClaimSet) {
        let token = try CompactJWS(compact)
        if let acceptedTypes {
            var type = token.header.type?.lowercased() ?? ""
            if type.hasPrefix("application/") { type.removeFirst("application/".count) }
            guard acceptedTypes.contains(type) else {
                throw IDTokenError.malformed.with(message: "The token's typ is not one this verifier accepts")
            }
        }
        let algorithm = try JWSAlgorithm(headerValue: token.header.algorithm)
        let claims = try JWTClaimSet(decoding: token.payload)
        let candidates = try await store.keys(for: token.header.keyID)
        guard let key = candidates.first(where: { $0.accepts(algorithm) }) else {
            throw IDTokenError.unsupportedAlgorithm.with(
                message: "The ID token's algorithm is not the one its signing key is declared for"
            )
        }
        try await key.verifySignature(of: token, algorithm: algorithm)
        return (try ClaimValidation.validate(claims, against: expectations, rules: extraRules), claims)
    }
}
