import Foundation
import Tether

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session-level delegate of ``URLSessionTransport``: it collects each response body as it arrives, up to the
/// transport's limit, declines every redirect, and on Linux every HTTP authentication challenge.
///
/// **Body.** The transport's data tasks have no completion handler, so that the body comes here chunk by chunk
/// (with a completion handler, URLSession buffers the whole body before anyone can look at it: a 1.5 GB answer
/// took 3.1 GB of memory). A body over the limit — announced by `Content-Length` or counted while it arrives — is
/// dropped and its task cancelled at once. On Linux, FoundationNetworking ignores the disposition given to
/// `urlSession(_:dataTask:didReceive:completionHandler:)`, hence the explicit `cancel()`; it keeps no copy of the
/// body of a task that has a delegate.
///
/// **Redirects.** On Linux a per-task delegate's redirect decision is ignored; only a session-level delegate
/// stops a redirect, which is why the transport owns its session.
///
/// **Challenges.** On Linux, FoundationNetworking never completes a request whose `401` carries a
/// `WWW-Authenticate: Basic` challenge when the challenge gets the default handling — not even after the request's
/// timeout (Swift 6.3.1, measured; RFC 6749 §5.2 has token endpoints answer a wrong client secret sent with HTTP
/// Basic exactly so). Declining the challenge ends the task as cancelled; the delegate keeps the response that
/// carried the challenge (its status and headers; FoundationNetworking drops the body) and returns that.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// A body over the limit; the transport turns it into ``Tether/TransportError/responseTooLarge``.
    struct ResponseTooLarge: Error {}

    /// One task's state, from ``start(_:limit:continuation:)`` to its completion.
    private struct Transfer {
        let continuation: CheckedContinuation<(Data, URLResponse), any Error>
        let limit: Int
        var body = Data()
        /// The body passed the limit; the task is being cancelled.
        var isTooLarge = false
        /// The caller cancelled the task.
        var isCancelled = false
        /// The response whose authentication challenge was declined.
        var challenged: HTTPURLResponse?
    }

    private struct State {
        var transfers: [Int: Transfer] = [:]
        /// Tasks cancelled before they started.
        var cancelledEarly: Set<Int> = []
    }

    private let state = LockedState(State())

    /// Starts `task`, whose outcome resumes `continuation`: its response and body, or an error
    /// (``ResponseTooLarge``, a `URLError`, `CancellationError`).
    /// - Parameters:
    ///   - task: A data task created without a completion handler, not yet resumed.
    ///   - limit: The largest body accepted, in bytes.
    ///   - continuation: Resumed once, when the task completes.
    func start(
        _ task: URLSessionDataTask,
        limit: Int,
        continuation: CheckedContinuation<(Data, URLResponse), any Error>
    ) {
        let cancelledEarly = state.withLock { state in
            if state.cancelledEarly.remove(task.taskIdentifier) != nil { return true }
            state.transfers[task.taskIdentifier] = Transfer(continuation: continuation, limit: limit)
            return false
        }
        if cancelledEarly {
            continuation.resume(throwing: CancellationError())
        } else {
            task.resume()
        }
    }

    /// Cancels `task` for its caller; safe to call before ``start(_:limit:continuation:)``, and from a
    /// cancellation handler.
    func cancel(_ task: URLSessionDataTask) {
        let started = state.withLock { state in
            guard state.transfers[task.taskIdentifier] != nil else {
                state.cancelledEarly.insert(task.taskIdentifier)
                return false
            }
            state.transfers[task.taskIdentifier]?.isCancelled = true
            return true
        }
        if started { Self.cancelSoon(task) }
    }

    /// Cancels a task from another queue. On Linux, `URLSessionTask.cancel()` waits for the session's work queue;
    /// called while a Swift task's status lock is held (in a cancellation handler) or on the delegate queue, it
    /// can wait for a thread that waits for it (swift-corelibs-foundation issue 5412).
    private static func cancelSoon(_ task: URLSessionTask) {
        DispatchQueue.global().async { task.cancel() }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let tooLarge = state.withLock { state in
            guard var transfer = state.transfers[dataTask.taskIdentifier] else { return false }
            guard response.expectedContentLength > Int64(transfer.limit) else { return false }
            transfer.isTooLarge = true
            state.transfers[dataTask.taskIdentifier] = transfer
            return true
        }
        completionHandler(tooLarge ? .cancel : .allow)
        if tooLarge { Self.cancelSoon(dataTask) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let tooLarge = state.withLock { state in
            guard var transfer = state.transfers[dataTask.taskIdentifier], !transfer.isTooLarge else { return false }
            // Take the transfer out while appending, so that its body is not copied.
            state.transfers[dataTask.taskIdentifier] = nil
            defer { state.transfers[dataTask.taskIdentifier] = transfer }
            guard transfer.body.count + data.count <= transfer.limit else {
                transfer.isTooLarge = true
                transfer.body = Data()
                return true
            }
            transfer.body.append(data)
            return false
        }
        if tooLarge { Self.cancelSoon(dataTask) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = state.withLock({ $0.transfers.removeValue(forKey: task.taskIdentifier) }) else { return }
        let continuation = transfer.continuation
        if transfer.isTooLarge {
            continuation.resume(throwing: ResponseTooLarge())
        } else if let challenged = transfer.challenged, !transfer.isCancelled,
            (error as? URLError)?.code == .cancelled
        {
            // The answer carried an authentication challenge that was declined (see the type's notes): its status
            // and headers, without the body FoundationNetworking dropped.
            continuation.resume(returning: (Data(), challenged))
        } else if let error {
            continuation.resume(throwing: error)
        } else if let response = task.response {
            continuation.resume(returning: (transfer.body, response))
        } else {
            continuation.resume(throwing: URLError(.badServerResponse))
        }
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
            state.withLock { $0.transfers[task.taskIdentifier]?.challenged = response }
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
