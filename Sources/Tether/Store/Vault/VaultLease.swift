import Logging

/// A lease of ``FileLeases``: the in-process mutex plus an `flock` on the lease file.
final class VaultLease: RefreshLease {
    private let fd: LockedState<Int32?>
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

    private func releaseNow() {
        guard
            let fd = fd.withLock({ fd in
                defer { fd = nil }
                return fd
            })
        else { return }
        VaultFiles.unlockAndClose(fd)
        mutex.unlock(key)
        logger.debug("Released refresh lease", metadata: [metadataKey: "\(id)"])
    }

    deinit {
        // A lease dropped without release must not block this process's other tasks forever.
        releaseNow()
    }
}
