import Dispatch
import Logging
import Tether

/// One `ProcessInfo.performExpiringActivity(withReason:using:)`: while it runs, the system does not suspend the
/// process; when the system must, it says so once (the block's second call, with `true`) and the activity ends.
///
/// iOS ends a process that is suspended while it holds a file lock in an app group's container (termination
/// reason `0xdead10cc`), so a ``KeychainStore`` holds its shared refresh lease only inside one of these, and
/// lets the lease go when the activity expires.
final class ExpiringActivity: Sendable {
    private enum Phase {
        /// Asked for; the system has not answered.
        case waiting(CheckedContinuation<Bool, Never>?)
        /// Granted; the block waits for ``end()``.
        case running
        /// The system wants to suspend the process (before or after granting).
        case expired
        /// Ended by its owner.
        case ended
    }

    private let phase = LockedState(Phase.waiting(nil))
    private let handler = LockedState<(@Sendable () -> Void)?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    private init() {}

    /// Asks the system for an activity.
    /// - Parameters:
    ///   - reason: What it is for.
    ///   - platform: Where `performExpiringActivity` comes from.
    /// - Returns: The running activity, or `nil` when the system is already suspending the process.
    static func begin(reason: String, platform: KeychainPlatform) async -> ExpiringActivity? {
        let activity = ExpiringActivity()
        let granted = await withCheckedContinuation { continuation in
            activity.phase.withLock { $0 = .waiting(continuation) }
            platform.performExpiringActivity(reason) { expired in activity.answer(expired: expired) }
        }
        return granted ? activity : nil
    }

    /// Sets what runs when the system expires the activity; runs it at once when it already has.
    /// - Returns: Whether the activity was still running.
    func onExpire(_ body: @escaping @Sendable () -> Void) -> Bool {
        handler.withLock { $0 = body }
        let running = phase.withLock { phase in
            if case .running = phase { return true }
            return false
        }
        if !running { runHandler() }
        return running
    }

    /// Ends the activity: the system may suspend the process again. Ending twice does nothing.
    func end() {
        let wasRunning = phase.withLock { phase in
            guard case .running = phase else { return false }
            phase = .ended
            return true
        }
        if wasRunning { finished.signal() }
    }

    /// The system's call of the block.
    private func answer(expired: Bool) {
        enum Step {
            case grant(CheckedContinuation<Bool, Never>?)
            case refuse(CheckedContinuation<Bool, Never>?)
            case expire
            case none
        }
        let step = phase.withLock { phase -> Step in
            switch (phase, expired) {
            case (.waiting(let continuation), false):
                phase = .running
                return .grant(continuation)
            case (.waiting(let continuation), true):
                phase = .expired
                return .refuse(continuation)
            case (.running, true):
                phase = .expired
                return .expire
            default:
                return .none
            }
        }
        switch step {
        case .grant(let continuation):
            continuation?.resume(returning: true)
            // The activity lasts as long as this call of the block: wait for end() or the expiry.
            finished.wait()
        case .refuse(let continuation):
            continuation?.resume(returning: false)
        case .expire:
            runHandler()
            finished.signal()
        case .none:
            break
        }
    }

    private func runHandler() {
        let body = handler.withLock { handler in
            defer { handler = nil }
            return handler
        }
        body?()
    }
}

/// A file lease held inside an ``ExpiringActivity``: released with it, and early when the system expires the
/// activity, so that a suspended process never holds the lock.
final class SuspensionGuardedLease: RefreshLease {
    private let inner: any RefreshLease
    private let activity: ExpiringActivity

    init(inner: any RefreshLease, activity: ExpiringActivity) {
        self.inner = inner
        self.activity = activity
    }

    func release() async {
        await inner.release()
        activity.end()
    }

    /// Lets the file lock go before the block that reported the expiry returns (after that the process may be
    /// suspended at any moment). Waits at most a second for it.
    func releaseBeforeSuspension() {
        let released = DispatchSemaphore(value: 0)
        let inner = self.inner
        Task {
            await inner.release()
            released.signal()
        }
        _ = released.wait(timeout: .now() + .seconds(1))
    }
}

extension KeychainStore {
    /// Takes the file lease at `path` inside an expiring activity.
    /// - Throws: ``CredentialStoreError/unavailable`` when the system is suspending the app (before or while the
    ///   lease is taken), and whatever taking the lease throws.
    func acquireGuardedFileLease(
        lockFile path: String,
        id: ConnectionID,
        timeout: Duration
    ) async throws
        -> any RefreshLease
    {
        let suspending = CredentialStoreError.unavailable.with(
            message: "The system is suspending the app; the refresh lease of \(id) is taken when it runs again"
        )
        guard let activity = await ExpiringActivity.begin(reason: "Refreshing a credential", platform: platform)
        else {
            throw suspending
        }
        let lease: any RefreshLease
        do {
            lease = try await fileLeases.acquire(lockFile: path, id: id, timeout: timeout)
        } catch {
            activity.end()
            throw error
        }
        let guarded = SuspensionGuardedLease(inner: lease, activity: activity)
        let logger = self.logger
        let running = activity.onExpire {
            logger.warning(
                "The system is suspending the app: let the refresh lease go early",
                metadata: ["keychain.connection": "\(id)"]
            )
            guarded.releaseBeforeSuspension()
        }
        guard running else { throw suspending }
        return guarded
    }
}
