public import Foundation
public import HTTPTypes
import HTTPTypesFoundation
public import Tether

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``Tether/HTTPTransport`` over Foundation's `URLSession`: the light default, on Apple platforms and on Linux.
///
/// Redirects are never followed: the transport's session delegate declines each one, and the caller sees the
/// 3xx response. (On Linux a per-task delegate's redirect decision is ignored by FoundationNetworking; only a
/// session-level delegate stops a redirect, which is why the transport owns its session.)
///
/// The body is collected by that delegate as it arrives and the request ends as soon as it passes the size limit;
/// one deadline on the transport's clock covers the whole request, body included (URLSession's own request timeout
/// only bounds the time between two packets).
///
/// On Linux, FoundationNetworking keeps about half a core busy while a request waits for its answer (measured with
/// Swift 6.3.1: 2.2–3.2 s of CPU time for one request that a loopback server answered after 5 s, with `data(for:)`
/// and with a completion handler alike). For servers and command-line tools on Linux, where many requests or
/// processes may wait at once, prefer `AsyncHTTPClientTransport` (product `TetherAsyncHTTPClient`), as `tether`
/// does.
public final class URLSessionTransport: HTTPTransport {
    /// How the transport behaves: timeout and response size limit.
    public typealias Configuration = HTTPTransportConfiguration

    private let session: URLSession
    private let delegate = SessionDelegate()
    private let configuration: Configuration
    private let clock: any Clock<Duration>

    /// Creates a transport with its own `URLSession`.
    /// - Parameters:
    ///   - configuration: Timeout and response size limit.
    ///   - clock: The clock the timeout is measured on.
    public init(configuration: Configuration = Configuration(), clock: any Clock<Duration> = ContinuousClock()) {
        self.configuration = configuration
        self.clock = clock
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        let seconds =
            Double(configuration.timeout.components.seconds)
            + Double(configuration.timeout.components.attoseconds) / 1e18
        // Both are backstops: the first is an idle timeout, and FoundationNetworking ignores the second. The
        // transport's own deadline (`TransportDeadline`) bounds the whole request.
        sessionConfiguration.timeoutIntervalForRequest = seconds
        sessionConfiguration.timeoutIntervalForResource = seconds
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.session = URLSession(
            configuration: sessionConfiguration,
            delegate: delegate,
            delegateQueue: nil
        )
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends a request without following redirects.
    /// - Throws: ``Tether/TransportError``: `timedOut` past the configured timeout, `responseTooLarge` as soon as the
    ///   body passes the limit, `cancelled`, `cannotConnect`, `connectionLost`, `invalidRequest`, `other`.
    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        try Task.checkCancellation()
        let target = request.redactedTarget
        guard var urlRequest = URLRequest(httpRequest: request) else {
            throw TransportError.invalidRequest.with(message: "Cannot send a request to \(target)")
        }
        urlRequest.httpBody = body
        let data: Data
        let urlResponse: URLResponse
        do {
            (data, urlResponse) = try await TransportDeadline.run(
                within: configuration.timeout,
                on: clock,
                target: target
            ) { [self, urlRequest] in
                try await perform(urlRequest)
            }
        } catch let error as TransportError {
            throw error
        } catch is SessionDelegate.ResponseTooLarge {
            throw TransportError.responseTooLarge.with(
                message: "\(target) answered with more than \(configuration.maximumResponseSize) bytes"
            )
        } catch {
            throw Self.transportError(for: error, target: target)
        }
        guard let response = (urlResponse as? HTTPURLResponse)?.httpResponse else {
            throw TransportError.other.with(message: "\(target) did not answer with HTTP")
        }
        return (response, data)
    }

    /// Runs a data task through the session delegate, which collects its body up to the limit, and cancels it when
    /// the calling task is cancelled.
    ///
    /// `URLSession.data(for:)` is not used: on Linux it buffers the whole body before returning (there is no
    /// `bytes(for:)`), and FoundationNetworking's cancellation handler calls `URLSessionTask.cancel()` while the
    /// Swift task's status lock is held, while `cancel()` waits for the session's work queue, whose thread may at
    /// that moment be resuming the same task — a lock-order inversion that hangs both (swift-corelibs-foundation
    /// issue 5412, fixed after the Swift 6.3 toolchains). Here the cancellation handler only schedules `cancel()`
    /// on another queue and returns.
    private func perform(_ urlRequest: URLRequest) async throws -> (Data, URLResponse) {
        let task = session.dataTask(with: urlRequest)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delegate.start(task, limit: configuration.maximumResponseSize, continuation: continuation)
            }
        } onCancel: { [delegate] in
            delegate.cancel(task)
        }
    }

    /// Maps Foundation's URL errors to transport errors that name only the target.
    static func transportError(for error: any Error, target: String) -> TransportError {
        if error is CancellationError {
            return TransportError.cancelled.with(message: "The request to \(target) was cancelled")
        }
        guard let urlError = error as? URLError else {
            return TransportError.other.with(message: "The request to \(target) failed", cause: error)
        }
        switch urlError.code {
        case .cancelled:
            return TransportError.cancelled.with(message: "The request to \(target) was cancelled", cause: urlError)
        case .timedOut:
            return TransportError.timedOut.with(message: "The request to \(target) timed out", cause: urlError)
        case .cannotConnectToHost, .cannotFindHost, .notConnectedToInternet, .dnsLookupFailed,
            .secureConnectionFailed:
            return TransportError.cannotConnect.with(message: "\(target) could not be reached", cause: urlError)
        case .networkConnectionLost, .badServerResponse:
            return TransportError.connectionLost.with(message: "The connection to \(target) was lost", cause: urlError)
        default:
            return TransportError.other.with(
                message: "The request to \(target) failed (\(urlError.code.rawValue))",
                cause: urlError
            )
        }
    }
}
