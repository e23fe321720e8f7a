import Foundation
import Logging
import Tether

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-shot HTTP listener on `127.0.0.1` that waits for the request to one path (RFC 8252 §7.3).
///
/// ## Threads
/// The socket work runs on a dedicated `Thread`, never on Swift concurrency's cooperative pool: the thread
/// `poll`s the listening socket, the open connections and a wake pipe (at most 250 ms at a time), and hands its
/// single result to the waiting tasks through continuations. ``stop(_:)`` writes to the wake pipe, so stopping
/// takes effect at once. The thread closes every socket before it reports, so when ``result()`` returns the
/// port is free.
///
/// Connections are served side by side (browsers open speculative connections that send nothing); each has a
/// size limit and a read deadline measured on the injected clock.
final class LoopbackListener: Sendable {
    /// Why the listener stopped before it received the redirect.
    enum StopReason: Sendable {
        case cancelled
        case timedOut
        case taskCancelled

        var error: any Error {
            switch self {
            case .cancelled: AuthorizationPresentationError.cancelled
            case .timedOut: AuthorizationPresentationError.timedOut
            case .taskCancelled: CancellationError()
            }
        }
    }

    /// Limits for one listener.
    struct Limits: Sendable {
        /// The largest request head accepted, in bytes.
        var maximumRequestSize: Int
        /// How long a connection may take to send its request head.
        var connectionTimeout: Duration
        /// How many connections are kept open at once; the oldest is dropped beyond that.
        var maximumConnections = 16
        /// How many callbacks with the wrong `state` are answered 400 before the sign-in fails.
        var maximumRejectedCallbacks = 20
    }

    private struct State {
        var isStarted = false
        var isFinished = false
        var expectedState: String?
        var rejectedCallbacks = 0
        var stopReason: StopReason?
        var result: Result<URL, any Error>?
        var waiters: [CheckedContinuation<URL, any Error>] = []
        var listenFD: Int32
        var wakeReadFD: Int32
        var wakeWriteFD: Int32
    }

    /// The bound port.
    let port: UInt16
    private let path: String
    private let limits: Limits
    private let stopwatch: @Sendable () -> @Sendable () -> Duration
    private let logger: Logger
    private let state: LockedState<State>

    /// Binds `127.0.0.1` on a port the system picks and starts listening (the backlog queues connections until
    /// ``start(expectedState:)``).
    /// - Parameters:
    ///   - path: The request path to wait for (`/` when empty).
    ///   - limits: Request size, read deadline and connection count.
    ///   - clock: The clock connection deadlines are measured on.
    ///   - logger: Where the listener logs.
    /// - Throws: ``AuthorizationPresentationError/cannotListen`` when no socket can be bound.
    init(path: String, limits: Limits, clock: any Clock<Duration>, logger: Logger) throws {
        let fds = try Self.bindLoopback()
        self.port = fds.port
        self.path = path.isEmpty ? "/" : path
        self.limits = limits
        self.stopwatch = Self.makeStopwatch(clock)
        self.logger = logger
        self.state = LockedState(State(listenFD: fds.listen, wakeReadFD: fds.wakeRead, wakeWriteFD: fds.wakeWrite))
    }

    deinit {
        // Only reached when the thread never ran (it holds a reference while it runs).
        state.withLock { Self.closeDescriptors(&$0) }
    }

    /// Starts serving on a dedicated thread; does nothing when already started or stopped.
    /// - Parameter expectedState: The `state` the authorization request carries. When set, a callback with
    ///   another `state` (or none) is answered 400 and the listener keeps waiting, so a local process that guesses
    ///   the port cannot end the sign-in (RFC 6749 §10.12, RFC 8252 §8.9).
    func start(expectedState: String?) {
        let shouldStart = state.withLock { state -> Bool in
            guard !state.isStarted, !state.isFinished else { return false }
            state.isStarted = true
            state.expectedState = expectedState
            return true
        }
        guard shouldStart else { return }
        let thread = Thread { [self] in self.serve() }
        thread.name = "tether.loopback-listener"
        thread.start()
    }

