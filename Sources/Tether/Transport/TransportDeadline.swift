/// One deadline for a whole exchange — connect, send, response headers and the whole body — shared by the built-in
/// transports.
///
/// The clients' own timeouts do not bound a response body: AsyncHTTPClient's `execute(_:deadline:)` ends its
/// deadline when the response head arrives, and URLSession's `timeoutIntervalForRequest` is an idle timeout (on
/// Linux, FoundationNetworking ignores `timeoutIntervalForResource`). A server that sends one byte every few seconds
/// would hold a request for as long as it likes. Here the exchange races a sleep on the transport's clock; when the
/// sleep wins, the exchange's task is cancelled, which each transport turns into closing the connection.
package enum TransportDeadline {
    /// Runs `exchange`, cancelling it and throwing ``TransportError/timedOut`` if it has not finished within
    /// `timeout` on `clock`.
    /// - Parameters:
    ///   - timeout: The time the whole exchange may take.
    ///   - clock: The clock the deadline is measured on.
    ///   - target: The request's target without its query, for the error message.
    ///   - exchange: The exchange; it must end promptly when its task is cancelled.
    /// - Returns: What `exchange` returned.
    /// - Throws: ``TransportError/timedOut`` after `timeout`, else what `exchange` threw (`CancellationError` or
    ///   ``TransportError/cancelled`` when the caller's task was cancelled).
    package static func run<Result: Sendable>(
        within timeout: Duration,
        on clock: any Clock<Duration>,
        target: String,
        _ exchange: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Outcome<Result>.self) { group in
            group.addTask { .finished(try await exchange()) }
            group.addTask {
                do {
                    try await clock.sleep(for: timeout)
                } catch {
                    // Cancelled: the exchange finished first, or the caller's task was cancelled and the exchange
                    // reports that itself.
                    return .sleepInterrupted
                }
                return .deadlinePassed
            }
            // Leaving the group (by returning or throwing) cancels the other child and waits for it.
            defer { group.cancelAll() }
            while let outcome = try await group.next() {
                switch outcome {
                case .finished(let result):
                    return result
                case .deadlinePassed:
                    throw TransportError.timedOut.with(
                        message: "The request to \(target) took longer than \(Self.describe(timeout))"
                    )
                case .sleepInterrupted:
                    continue
                }
            }
            // Unreachable: the exchange's child always ends with a result or an error.
            throw CancellationError()
        }
    }

    private enum Outcome<Result: Sendable>: Sendable {
        case finished(Result)
        case deadlinePassed
        case sleepInterrupted
    }

    /// `30 seconds`, `1.5 seconds`, `250 ms`.
    package static func describe(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) seconds" }
        return "\(Double(milliseconds) / 1000) seconds"
    }
}
