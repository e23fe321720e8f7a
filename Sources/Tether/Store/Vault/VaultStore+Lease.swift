import Foundation
import Logging

extension VaultStore {
    public func acquireRefreshLease(for id: ConnectionID, timeout: Duration) async throws -> any RefreshLease {
        let names = try requireNames(for: id)
        let lease = try await acquireLease(names, id: id, timeout: timeout, clock: clock)
        logger.debug("Acquired vault refresh lease", metadata: ["vault.connection": "\(id)"])
        return lease
    }

    func acquireLease(
        _ names: RecordNames,
        id: ConnectionID,
        timeout: Duration,
        clock: any Clock<Duration>
    ) async throws -> VaultLease {
        let timedOut = CredentialStoreError.leaseTimeout.with(
            message: "Timed out after \(timeout) waiting for the refresh lease of \(id)"
        )
        // Tasks of this process queue on the mutex without polling; only its holder polls the file lock.
        var granted = false
        let waited = try await clock.measure {
            granted = try await leaseMutex.lock(names.stem, timeout: timeout, clock: clock)
        }
        guard granted else { throw timedOut }
        let fd: Int32
        do {
            fd = try VaultFiles.openLockFile(names.leaseLock)
        } catch {
            leaseMutex.unlock(names.stem)
            throw error
        }
        do {
            guard try await clock.pollLock(fd, path: names.leaseLock, timeout: max(.zero, timeout - waited)) else {
                throw timedOut
            }
        } catch {
            VaultFiles.unlockAndClose(fd)
            leaseMutex.unlock(names.stem)
            throw error
        }
        return VaultLease(fd: fd, mutex: leaseMutex, key: names.stem, logger: logger, id: id)
    }
}

extension Clock where Duration == Swift.Duration {
    /// Takes an exclusive `flock`, polling on this clock (2 ms, doubling up to 50 ms) until `timeout`.
    /// - Returns: Whether the lock was taken.
    /// - Throws: `CancellationError`, or ``CredentialStoreError/io``.
    func pollLock(_ fd: Int32, path: String, timeout: Duration) async throws -> Bool {
        let deadline = now.advanced(by: timeout)
        var delay: Duration = .milliseconds(2)
        while true {
            if try VaultFiles.tryLock(fd, path) { return true }
            try Task.checkCancellation()
            let remaining = now.duration(to: deadline)
            if remaining <= .zero { return false }
            try await sleep(for: min(delay, remaining))
            delay = min(delay * 2, .milliseconds(50))
        }
    }
}
