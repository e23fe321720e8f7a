import Crypto
import Foundation
package import Logging

/// Refresh leases that hold across processes: an exclusive `flock` on one file per lease, behind an in-process
/// mutex, so that tasks of one process queue without polling and only the task at the head polls the file lock.
///
/// The kernel drops an `flock` when its holder's process dies, so a killed holder never leaves a lease stuck.
/// ``VaultStore`` keeps its leases in its `locks` folder; `KeychainStore` in a folder that an app and its
/// extensions share (an app group's container).
package struct FileLeases: Sendable {
    private let mutex = AsyncKeyedMutex()
    private let clock: any Clock<Duration>
    private let logger: Logger
    private let metadataKey: String

    /// Creates a set of leases.
    /// - Parameters:
    ///   - clock: The clock that timeouts are measured and the file lock is polled on.
    ///   - logger: Receives debug messages with the connection's identifier.
    ///   - logPrefix: The prefix of the log metadata key, such as `vault` for `vault.connection`.
    package init(clock: any Clock<Duration>, logger: Logger, logPrefix: String) {
        self.clock = clock
        self.logger = logger
        self.metadataKey = logPrefix + ".connection"
    }

    /// A lock file name for a lease known by `name` (any text, of any length): the hex SHA-256 of its UTF-8 and
    /// `.lease`, so that it fits a file name and tells nothing about the connection.
    package static func lockFileName(for name: String) -> String {
        SHA256.hash(data: Data(name.utf8)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() + ".lease"
    }

    /// Waits for the lease whose lock file is `path` (created with mode 0600 when missing, never through a
    /// symbolic link).
    /// - Parameters:
    ///   - path: The lock file; every process that shares the lease uses the same path.
    ///   - id: The connection, for the timeout's message and the log.
    ///   - timeout: How long to wait, in this process's queue and for the file lock together.
    /// - Returns: The lease; releasing it (or dropping it) unlocks the file and lets the next waiter in.
    /// - Throws: ``CredentialStoreError/leaseTimeout``, `CancellationError`, or ``CredentialStoreError/io`` and
    ///   ``CredentialStoreError/invalidConfiguration`` when the lock file cannot be opened.
    package func acquire(lockFile path: String, id: ConnectionID, timeout: Duration) async throws -> any RefreshLease {
        let timedOut = CredentialStoreError.leaseTimeout.with(
            message: "Timed out after \(timeout) waiting for the refresh lease of \(id)"
        )
        var granted = false
        let waited = try await clock.measure {
            granted = try await mutex.lock(path, timeout: timeout, clock: clock)
        }
        guard granted else { throw timedOut }
        let fd: Int32
        do {
            fd = try VaultFiles.openLockFile(path)
        } catch {
            mutex.unlock(path)
            throw error
        }
        do {
            guard try await clock.pollLock(fd, path: path, timeout: max(.zero, timeout - waited)) else {
                throw timedOut
            }
        } catch {
            VaultFiles.unlockAndClose(fd)
            mutex.unlock(path)
            throw error
        }
        logger.debug("Acquired refresh lease", metadata: [metadataKey: "\(id)"])
        return VaultLease(fd: fd, mutex: mutex, key: path, logger: logger, metadataKey: metadataKey, id: id)
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
