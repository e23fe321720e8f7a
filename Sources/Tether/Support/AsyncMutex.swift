/// A fair, cancellable asynchronous mutex keyed by name: the in-process lease behind ``MemoryStore``, and the
/// first stage of ``VaultStore``'s lease (so that tasks of one process queue here instead of polling a file lock).
package final class AsyncKeyedMutex: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var held: Set<String> = []
        var waiters: [String: [Waiter]] = [:]
        var nextID: UInt64 = 0
    }

    private let state = LockedState(State())

    package init() {}

    /// Waits until `key` is free and takes it.
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    package func lock(_ key: String) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Decide under the lock; resume outside it.
                let outcome = state.withLock { state -> Result<Bool, CancellationError> in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.held.insert(key).inserted { return .success(true) }
                    state.waiters[key, default: []].append(Waiter(id: id, continuation: continuation))
                    return .success(false)
                }
                switch outcome {
                case .success(true): continuation.resume()
                case .success(false): break
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Waiter? in
                guard let index = state.waiters[key]?.firstIndex(where: { $0.id == id }) else { return nil }
                let waiter = state.waiters[key]?.remove(at: index)
                if state.waiters[key]?.isEmpty == true { state.waiters[key] = nil }
                return waiter
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Takes `key`, waiting at most `timeout` on `clock`.
    /// - Returns: Whether the key was taken; `false` after the timeout.
    /// - Throws: `CancellationError` when the calling task is cancelled.
    package func lock(_ key: String, timeout: Duration, clock: any Clock<Duration>) async throws -> Bool {
        if tryLock(key) { return true }
        let acquired = await withTaskGroup(of: Bool?.self) { group -> Bool in
            group.addTask {
                do {
                    try await self.lock(key)
                    return true
                } catch {
                    return false
                }
            }
            group.addTask {
                try? await clock.sleep(for: timeout)
                return nil
            }
            var acquired = false
            var first = true
            for await result in group {
                if result == true { acquired = true }
                if first {
                    first = false
                    group.cancelAll()
                }
            }
            return acquired
        }
        if Task.isCancelled {
            // Granted but no longer wanted: hand the key on, or every later caller would wait for a holder that
            // has gone.
            if acquired { unlock(key) }
            throw CancellationError()
        }
        return acquired
    }

    /// Takes `key` if it is free.
    /// - Returns: Whether the key was taken.
    package func tryLock(_ key: String) -> Bool {
        state.withLock { state in state.held.insert(key).inserted }
    }

    /// Hands `key` to the next waiter, or frees it.
    package func unlock(_ key: String) {
        let next = state.withLock { state -> Waiter? in
            if var queue = state.waiters[key], !queue.isEmpty {
                let next = queue.removeFirst()
                state.waiters[key] = queue.isEmpty ? nil : queue
                return next
            }
            state.held.remove(key)
            return nil
        }
        next?.continuation.resume()
    }
}
