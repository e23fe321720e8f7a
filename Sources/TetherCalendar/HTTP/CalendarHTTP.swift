import Foundation
import HTTPTypes
import Logging
import Tether

/// Sends the calendar clients' GET requests through one ``Tether/AuthorizedClient`` (bearer token, refresh before
/// expiry, one retry after a 401, and the bounded backoff for rate limits and server errors, told the calendar
/// APIs' error reasons by ``CalendarFailurePolicy/rule``), and never to another origin than the configured base URL
/// (paging links are opaque URLs from the server; a bearer token must not follow one elsewhere).
struct CalendarHTTP: Sendable {
    let session: Session
    let baseURL: URL
    private let client: AuthorizedClient

    /// Creates the sender of one calendar client.
    /// - Parameters:
    ///   - session: Where access tokens come from.
    ///   - transport: How requests are sent.
    ///   - baseURL: The API's base URL; no request leaves its origin.
    ///   - retry: The backoff for rate limits and server errors.
    ///   - clock: The clock the backoff sleeps on.
    ///   - logger: Where requests are logged, redacted.
    init(
        session: Session,
        transport: any HTTPTransport,
        baseURL: URL,
        retry: Backoff,
        clock: any Clock<Duration>,
        logger: Logger
    ) {
        self.session = session
        self.baseURL = baseURL
        self.client = AuthorizedClient(
            session: session,
            transport: transport,
            configuration: CalendarFailurePolicy.clientConfiguration(backoff: retry),
            clock: clock,
            logger: logger
        )
    }

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
        do {
            return try await client.send(request).1
        } catch {
            throw await withAccountHint(try CalendarFailurePolicy.classify(error, target: target))
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
            throw Self.notTheDocumentedJSON(url, cause: error)
        }
    }

    /// GETs `url` and reads the JSON body with a ``JSONScanner``: a page of events, whose members the client mostly
    /// does not read (see ``ScannedJSON``).
    func json<T: ScannedJSON>(_ url: URL, headers: HTTPFields = [:], as type: T.Type = T.self) async throws -> T {
        let data = try await get(url, headers: headers)
        do {
            return try T(scanning: data)
        } catch {
            throw Self.notTheDocumentedJSON(url, cause: error)
        }
    }

    private static func notTheDocumentedJSON(_ url: URL, cause: any Error) -> CalendarError {
        CalendarError.decoding.with(
            message: "The answer of \(HTTPRequest(method: .get, url: url).redactedTarget) is not the documented JSON",
            cause: cause
        )
    }
}
