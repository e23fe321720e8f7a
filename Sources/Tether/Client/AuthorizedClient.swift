public import Foundation
public import HTTPTypes
public import Logging

/// Sends requests to an API with a fresh bearer token from a ``Session``, and recovers from a stale one.
///
/// - Adds `Authorization: Bearer …` from ``Session/validAccessToken(minimumLifetime:)``, which refreshes before
///   expiry.
/// - A `401` means the token was refused, whatever form it takes, and forces one refresh (shared with every other
///   caller) and one retry. Never more. APIs say it differently: `error="invalid_token"` (RFC 6750 §3.1; Google
///   APIs, with a JSON error body), a challenge without `error` (Microsoft Graph's `Bearer realm="",
///   authorization_uri=…, client_id=…`), or no challenge at all (GitHub's `{"message":"Bad credentials"}`). Only
///   a challenge naming another cause, `invalid_request` or `insufficient_scope`, is reported at once
///   (``AuthenticationChallenge/refusesToken``).
/// - A claims challenge (`401`, `error="insufficient_claims", claims="…"`, Microsoft Entra continuous access
///   evaluation, https://learn.microsoft.com/entra/identity-platform/claims-challenge) refreshes with that claims
///   request (the `claims` parameter) and retries once. When the provider wants the user instead (multi-factor
///   authentication, a compliant device), the refresh is refused, the session needs sign-in and
///   ``AuthorizedClientError/signInReason`` says why.
/// - When the forced refresh is refused, or the connection has no refresh token to renew the refused one, the
///   grant is gone: the session's status becomes ``ConnectionStatus/needsSignIn(reason:accountHint:)`` and the
///   error is ``AuthorizedClientError/unauthorized`` with ``AuthorizedClientError/requiresSignIn`` and the reason.
/// - A `403` with `error="insufficient_scope"` is ``AuthorizedClientError/forbidden`` naming the scope; no retry.
/// - Forced refreshes are rate-limited per session, so per connection
///   (``Session/Configuration/minimumForcedRefreshInterval``, 30 seconds by default, on the session's clock): an
///   API that rejects every token gets ``AuthorizedClientError/unauthorized`` without a refresh storm.
/// - A request over plain `http` to a host other than loopback (127.0.0.0/8, `::1`, `localhost`) is refused
///   with ``AuthorizedClientError/insecureTransport`` before a token is read, since anyone on the path could
///   read the bearer token (RFC 6750 §5.3).
/// - `429` and `503` are retried after the wait `Retry-After` asks for, or the ``Configuration/backoff``'s, a
///   bounded number of times, for idempotent methods (or any method when the caller opts in). What is retried is
///   decided once for all of Tether (`FailureClassifier`); an API client adds what its error bodies say, as the
///   calendar clients do for Google's rate limits answered with `403`.
///
/// ```swift
/// let api = AuthorizedClient(session: session, transport: URLSessionTransport())
/// let events: EventList = try await api.json(HTTPRequest(method: .get, url: eventsURL))
/// ```
///
/// Logging is at debug level: method, host and path, status, attempt — never headers, bodies or queries.
public struct AuthorizedClient: Sendable {
    /// How the client retries.
    public struct Configuration: Sendable {
        /// The attempts and waits after a server asked to be called again later (`429`, `503`): 3 attempts, the
        /// first included, 1 second apart unless `Retry-After` asks for up to 30 seconds (``defaultBackoff``). A
        /// longer `Retry-After` ends the call at once.
        public var backoff: Backoff
        /// Whether non-idempotent methods (POST, PATCH) are retried after `429` / `503` too; off by default.
        public var retriesNonIdempotentRequests: Bool
        /// Whether a transient failure (`408`, a `5xx` other than `503`; `FailureClassifier.Verdict.transient`) is
        /// retried too, and a request that got no response (as `FailureClassifier.retry(after:authority:)` says: a
        /// timeout with the backoff, a connection that could not be made at most once, and not at all on
        /// loopback); off by default, since after such a failure the request may have taken effect and the caller
        /// knows best whether to repeat it. The calendar clients turn it on for their reads.
        package var retriesTransientFailures = false
        /// What an API says in an error body that its status does not, such as Google's rate limits answered with
        /// `403`; asked before the status, in order.
        package var failureRules: [FailureClassifier.BodyRule] = []

        /// The default ``backoff``: 3 attempts, 1 second apart, a `Retry-After` honoured up to 30 seconds, no
        /// jitter.
        public static let defaultBackoff = Backoff(
            maximumAttempts: 3,
            initialDelay: .seconds(1),
            multiplier: 1,
            maximumDelay: .seconds(30),
            jitter: 0
        )

