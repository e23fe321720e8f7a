import Foundation
import HTTPTypes
import Logging
import Tether

/// Sends the calendar clients' GET requests: through an ``AuthorizedClient`` (bearer token, refresh before
/// expiry, one retry after a 401), with the calendar's own bounded backoff for rate limits, and never to another
/// origin than the configured base URL (paging links are opaque URLs from the server; a bearer token must not
/// follow one elsewhere).
struct CalendarHTTP: Sendable {
    let session: Session
    let transport: any HTTPTransport
    let baseURL: URL
    let retry: CalendarRetryPolicy
    let clock: any Clock<Duration>
    let logger: Logger

    /// Builds `base/segments…?query`, percent-encoding each path segment and query value (RFC 3986 §2).
    func url(_ segments: [String], query: [(String, String)] = []) -> URL {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        for segment in segments { text += "/" + Self.encode(segment) }
        if !query.isEmpty {
            text += "?" + query.map { Self.encode($0.0) + "=" + Self.encode($0.1) }.joined(separator: "&")
        }
        return URL(string: text)!
    }

    /// Characters left as they are: RFC 3986 §2.3 unreserved.
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// Whether `url` is on the base URL's scheme, host and port.
    func isSameOrigin(_ url: URL) -> Bool {
        url.scheme?.lowercased() == baseURL.scheme?.lowercased() && url.host?.lowercased() == baseURL.host?.lowercased()
            && url.port == baseURL.port
    }

    /// GETs `url` and returns the body of a 2xx response.
    /// - Throws: ``CalendarError`` (after the bounded retries for rate limits and server errors), or
    ///   `CancellationError`.
    func get(_ url: URL, headers: HTTPFields = [:]) async throws -> Data {
        var request = HTTPRequest(method: .get, url: url)
        request.headerFields = headers
        request.headerFields[.accept] = "application/json"
        let target = request.redactedTarget
        guard isSameOrigin(url) else {
            throw CalendarError.api.with(
                message: "A paging link led away from \(baseURL.host ?? "the API"); not followed"
            )
        }
        var attempt = 0
        while true {
            attempt += 1
            let probe = ProbingTransport(base: transport)
            // The calendar's backoff is the only one: the client makes one attempt per call.
            let client = AuthorizedClient(
                session: session,
                transport: probe,
                configuration: AuthorizedClient.Configuration(maximumAttempts: 1),
                clock: clock,
                logger: logger
            )
            do {
                return try await client.send(request).1
            } catch {
                // A refused token (any 401 form, Graph's included) was refreshed and retried once by the
                // AuthorizedClient, under the session's limit on forced refreshes.
                let failure = try CalendarFailurePolicy.classify(error, response: probe.lastError, target: target)
                guard let delay = CalendarFailurePolicy.delay(after: attempt, error: failure, policy: retry) else {
                    throw await withAccountHint(failure)
                }
                logger.debug(
                    "Calendar request throttled or failed; retrying",
                    metadata: [
                        "http.target": "\(target)", "http.status": "\(failure.httpStatus ?? 0)",
                        "http.attempt": "\(attempt)", "retry.delay": "\(delay)",
                    ]
                )
                try await clock.sleep(for: delay)
            }
        }
    }

    /// A "needs sign-in" error names the account to sign in again, from the session's record.
    private func withAccountHint(_ failure: CalendarError) async -> CalendarError {
        guard failure == .needsSignIn, failure.accountHint == nil else { return failure }
        return failure.with(
            message: failure.message,
            httpStatus: failure.httpStatus,
            providerReason: failure.providerReason,
            accountHint: await session.status.account,
            cause: failure.cause
        )
    }

    /// GETs `url` and decodes the JSON body.
    func json<T: Decodable>(_ url: URL, headers: HTTPFields = [:], as type: T.Type = T.self) async throws -> T {
        let data = try await get(url, headers: headers)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw CalendarError.decoding.with(
                message:
                    "The answer of \(HTTPRequest(method: .get, url: url).redactedTarget) is not the documented JSON",
                cause: error
            )
        }
    }
}

/// A transport that remembers the last error response it passed up, for ``CalendarFailurePolicy``.
final class ProbingTransport: HTTPTransport, Sendable {
    private let base: any HTTPTransport
    private let captured = LockedState<CalendarFailurePolicy.ErrorResponse?>(nil)

    init(base: any HTTPTransport) { self.base = base }

    var lastError: CalendarFailurePolicy.ErrorResponse? { captured.withLock { $0 } }

    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let (response, data) = try await base.send(request, body: body)
        if response.status.kind != .successful {
            let error = CalendarFailurePolicy.ErrorResponse(
                status: response.status.code,
                retryAfter: CalendarFailurePolicy.retryAfter(response),
                body: data.prefix(16 * 1024)
            )
            captured.withLock { $0 = error }
        }
        return (response, data)
    }
}