    /// Waits for the callback URL.
    /// - Returns: The full callback URL.
    /// - Throws: The stop reason's error (`cancelled`, `timedOut`, `CancellationError`) or `cannotListen`.
    func result() async throws -> URL {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                let ready = state.withLock { state -> Result<URL, any Error>? in
                    if let result = state.result { return result }
                    state.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            stop(.taskCancelled)
        }
    }

    /// Stops the listener; the first reason wins. Safe to call any number of times, from any thread.
    func stop(_ reason: StopReason) {
        let finished = state.withLock { state -> [CheckedContinuation<URL, any Error>]? in
            guard !state.isFinished else { return nil }
            if state.stopReason == nil { state.stopReason = reason }
            if state.isStarted {
                // The thread owns the sockets; wake it. The pipe is closed only under this lock.
                var byte: UInt8 = 1
                _ = write(state.wakeWriteFD, &byte, 1)
                return nil
            }
            Self.closeDescriptors(&state)
            state.isFinished = true
            state.result = .failure(reason.error)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in finished ?? [] { waiter.resume(throwing: reason.error) }
    }

    // MARK: Serving (on the listener's thread)

    private struct Connection {
        let fd: Int32
        let elapsed: @Sendable () -> Duration
        var bytes: [UInt8] = []
    }

    private enum Step {
        /// The connection stays open: its request head has not arrived yet.
        case waiting
        /// The connection was answered (or dropped) and closed; keep listening.
        case closed
        /// The redirect arrived and was answered.
        case received(URL)
        /// The listener gives up.
        case failed(any Error)
    }

    private func serve() {
        let (listenFD, wakeFD) = state.withLock { ($0.listenFD, $0.wakeReadFD) }
        var connections: [Connection] = []
        var outcome: Result<URL, any Error>?
        logger.trace("Loopback listener serving", metadata: ["presenter.port": "\(port)"])
        while outcome == nil {
            if let reason = state.withLock({ $0.stopReason }) {
                outcome = .failure(reason.error)
                break
            }
            var fds = [
                pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
            ]
            fds += connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            // Short waits while connections are open, so that their deadlines are checked.
            let ready = poll(&fds, nfds_t(fds.count), connections.isEmpty ? 250 : 50)
            if ready < 0 {
                if errno == EINTR { continue }
                outcome = .failure(
                    AuthorizationPresentationError.cannotListen.with(message: "Waiting for the redirect failed")
                )
                break
            }
            if fds[0].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                _ = read(wakeFD, &buffer, buffer.count)
                continue
            }
            // Serve the connections that were polled; new ones join on the next round.
            var kept: [Connection] = []
            for (offset, var connection) in connections.enumerated() {
                if outcome != nil {
                    close(connection.fd)
                    continue
                }
                switch handle(&connection, revents: fds[offset + 2].revents) {
                case .waiting: kept.append(connection)
                case .closed: break
                case .received(let url): outcome = .success(url)
                case .failed(let error): outcome = .failure(error)
                }
            }
            connections = kept
            if outcome == nil, fds[1].revents != 0 { acceptConnections(from: listenFD, into: &connections) }
        }
        for connection in connections { close(connection.fd) }
        finish(outcome ?? .failure(AuthorizationPresentationError.cancelled))
    }

    private func acceptConnections(from listenFD: Int32, into connections: inout [Connection]) {
        while true {
            let fd = accept(listenFD, nil, nil)
            guard fd >= 0 else { return }  // EAGAIN: nothing more to accept (the socket is non-blocking).
            Self.setCloseOnExec(fd)
            Self.setNoSigPipe(fd)
            if connections.count >= limits.maximumConnections {
                close(connections.removeFirst().fd)
            }
            connections.append(Connection(fd: fd, elapsed: stopwatch()))
            logger.trace("Loopback connection accepted", metadata: ["presenter.connections": "\(connections.count)"])
        }
    }

