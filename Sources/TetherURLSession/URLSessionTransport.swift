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

    /// Creates a transport with its own `URLSession`.
    /// - Parameter configuration: Timeout and response size limit.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        let seconds =
            Double(configuration.timeout.components.seconds)
            + Double(configuration.timeout.components.attoseconds) / 1e18
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
    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        try Task.checkCancellation()
        guard var urlRequest = URLRequest(httpRequest: request) else {
            throw TransportError.invalidRequest.with(message: "Cannot send a request to \(request.redactedTarget)")
        }
        urlRequest.httpBody = body
        let data: Data
        let urlResponse: URLResponse
        do {
            (data, urlResponse) = try await perform(urlRequest)
        } catch {
            throw Self.transportError(for: error, target: request.redactedTarget)
        }
        guard let response = (urlResponse as? HTTPURLResponse)?.httpResponse else {
            throw TransportError.other.with(message: "\(request.redactedTarget) did not answer with HTTP")
        }
        guard data.count <= configuration.maximumResponseSize else {
            throw TransportError.responseTooLarge.with(
                message: "\(request.redactedTarget) answered with more than \(configuration.maximumResponseSize) bytes"
            )
        }
        return (response, data)
    }

    /// Runs a data task, cancelling it when the calling task is cancelled.
    ///
    /// `URLSession.data(for:)` is not used: on Linux, FoundationNetworking's cancellation handler calls
    /// `URLSessionTask.cancel()` while the Swift task's status lock is held, and `cancel()` waits for the session's
    /// work queue, whose thread may at that moment be resuming the same task — a lock-order inversion that hangs
    /// both (swift-corelibs-foundation issue 5412, fixed after the Swift 6.3 toolchains). Here the cancellation
    /// handler only schedules `cancel()` on another queue and returns.
    private func perform(_ urlRequest: URLRequest) async throws -> (Data, URLResponse) {
        let pending = LockedState<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: urlRequest) { [delegate] data, response, error in
                    let (identifier, cancelled) = pending.withLock { ($0.task?.taskIdentifier, $0.cancelled) }
                    let challenged = identifier.flatMap { delegate.challengedResponse(of: $0) }
                    if let challenged, !cancelled, (error as? URLError)?.code == .cancelled {
                        // The answer carried an authentication challenge that the delegate declined (see
                        // `SessionDelegate`): its status and headers, without the body FoundationNetworking dropped.
                        continuation.resume(returning: (Data(), challenged))
                    } else if let error {
                        continuation.resume(throwing: error)
                    } else if let data, let response {
                        continuation.resume(returning: (data, response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                let cancelled = pending.withLock { state in
                    state.task = task
                    return state.cancelled
                }
                task.resume()
                if cancelled { DispatchQueue.global().async { task.cancel() } }
            }
        } onCancel: {
            let task = pending.withLock { state in
                state.cancelled = true
                return state.task
            }
            if let task { DispatchQueue.global().async { task.cancel() } }
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

/// Declines every redirect, so that the caller sees the 3xx response; on Linux, also every HTTP authentication
/// challenge.
///
/// On Linux, FoundationNetworking never completes a request whose `401` carries a `WWW-Authenticate: Basic` challenge
/// when the challenge gets the default handling — not even after the request's timeout (Swift 6.3.1, measured; RFC
/// 6749 §5.2 has token endpoints answer a wrong client secret sent with HTTP Basic exactly so). Declining the
/// challenge ends the task as cancelled; the delegate keeps the response that carried the challenge (its status and
/// headers; FoundationNetworking drops the body), and the transport returns that.
private final class SessionDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    private let challenged = LockedState<[Int: HTTPURLResponse]>([:])

    /// The response whose challenge was declined for the task `identifier`, once.
    func challengedResponse(of identifier: Int) -> HTTPURLResponse? {
        challenged.withLock { $0.removeValue(forKey: identifier) }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        // Only HTTP authentication challenges come with the response that carried them (FoundationNetworking has no
        // server-trust challenges).
        if let response = challenge.failureResponse as? HTTPURLResponse {
            challenged.withLock { $0[task.taskIdentifier] = response }
            completionHandler(.cancelAuthenticationChallenge, nil)
            return
        }
        #endif
        completionHandler(.performDefaultHandling, nil)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
