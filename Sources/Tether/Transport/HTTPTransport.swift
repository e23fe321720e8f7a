public import Foundation
public import HTTPTypes

/// Sends one HTTP request and returns the whole response: the seam between Tether and an HTTP client.
///
/// ## When to implement
/// Tether ships `URLSessionTransport` (module `TetherURLSession`: light, the default on Apple platforms, works
/// on Linux through FoundationNetworking) and an AsyncHTTPClient transport for servers. Implement the protocol to
/// route Tether's requests through another client, or as a test double.
///
/// ## The contract
/// - Redirects are **not** followed: a 3xx response is returned as it is. Token endpoints must never be
///   redirected (a redirect would replay a code or a refresh token to another URL).
/// - Responses are buffered; a body larger than the transport's limit throws
///   ``TransportError/responseTooLarge`` as soon as the limit is passed, without reading the rest.
/// - One deadline covers the whole exchange — connect, send, response headers and the whole body; past it the
///   transport closes the connection and throws ``TransportError/timedOut``.
/// - Failures below HTTP (no connection, timeout, cancellation) throw ``TransportError``. Any HTTP status,
///   including 4xx and 5xx, is a response, not an error.
/// - The request is sent as given; a transport never logs headers or bodies.
///
/// ## Testing
/// Tests talk to the development provider over 127.0.0.1. For a unit test that needs one canned answer, write a
/// closure-backed struct conforming to this protocol.
public protocol HTTPTransport: Sendable {
    /// Sends a request.
    /// - Parameters:
    ///   - request: The request; its `scheme`, `authority` and `path` name the target.
    ///   - body: The request body, if any.
    /// - Returns: The response and its whole body.
    /// - Throws: ``TransportError`` when no HTTP response arrived, or `CancellationError`.
    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data)
}

/// The settings every built-in transport shares.
public struct HTTPTransportConfiguration: Sendable {
    /// How long a request may take in all — connecting, sending, the response headers and the whole body; 30
    /// seconds by default. A server that answers slowly (one byte every few seconds) is cut off at this deadline.
    public var timeout: Duration
    /// The largest response body accepted; 1 MiB by default. OAuth answers are small; a larger one is an error,
    /// detected while the body arrives, so that no more than about this much is ever held.
    public var maximumResponseSize: Int

    /// Creates a configuration.
    /// - Parameters:
    ///   - timeout: How long a request may take in all, body included.
    ///   - maximumResponseSize: The largest response body accepted, in bytes.
    public init(timeout: Duration = .seconds(30), maximumResponseSize: Int = 1 << 20) {
        self.timeout = timeout
        self.maximumResponseSize = maximumResponseSize
    }
}

extension HTTPRequest {
    /// The target without its query, for log lines and error messages: `https://host/path`.
    public var redactedTarget: String {
        let path = self.path.map { $0.split(separator: "?", maxSplits: 1).first.map(String.init) ?? $0 } ?? ""
        return "\(scheme ?? "https")://\(authority ?? "")\(path)"
    }
}
