import Dispatch
import Foundation
import Tether
import TetherCommandSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lets a refresh finish before `SIGINT` or `SIGTERM` ends the process.
///
/// While this process holds a refresh lease (a refresh and its write are under way, here or in the refresh worker
/// it started), the first `SIGINT` or `SIGTERM` is held back until the lease is released, for at most ``bound``;
/// then the process ends by that signal, as it would have at once — a shell reports `128 + signo` (130, 143) and a
/// script loop sees a death by signal. Outside a lease, and on a second signal, the process ends at once. See
/// docs/decisions.md §27.
final class SignalDeferral: Sendable {
    static let shared = SignalDeferral()

    private struct State {
        var sources: [any DispatchSourceSignal] = []
        var critical = 0
        var pending: Int32?
        var bound: Duration = .seconds(10)
    }

    private let state = LockedState(State())
    private let queue = DispatchQueue(label: "tether.signals")

    /// Starts handling `SIGINT` and `SIGTERM`; later calls do nothing. A signal that arrives before the handler is
    /// in place ends the process as usual.
    /// - Parameter bound: How long a signal waits for the refresh in flight at most.
    func install(bound: Duration = .seconds(10)) {
        state.withLock { state in
            guard state.sources.isEmpty else { return }
            state.bound = bound
            for signo in [SIGINT, SIGTERM] {
                let source = DispatchSource.makeSignalSource(signal: signo, queue: queue)
                source.setEventHandler { [self] in received(signo) }
                source.resume()
                state.sources.append(source)
            }
        }
    }

    /// Marks the start of a section that a signal must not cut short (a refresh lease is held).
    func enter() {
        state.withLock { $0.critical += 1 }
    }

    /// Marks its end; a signal held back meanwhile now ends the process.
    func leave() {
        let pending = state.withLock { state -> Int32? in
            state.critical = max(0, state.critical - 1)
            return state.critical == 0 ? state.pending : nil
        }
        if let pending { Self.terminate(by: pending) }
    }

    private func received(_ signo: Int32) {
        let deferral = state.withLock { state -> Duration? in
            guard state.critical > 0, state.pending == nil else { return nil }
            state.pending = signo
            return state.bound
        }
        guard let deferral else { Self.terminate(by: signo) }
        queue.asyncAfter(deadline: .now() + deferral.timeInterval) { Self.terminate(by: signo) }
    }

    /// Ends the process by `signo` with the default action, so that its parent sees a death by that signal.
    static func terminate(by signo: Int32) -> Never {
        signal(signo, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signo)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        kill(getpid(), signo)
        // The signal is delivered to a thread that does not block it; should every thread block it, exit with the
        // status a shell would have shown.
        usleep(200_000)
        _exit(128 + signo)
    }
}

/// A store whose refresh leases hold ``SignalDeferral`` back while they are held.
struct SignalDeferringStore: ForwardingStore {
    let base: any CredentialStore

    func acquireRefreshLease(for id: ConnectionID, timeout: Duration) async throws -> any RefreshLease {
        let lease = try await base.acquireRefreshLease(for: id, timeout: timeout)
        SignalDeferral.shared.enter()
        return Lease(base: lease)
    }

    final class Lease: InheritableRefreshLease {
        let base: any RefreshLease
        private let released = LockedState(false)

        init(base: any RefreshLease) { self.base = base }

        func release() async {
            await base.release()
            let first = released.withLock { released in
                defer { released = true }
                return !released
            }
            if first { SignalDeferral.shared.leave() }
        }

        func descriptorForChild() -> Int32? {
            (base as? any InheritableRefreshLease)?.descriptorForChild()
        }
    }
}
