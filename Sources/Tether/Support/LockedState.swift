import Foundation

/// A value guarded by a lock, for the few places where an actor hop would be wrong (cancellation handlers,
/// synchronous reads on a hot path).
package final class LockedState<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    package init(_ state: State) { self.state = state }

    /// Runs `body` with exclusive access to the state.
    package func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
