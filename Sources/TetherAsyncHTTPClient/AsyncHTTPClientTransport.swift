import AsyncHTTPClient
public import Foundation
public import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix
public import Tether

/// An ``Tether/HTTPTransport`` over AsyncHTTPClient, for servers and command-line tools.
///
/// The transport owns an `HTTPClient` configured never to follow redirects; call ``shutdown()`` before releasing
/// it. Request and response conversion are pure functions (``makeRequest(_:body:)``, ``makeResponse(_:)``), tested
/// on their own.
///
/// The body is streamed and collected up to the size limit; past it the request ends at once. One deadline on the
/// transport's clock covers the whole request: `HTTPClient.execute(_:deadline:)` bounds only the time until the
/// response head, and the client's read timeout only the time between two packets.
public final class AsyncHTTPClientTransport: HTTPTransport {
    /// How the transport behaves: timeout and response size limit.
    public typealias Configuration = HTTPTransportConfiguration

    /// The one call the transport makes, so tests can stand in for `HTTPClient`.
    protocol Sender: Sendable {
        func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse
    }

    private struct ClientSender: Sender {
        let client: HTTPClient
        func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
            try await client.execute(request, timeout: timeout)
        }
    }

    private let sender: any Sender
    /// The senders through the environment's proxies, by proxy; empty without one.
    private let proxiedSenders: [ProxyEnvironment.Proxy: any Sender]
    private let proxies: ProxyEnvironment
    private let clients: [HTTPClient]
    private let configuration: Configuration
    private let clock: any Clock<Duration>

    /// Creates a transport with its own `HTTPClient` on the shared event loop group; redirects are never
    /// followed, and a connection that cannot be made fails the request at once
    /// (``Tether/TransportError/cannotConnect``) instead of being tried again until the connect timeout: whether to
    /// try again is the caller's decision (`AuthorizedClient`'s backoff, a session's refresh retries), which
    /// AsyncHTTPClient's own retries hid for up to 10 seconds.
    /// - Parameters:
    ///   - configuration: Timeout and response size limit.
    ///   - proxies: The proxies to send through, for example
    ///     `ProxyEnvironment(environment: ProcessInfo.processInfo.environment)` to honour `HTTPS_PROXY` and
    ///     `NO_PROXY` as curl does; ``ProxyEnvironment/direct`` (the default) sends every request directly.
    ///   - clock: The clock the timeout is measured on.
    public init(
        configuration: Configuration = Configuration(),
        proxies: ProxyEnvironment = .direct,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        let direct = Self.makeClient(configuration: configuration, proxy: nil)
        var clients = [direct]
        var proxiedSenders: [ProxyEnvironment.Proxy: any Sender] = [:]
        for proxy in [proxies.https, proxies.http].compactMap({ $0 }) where proxiedSenders[proxy] == nil {
            guard let setting = ProxyEnvironment.configuration(for: proxy) else { continue }
            let client = Self.makeClient(configuration: configuration, proxy: setting)
            clients.append(client)
            proxiedSenders[proxy] = ClientSender(client: client)
        }
        self.clients = clients
        self.sender = ClientSender(client: direct)
        self.proxiedSenders = proxiedSenders
        self.proxies = proxies
        self.configuration = configuration
        self.clock = clock
    }

    /// An `HTTPClient` as the transport needs it: no redirects, no retried connections, the timeouts.
    private static func makeClient(
        configuration: Configuration,
        proxy: HTTPClient.Configuration.Proxy?
    ) -> HTTPClient {
        var clientConfiguration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        clientConfiguration.timeout = HTTPClient.Configuration.Timeout(
            connect: .milliseconds(Int64(min(configuration.timeout, .seconds(10)).milliseconds)),
            read: .milliseconds(Int64(configuration.timeout.milliseconds))
        )
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        clientConfiguration.proxy = proxy
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
    }

    init(
        sender: any Sender,
        configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.sender = sender
        self.clients = []
        self.proxiedSenders = [:]
        self.proxies = .direct
        self.configuration = configuration
        self.clock = clock
    }

    /// Shuts the underlying `HTTPClient`s down. Call it once, when the transport is no longer needed.
    public func shutdown() async throws {
        for client in clients { try await client.shutdown() }
    }

    /// The sender for `request`: through the proxy the environment names for its scheme and host (returned with
    /// it), or direct.
    /// - Throws: ``Tether/TransportError/invalidRequest`` when that proxy is one this transport cannot use.
    private func sender(
        for request: HTTPRequest,
        target: String
    ) throws -> (any Sender, ProxyEnvironment.Proxy?) {
        guard let scheme = request.scheme, let authority = request.authority,
            let proxy = proxies.proxy(scheme: scheme, host: Self.host(ofAuthority: authority))
        else { return (sender, nil) }
        if let proxied = proxiedSenders[proxy] { return (proxied, proxy) }
        let reason =
            switch proxy.kind {
            case .unsupported(let scheme):
                "a \(scheme):// proxy, which this client cannot use (http:// and socks5:// work)"
            case .socksWithCredentials:
                "a SOCKS proxy with credentials, which this client cannot send (a SOCKS proxy without them works)"
            default: "a value that is not a proxy URL"
            }
        throw TransportError.invalidRequest.with(
            message: "Cannot send a request to \(target): \(proxy.variable) names \(reason)"
        )
    }

    /// The host of an authority (`user@host:port`, `[::1]:8080`), without user or port.
    static func host(ofAuthority authority: String) -> String {
        let afterUser = authority.split(separator: "@", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        if afterUser.hasPrefix("[") { return String(afterUser.prefix { $0 != "]" }) + "]" }
        return String(afterUser.prefix { $0 != ":" })
    }

    /// Sends a request without following redirects.
    /// - Throws: ``Tether/TransportError``: `timedOut` past the configured timeout, `responseTooLarge` as soon as the
    ///   body passes the limit, `cancelled`, `cannotConnect`, `connectionLost`, `invalidRequest`, `other`.
    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        try Task.checkCancellation()
        let target = request.redactedTarget
        guard let clientRequest = Self.makeRequest(request, body: body) else {
            throw TransportError.invalidRequest.with(message: "Cannot send a request to \(target)")
        }
        let (sender, proxy) = try sender(for: request, target: target)
        do {
            // The deadline's cancellation reaches the body too: AsyncHTTPClient cancels the request, and closes its
            // connection, when the task iterating the body is cancelled or stops iterating.
            return try await TransportDeadline.run(within: configuration.timeout, on: clock, target: target) {
                [sender, configuration] in
                let response = try await sender.execute(
                    clientRequest,
                    timeout: .milliseconds(Int64(configuration.timeout.milliseconds))
                )
                let buffer: ByteBuffer
                do {
                    buffer = try await response.body.collect(upTo: configuration.maximumResponseSize)
                } catch is NIOTooManyBytesError {
                    throw TransportError.responseTooLarge.with(
                        message: "\(target) answered with more than \(configuration.maximumResponseSize) bytes"
                    )
                }
                return (Self.makeResponse(response), Data(buffer.readableBytesView))
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw Self.transportError(for: error, target: target, proxy: proxy)
        }
    }

    /// Converts a request; `nil` when it has no scheme or authority.
    static func makeRequest(_ request: HTTPRequest, body: Data?) -> HTTPClientRequest? {
        guard let scheme = request.scheme, let authority = request.authority else { return nil }
        var clientRequest = HTTPClientRequest(url: "\(scheme)://\(authority)\(request.path ?? "/")")
        clientRequest.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headerFields {
            clientRequest.headers.add(name: field.name.rawName, value: field.value)
        }
        if let body { clientRequest.body = .bytes(ByteBuffer(bytes: body)) }
        return clientRequest
    }

    /// Converts a response's status and headers.
    static func makeResponse(_ response: HTTPClientResponse) -> HTTPResponse {
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        return HTTPResponse(
            status: HTTPResponse.Status(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase),
            headerFields: fields
        )
    }

    /// Maps AsyncHTTPClient and NIO errors to transport errors that name only the target, and the proxy's variable,
    /// host and port when the request went through one (never its credentials).
    static func transportError(
        for error: any Error,
        target: String,
        proxy: ProxyEnvironment.Proxy? = nil
    ) -> TransportError {
        if let proxy, let failure = proxyFailure(error, target: target, proxy: proxy) { return failure }
        if error is CancellationError {
            return TransportError.cancelled.with(message: "The request to \(target) was cancelled")
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout:
                return TransportError.timedOut.with(message: "The request to \(target) timed out", cause: error)
            case .remoteConnectionClosed:
                return TransportError.connectionLost.with(message: "The connection to \(target) was lost", cause: error)
            case .cancelled:
                return TransportError.cancelled.with(message: "The request to \(target) was cancelled", cause: error)
            default:
                return TransportError.other.with(message: "The request to \(target) failed", cause: error)
            }
        }
        if error is NIOConnectionError || (error as? IOError)?.errnoCode == ECONNREFUSED {
            return TransportError.cannotConnect.with(message: "\(target) could not be reached", cause: error)
        }
        return TransportError.other.with(message: "The request to \(target) failed", cause: error)
    }

    /// What went wrong with the proxy itself, rather than with the server at the other end; `nil` otherwise.
    private static func proxyFailure(
        _ error: any Error,
        target: String,
        proxy: ProxyEnvironment.Proxy
    ) -> TransportError? {
        let named = "the proxy \(proxy.address) (from \(proxy.variable))"
        if let error = error as? HTTPClientError {
            switch error {
            case .proxyAuthenticationRequired:
                return TransportError.other.with(
                    message: "The request to \(target) was not sent: \(named) refused its credentials (407)",
                    cause: error
                )
            case .invalidProxyResponse:
                return TransportError.other.with(
                    message: "The request to \(target) was not sent: \(named) would not open a tunnel to it",
                    cause: error
                )
            case .httpProxyHandshakeTimeout, .socksHandshakeTimeout:
                return TransportError.timedOut.with(
                    message: "The request to \(target) timed out: \(named) did not open a tunnel in time",
                    cause: error
                )
            default:
                return nil
            }
        }
        if error is NIOConnectionError || (error as? IOError)?.errnoCode == ECONNREFUSED {
            return TransportError.cannotConnect.with(
                message: "\(target) could not be reached: \(named) could not be reached",
                cause: error
            )
        }
        return nil
    }
}

extension Duration {
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