        /// Creates a configuration.
        /// - Parameters:
        ///   - backoff: The attempts and waits after `429` / `503`.
        ///   - retriesNonIdempotentRequests: Whether POST and PATCH are retried too.
        public init(backoff: Backoff = defaultBackoff, retriesNonIdempotentRequests: Bool = false) {
            self.backoff = backoff
            self.retriesNonIdempotentRequests = retriesNonIdempotentRequests
        }

        /// Creates a configuration for an API with its own rules.
        /// - Parameters:
        ///   - backoff: The attempts and waits.
        ///   - retriesTransientFailures: Whether `408` and `5xx` other than `503` are retried too.
        ///   - failureRules: What the API's error bodies say, asked before the status.
        package init(backoff: Backoff, retriesTransientFailures: Bool, failureRules: [FailureClassifier.BodyRule]) {
            self.init(backoff: backoff)
            self.retriesTransientFailures = retriesTransientFailures
            self.failureRules = failureRules
        }

        /// Creates a configuration with a constant delay.
        /// - Parameters:
        ///   - maximumAttempts: Attempts for `429` / `503`, the first included.
        ///   - maximumRetryDelay: The longest `Retry-After` honoured.
        ///   - defaultRetryDelay: The delay without a usable `Retry-After`.
        ///   - retriesNonIdempotentRequests: Whether POST and PATCH are retried too.
        @available(*, deprecated, message: "Use init(backoff:retriesNonIdempotentRequests:) with a Backoff")
        public init(
            maximumAttempts: Int,
            maximumRetryDelay: Duration = .seconds(30),
            defaultRetryDelay: Duration = .seconds(1),
            retriesNonIdempotentRequests: Bool = false
        ) {
            self.init(
                backoff: Backoff(
                    maximumAttempts: maximumAttempts,
                    initialDelay: defaultRetryDelay,
                    multiplier: 1,
                    maximumDelay: maximumRetryDelay,
                    jitter: 0
                ),
                retriesNonIdempotentRequests: retriesNonIdempotentRequests
            )
        }

        /// Attempts for `429` / `503`, the first included: ``Backoff/maximumAttempts`` of ``backoff``.
        @available(*, deprecated, message: "Use backoff.maximumAttempts")
        public var maximumAttempts: Int {
            get { backoff.maximumAttempts }
            set { backoff.maximumAttempts = max(1, newValue) }
        }
    }

    private let session: Session
    private let transport: any HTTPTransport
    private let configuration: Configuration
    private let clock: any Clock<Duration>
    private let logger: Logger

    /// Creates a client.
    /// - Parameters:
    ///   - session: Where access tokens come from.
    ///   - transport: How requests are sent.
    ///   - configuration: Retry behaviour.
    ///   - clock: The clock backoff sleeps on.
    ///   - logger: Where requests are logged, redacted.
    public init(
        session: Session,
        transport: any HTTPTransport,
        configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current
    ) {
        self.session = session
        self.transport = transport
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
    }

