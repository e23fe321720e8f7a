import Logging

/// A refresh lease of a ``VaultStore``: the in-process mutex plus an `flock` on the lease file.
final class VaultLease: RefreshLease {
    private let fd: LockedState<Int32?>
    private let mutex: AsyncKeyedMutex
    private let key: String
    private let logger: Logger
    private let id: ConnectionID

    init(fd: Int32, mutex: AsyncKeyedMutex, key: String, logger: Logger, id: ConnectionID) {
        self.fd = LockedState(fd)
        self.mutex = mutex
        self.key = key
        self.logger = logger
        self.id = id
    }

    func release() async {
        releaseNow()
    }

    private func releaseNow() {
        guard
            let fd = fd.withLock({ fd in
                defer { fd = nil }
                return fd
            })
        else { return }
        VaultFiles.unlockAndClose(fd)
        mutex.unlock(key)
        logger.debug("Released vault refresh lease", metadata: ["vault.connection": "\(id)"])
    }

    deinit {
        // A lease dropped without release must not block this process's other tasks forever.
        releaseNow()
    }
}
