import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A lease of ``FileLeases``: the in-process mutex plus an `flock` on the lease file, which a child process can
/// inherit (``InheritableRefreshLease``).
final class VaultLease: InheritableRefreshLease {
    private let fd: LockedState<Int32?>
    /// Whether the descriptor was handed to a child, which must keep the lock after this process lets go.
    private let shared = LockedState(false)
    private let mutex: AsyncKeyedMutex
    private let key: String
    private let logger: Logger
    private let metadataKey: String
    private let id: ConnectionID

    init(fd: Int32, mutex: AsyncKeyedMutex, key: String, logger: Logger, metadataKey: String, id: ConnectionID) {
        self.fd = LockedState(fd)
        self.mutex = mutex
        self.key = key
        self.logger = logger
        self.metadataKey = metadataKey
        self.id = id
    }

    func release() async {
        releaseNow()
    }

    func descriptorForChild() -> Int32? {
        fd.withLock { fd in
            guard let fd else { return nil }
            shared.withLock { $0 = true }
            return fd
        }
    }

    private func releaseNow() {
        guard
            let fd = fd.withLock({ fd in
                defer { fd = nil }
                return fd
            })
        else { return }
        if shared.withLock({ $0 }) {
            // The lock belongs to the open file description, which a child may still hold: closing this
            // descriptor leaves it locked until the child's copy closes too; unlocking would free it at once.
            close(fd)
        } else {
            VaultFiles.unlockAndClose(fd)
        }
        mutex.unlock(key)
        logger.debug("Released refresh lease", metadata: [metadataKey: "\(id)"])
    }

    deinit {
        // A lease dropped without release must not block this process's other tasks forever.
        releaseNow()
    }
}