    /// Sends a request with a bearer token and returns a successful (2xx) response.
    /// - Parameters:
    ///   - request: The request; an `Authorization` header in it is replaced.
    ///   - body: The body, if any.
    /// - Returns: The response and its body.
    /// - Throws: ``AuthorizedClientError`` — `insecureTransport`, `unauthorized` (with whether the session now
    ///   needs sign-in), `forbidden`, `server`, `transport` — or a ``SessionError`` when no token could be had.
    public func send(_ request: HTTPRequest, body: Data? = nil) async throws -> (HTTPResponse, Data) {
        let target = request.redactedTarget
        try Self.requireSecureTransport(request, target: target)
        let retriable = configuration.retriesNonIdempotentRequests || Self.isIdempotent(request.method)
        var refreshed = false
        var attempt = 0
        // Failed answers other than 401 count against the backoff's attempts; the one retry after a refresh does not.
        var failures = 0
        var random = SystemRandomNumberGenerator()
        var token = try await session.validAccessToken()
        while true {
            attempt += 1
            var authorized = request
            authorized.headerFields[.authorization] = "Bearer \(token.revealedValue)"
            let response: HTTPResponse
            let data: Data
            do {
                (response, data) = try await transport.send(authorized, body: body)
            } catch let error as TransportError {
                failures += 1
                guard
                    let delay = retryDelay(
                        after: failures,
                        transportError: error,
                        request: request,
                        retriable: retriable,
                        using: &random
                    )
                else {
                    throw AuthorizedClientError.transport.with(message: error.message, cause: error)
                }
                logger.debug(
                    "No response; retrying",
                    metadata: [
                        "http.target": "\(target)", "http.error": "\(error.details.code)", "http.attempt": "\(attempt)",
                        "retry.delay": "\(delay)",
                    ]
                )
                try await clock.sleep(for: delay)
                continue
            }
            logger.debug(
                "API request",
                metadata: [
                    "http.method": "\(request.method.rawValue)", "http.target": "\(target)",
                    "http.status": "\(response.status.code)", "http.attempt": "\(attempt)",
                ]
            )
            switch response.status.code {
            case 200..<300:
                return (response, data)
            case 401:
                let challenges = response.headerFields[values: .wwwAuthenticate].flatMap(AuthenticationChallenge.parse)
                let bearer = challenges.first { ["bearer", "dpop"].contains($0.scheme.lowercased()) }
                guard bearer?.refusesToken ?? true, !refreshed else {
                    throw await unauthorized(response, data, challenge: bearer, target: target, retried: refreshed)
                }
                refreshed = true
                let claims = bearer?.error == "insufficient_claims" ? bearer?.claims : nil
                let challengeError = UntrustedText.sanitized(bearer?.error) ?? "none"
                logger.debug(
                    "Token refused; refreshing once",
                    metadata: [
                        "http.target": "\(target)", "oauth.challenge_error": "\(challengeError)",
                        "oauth.claims_challenge": "\(claims != nil)",
                    ]
                )
                do {
                    token = try await session.forceRefresh(rejecting: token, throttled: true, claims: claims)
                } catch let error as SessionError {
                    throw AuthorizedClientError.unauthorized.with(
                        message: "\(target) rejected the token and it could not be refreshed: \(error.message)",
                        httpStatus: 401,
                        requiresSignIn: error.requiresReauthentication,
                        signInReason: error.signInReason,
                        serverMessage: Self.serverMessage(data),
                        providerReasons: Self.providerReasons(data),
                        challenge: bearer,
                        cause: error
                    )
                }
            default:
                failures += 1
                let verdict = FailureClassifier.classify(response, body: data, rules: configuration.failureRules)
                guard let delay = retryDelay(after: failures, verdict: verdict, retriable: retriable, using: &random)
                else {
                    throw failure(response, data, target: target)
                }
                logger.debug(
                    "Server asked to wait; retrying",
                    metadata: [
                        "http.target": "\(target)", "http.status": "\(response.status.code)",
                        "http.attempt": "\(attempt)", "retry.delay": "\(delay)",
                    ]
                )
                try await clock.sleep(for: delay)
            }
        }
    }

    /// Sends a request and decodes a JSON response.
    /// - Parameters:
    ///   - request: The request; `Accept: application/json` is added when missing.
    ///   - body: The body, if any.
    ///   - type: The type to decode.
    ///   - decoder: The decoder.
    /// - Returns: The decoded value.
    /// - Throws: See ``send(_:body:)``; ``AuthorizedClientError/decoding`` when the body does not decode.
    public func json<T: Decodable>(
        _ request: HTTPRequest,
        body: Data? = nil,
        as type: T.Type = T.self,
        decoder: JSONDecoder = JSONDecoder()
    ) async throws -> T {
        var request = request
        if request.headerFields[.accept] == nil { request.headerFields[.accept] = "application/json" }
        let (_, data) = try await send(request, body: body)
        do {
            return try decoder.decode(T.self, from: data)
        } catch {
            throw AuthorizedClientError.decoding.with(
                message: "The response of \(request.redactedTarget) is not a \(T.self)",
                cause: error
            )
        }
    }

    private func unauthorized(
        _ response: HTTPResponse,
        _ data: Data,
        challenge: AuthenticationChallenge?,
        target: String,
        retried: Bool
    ) async -> AuthorizedClientError {
        let status = await session.status
        let needsSignIn: Bool
        var signInReason: SignInReason?
        switch status {
        case .needsSignIn(let reason, _):
            needsSignIn = true
            signInReason = reason
        case .notConnected: needsSignIn = true
        default: needsSignIn = false
        }
        let reason = challenge?.error.map { " (\($0))" } ?? ""
        return AuthorizedClientError.unauthorized.with(
            message: retried
                ? "\(target) still answered 401\(reason) after a refresh" : "\(target) answered 401\(reason)",
            httpStatus: 401,
            requiresSignIn: needsSignIn,
            signInReason: signInReason,
            serverMessage: Self.serverMessage(data),
            providerReasons: Self.providerReasons(data),
            challenge: challenge
        )
    }

    /// The wait before the next attempt after `failures` failed answers, or `nil` to give up. A server that asked
    /// to be called again later (`429`, `503`, a rule's rate limit) is retried; another `5xx` only when the
    /// configuration says so, since the request may have taken effect.
    private func retryDelay(
        after failures: Int,
        verdict: FailureClassifier.Verdict,
        retriable: Bool,
        using random: inout some RandomNumberGenerator
    ) -> Duration? {
        switch verdict {
        case .throttled: break
        case .transient where configuration.retriesTransientFailures: break
        case .transient, .permanent: return nil
        }
        guard retriable, failures < configuration.backoff.maximumAttempts else { return nil }
        return configuration.backoff.delay(afterAttempt: failures, retryAfter: verdict.retryAfter, using: &random)
    }