    /// Reads what a connection sent and answers it once its request head is complete.
    private func handle(_ connection: inout Connection, revents: Int16) -> Step {
        if revents != 0 {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(connection.fd, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR || errno == EAGAIN { return .waiting }
            if count <= 0 {
                close(connection.fd)
                return .closed
            }
            connection.bytes += buffer[..<count]
        }
        switch LoopbackHTTP.parse(connection.bytes, limit: limits.maximumRequestSize) {
        case .incomplete:
            guard connection.elapsed() >= limits.connectionTimeout else { return .waiting }
            logger.debug("Loopback request too slow", metadata: ["presenter.status": "408"])
            respond(connection.fd, .requestTimeout, LoopbackHTTP.badRequestPage)
            return .closed
        case .tooLarge:
            logger.debug("Loopback request too large", metadata: ["presenter.status": "400"])
            respond(connection.fd, .badRequest, LoopbackHTTP.badRequestPage)
            return .closed
        case .malformed:
            logger.debug("Loopback request malformed", metadata: ["presenter.status": "400"])
            respond(connection.fd, .badRequest, LoopbackHTTP.badRequestPage)
            return .closed
        case .request(let method, let target):
            return answer(connection.fd, method: method, target: target)
        }
    }

    /// Answers a complete request; only a GET to the redirect path with a query is the redirect.
    private func answer(_ fd: Int32, method: String, target: String) -> Step {
        let (requestPath, query) = LoopbackHTTP.split(target: target)
        guard requestPath == path else {
            logger.debug("Loopback request for another path", metadata: ["presenter.status": "404"])
            respond(fd, .notFound, LoopbackHTTP.notFoundPage)
            return .closed
        }
        guard method == "GET" else {
            logger.debug("Loopback request with another method", metadata: ["presenter.status": "405"])
            respond(fd, .methodNotAllowed, LoopbackHTTP.badRequestPage)
            return .closed
        }
        // A redirect always carries parameters; a bare request to the path is a probe or a reload.
        guard let query, !query.isEmpty, let url = URL(string: "http://127.0.0.1:\(port)\(target)") else {
            logger.debug("Loopback redirect without parameters", metadata: ["presenter.status": "400"])
            respond(fd, .badRequest, LoopbackHTTP.badRequestPage)
            return .closed
        }
        if let rejected = rejectForeignState(url) {
            respond(fd, .badRequest, LoopbackHTTP.foreignCallbackPage)
            return rejected
        }
        let isError = LoopbackHTTP.hasError(query: query)
        respond(fd, .ok, isError ? LoopbackHTTP.errorPage : LoopbackHTTP.successPage)
        // The query holds the code and state: only the path is logged.
        logger.debug(
            "Loopback redirect received",
            metadata: ["presenter.path": "\(requestPath)", "presenter.has_error": "\(isError)"]
        )
        return .received(url)
    }

    /// Checks the callback's `state` against the authorization request's; `nil` when it matches (or no state was
    /// sent), otherwise how to go on: keep waiting, or fail after too many rejected callbacks.
    private func rejectForeignState(_ url: URL) -> Step? {
        let decision = state.withLock { state -> (count: Int, giveUp: Bool)? in
            guard let expected = state.expectedState else { return nil }
            let received = URLComponents(url: url, resolvingAgainstBaseURL: false)?
                .queryItems?.first { $0.name == "state" }?.value
            if let received, Self.constantTimeEqual(received, expected) { return nil }
            state.rejectedCallbacks += 1
            return (state.rejectedCallbacks, state.rejectedCallbacks >= limits.maximumRejectedCallbacks)
        }
        guard let decision else { return nil }
        // Neither value is logged: the state binds the sign-in, the query may carry a code.
        logger.warning(
            "Loopback callback rejected: its state does not match the sign-in in progress",
            metadata: ["presenter.status": "400", "presenter.rejected_callbacks": "\(decision.count)"]
        )
        guard decision.giveUp else { return .closed }
        return .failed(
            AuthorizationPresentationError.tooManyRejectedCallbacks.with(
                message: "The sign-in was abandoned after \(decision.count) callbacks whose state did not match"
            )
        )
    }

    /// Compares two strings in time that depends only on their lengths.
    private static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let (left, right) = (Array(lhs.utf8), Array(rhs.utf8))
        guard left.count == right.count else { return false }
        return zip(left, right).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Sends a whole response and closes the connection.
    private func respond(_ fd: Int32, _ status: LoopbackHTTP.Status, _ html: String) {
        let bytes = LoopbackHTTP.response(status, html: html)
        var sent = 0
        var attempts = 0
        while sent < bytes.count, attempts < 64 {
            attempts += 1
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Self.sendFlags) }
            if count > 0 {
                sent += count
            } else if count < 0, errno != EINTR, errno != EAGAIN {
                break
            }
        }
        // Half-close, then drop what the peer sent beyond what was read (an oversized request): closing with
        // unread data resets the connection, and the peer could lose the response.
        _ = shutdown(fd, Int32(SHUT_WR))
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 where recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 {}
        close(fd)
    }

    /// Closes the sockets and hands the result to every waiter.
    private func finish(_ result: Result<URL, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<URL, any Error>] in
            Self.closeDescriptors(&state)
            state.isFinished = true
            state.result = result
            defer { state.waiters = [] }
            return state.waiters
        }
        logger.trace("Loopback listener closed", metadata: ["presenter.port": "\(port)"])
        for waiter in waiters { waiter.resume(with: result) }
    }

    // MARK: Sockets

    private static func closeDescriptors(_ state: inout State) {
        for fd in [state.listenFD, state.wakeReadFD, state.wakeWriteFD] where fd >= 0 { close(fd) }
        state.listenFD = -1
        state.wakeReadFD = -1
        state.wakeWriteFD = -1
    }

    /// Opens a listening socket on 127.0.0.1 with a port the system assigns, and a wake pipe.
    private static func bindLoopback() throws -> (listen: Int32, wakeRead: Int32, wakeWrite: Int32, port: UInt16) {
        func failure(_ step: String) -> AuthorizationPresentationError {
            AuthorizationPresentationError.cannotListen.with(
                message: "Could not listen for the redirect on 127.0.0.1 (\(step): \(String(cString: strerror(errno))))"
            )
        }
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
        guard fd >= 0 else { throw failure("socket") }
        var keep = false
        defer { if !keep { close(fd) } }
        setCloseOnExec(fd)
        var yes: Int32 = 1
        guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw failure("setsockopt")
        }
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw failure("bind") }
        guard listen(fd, 16) == 0 else { throw failure("listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw failure("getsockname") }
        guard fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK) == 0 else { throw failure("fcntl") }
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else { throw failure("pipe") }
        for pipeFD in pipeFDs {
            setCloseOnExec(pipeFD)
            _ = fcntl(pipeFD, F_SETFL, fcntl(pipeFD, F_GETFL, 0) | O_NONBLOCK)
        }
        keep = true
        return (fd, pipeFDs[0], pipeFDs[1], UInt16(bigEndian: address.sin_port))
    }

    /// Keeps a descriptor out of the browser processes the presenter starts.
    private static func setCloseOnExec(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD, 0) | FD_CLOEXEC)
    }

    /// A peer that hangs up must not kill the process with SIGPIPE.
    private static func setNoSigPipe(_ fd: Int32) {
        #if canImport(Darwin)
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    #if canImport(Darwin)
    private static let sendFlags: Int32 = 0
    #else
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    /// Returns a factory of stopwatches on `clock`: each call starts one, which reports the time since.
    private static func makeStopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> @Sendable () -> Duration {
        {
            let start = clock.now
            return { start.duration(to: clock.now) }
        }
    }
}
