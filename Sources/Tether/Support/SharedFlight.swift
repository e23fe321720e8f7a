/// The result of one piece of work, awaited by any number of callers.
///
/// Unlike awaiting a `Task`'s value, a caller that is cancelled stops waiting at once with `CancellationError`,
/// while the work itself goes on for everyone else. A rotating refresh must never be cut short because one
/// impatient caller went away: the old refresh token may already be spent.
package final class SharedFlight<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = LockedState(State())

    package init() {}

    /// Completes the flight; later calls are ignored.
    package func resolve(_ result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// Waits for the result.
    /// - Throws: The work's error, or `CancellationError` when the waiting task is cancelled.
    package func value() async throws -> Value {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let immediate = state.withLock { state -> Result<Value, any Error>? in
                    if let result = state.result { return result }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Whether the flight has completed.
    private var isResolved: Bool { state.withLock { $0.result != nil } }
}