    /// The wait before the next attempt after a request that got no response, or `nil` to give up (see
    /// `FailureClassifier.retry(after:authority:)`); only for configurations that retry transient failures.
    private func retryDelay(
        after failures: Int,
        transportError error: TransportError,
        request: HTTPRequest,
        retriable: Bool,
        using random: inout some RandomNumberGenerator
    ) -> Duration? {
        guard configuration.retriesTransientFailures, retriable, failures < configuration.backoff.maximumAttempts
        else { return nil }
        switch FailureClassifier.retry(after: error, authority: request.authority) {
        case .never: return nil
        case .once where failures > 1: return nil
        case .once, .backoff:
            return configuration.backoff.delay(afterAttempt: failures, retryAfter: nil, using: &random)
        }
    }

    /// The error for an answer that is neither a success nor a `401`: ``AuthorizedClientError/forbidden`` for a
    /// `403`, else ``AuthorizedClientError/server``, with what the body and `Retry-After` say.
    private func failure(_ response: HTTPResponse, _ data: Data, target: String) -> AuthorizedClientError {
        let retryAfter = FailureClassifier.retryAfter(response.headerFields)
        guard response.status.code == 403 else {
            return AuthorizedClientError.server.with(
                message: "\(target) answered HTTP \(response.status.code)",
                httpStatus: response.status.code,
                serverMessage: Self.serverMessage(data),
                providerReasons: Self.providerReasons(data),
                retryAfter: retryAfter
            )
        }
        let challenges = response.headerFields[values: .wwwAuthenticate].flatMap(AuthenticationChallenge.parse)
        let scope = challenges.first { $0.error == "insufficient_scope" }?.scope
        return AuthorizedClientError.forbidden.with(
            message: "\(target) answered 403"
                + (scope.map { ": scope '\(UntrustedText.sanitized($0))' is needed" } ?? ""),
            httpStatus: 403,
            scope: scope,
            serverMessage: Self.serverMessage(data),
            providerReasons: Self.providerReasons(data),
            retryAfter: retryAfter
        )
    }

    /// Refuses to send a bearer token where anyone on the path could read it (RFC 6750 §5.3): only https, or
    /// plain http to a loopback host.
    static func requireSecureTransport(_ request: HTTPRequest, target: String) throws {
        switch request.scheme?.lowercased() {
        case "https": return
        case "http" where LoopbackHost.contains(authority: request.authority ?? ""): return
        default:
            throw AuthorizedClientError.insecureTransport.with(
                message: "\(target) is not https; a bearer token goes over plain http only to 127.0.0.1, ::1 or "
                    + "localhost"
            )
        }
    }

    static func isIdempotent(_ method: HTTPRequest.Method) -> Bool {
        [.get, .head, .options, .put, .delete, .trace].contains(method)
    }

    /// A short message from a JSON error body (`message`, `error_description`, `error.message`, `error`), at
    /// most 200 characters and without control characters (``UntrustedText``); never the raw body.
    static func serverMessage(_ data: Data) -> String? {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
        let nested = (object["error"] as? [String: Any])?["message"] as? String
        let message =
            object["message"] as? String ?? object["error_description"] as? String ?? nested
            ?? object["error"] as? String
        return UntrustedText.sanitized(message)
    }

    /// The most reasons ``providerReasons(_:)`` keeps.
    static let maximumProviderReasons = 8

    /// The reasons a JSON error body gives: Google's `error.errors[].reason` and `error.status`, Microsoft Graph's
    /// `error.code` and `error.innerError.code`; at most ``maximumProviderReasons``, each through ``UntrustedText``.
    /// - Parameter data: The body.
    /// - Returns: The reasons in that order, or none when the body is not such an object.
    package static func providerReasons(_ data: Data) -> [String] {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let error = object["error"] as? [String: Any]
        else { return [] }
        var reasons: [String] = []
        if let errors = error["errors"] as? [[String: Any]] {
            reasons += errors.prefix(maximumProviderReasons).compactMap { $0["reason"] as? String }
        }
        if let code = error["code"] as? String { reasons.append(code) }
        if let inner = (error["innerError"] ?? error["innererror"]) as? [String: Any],
            let code = inner["code"] as? String
        {
            reasons.append(code)
        }
        if let status = error["status"] as? String { reasons.append(status) }
        return reasons.prefix(maximumProviderReasons).map { UntrustedText.sanitized($0) }
    }
}
