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
/// - `429` and `503` with `Retry-After` are retried with bounded backoff, for idempotent methods (or any method
///   when the caller opts in).
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
        /// Attempts for `429` / `503` with `Retry-After`, the first included; 3 by default.
        public var maximumAttempts: Int
        /// The longest `Retry-After` honoured; 30 seconds by default. A longer one ends the call at once.
        public var maximumRetryDelay: Duration
        /// The delay when `Retry-After` is missing or an HTTP date; 1 second by default.
        public var defaultRetryDelay: Duration
        /// Whether non-idempotent methods (POST, PATCH) are retried after `429` / `503` too; off by default.
        public var retriesNonIdempotentRequests: Bool

        /// Creates a configuration.
        /// - Parameters:
        ///   - maximumAttempts: Attempts for `429` / `503`, the first included.
        ///   - maximumRetryDelay: The longest `Retry-After` honoured.
        ///   - defaultRetryDelay: The delay without a usable `Retry-After`.
        ///   - retriesNonIdempotentRequests: Whether POST and PATCH are retried too.
        public init(
            maximumAttempts: Int = 3,
            maximumRetryDelay: Duration = .seconds(30),
            defaultRetryDelay: Duration = .seconds(1),
            retriesNonIdempotentRequests: Bool = false
        ) {
            self.maximumAttempts = max(1, maximumAttempts)
            self.maximumRetryDelay = maximumRetryDelay
            self.defaultRetryDelay = defaultRetryDelay
            self.retriesNonIdempotentRequests = retriesNonIdempotentRequests
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
                throw AuthorizedClientError.transport.with(message: error.message, cause: error)
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
                        challenge: bearer,
                        cause: error
                    )
                }
            case 403:
                let challenges = response.headerFields[values: .wwwAuthenticate].flatMap(AuthenticationChallenge.parse)
                let scope = challenges.first { $0.error == "insufficient_scope" }?.scope
                throw AuthorizedClientError.forbidden.with(
                    message: "\(target) answered 403"
                        + (scope.map { ": scope '\(UntrustedText.sanitized($0))' is needed" } ?? ""),
                    httpStatus: 403,
                    scope: scope,
                    serverMessage: Self.serverMessage(data)
                )
            default:
                // Only a server that asked to be called again later (429, 503) is retried: after another 5xx the
                // request may have taken effect, and the caller knows best whether to repeat it.
                guard case .throttled(let retryAfter) = FailureClassifier.classify(response, body: data) else {
                    throw server(response, data, target: target)
                }
                let delay = retryAfter ?? configuration.defaultRetryDelay
                guard retriable, attempt < configuration.maximumAttempts, delay <= configuration.maximumRetryDelay
                else {
                    throw server(response, data, target: target)
                }
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
            challenge: challenge
        )
    }

    private func server(_ response: HTTPResponse, _ data: Data, target: String) -> AuthorizedClientError {
        AuthorizedClientError.server.with(
            message: "\(target) answered HTTP \(response.status.code)",
            httpStatus: response.status.code,
            serverMessage: Self.serverMessage(data),
            retryAfter: FailureClassifier.retryAfter(response.headerFields)
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
}
