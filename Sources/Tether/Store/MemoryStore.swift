/// A ``CredentialStore`` in memory, for tests and previews.
///
/// Several ``Session``s sharing one `MemoryStore` behave like processes sharing a vault: the refresh lease and
/// compare-and-swap work across them.
public final class MemoryStore: CredentialStore {
    private let records: LockedState<[ConnectionID: Connection]>
    private let leases = AsyncKeyedMutex()
    private let clock: any Clock<Duration>

    /// Creates a store holding `records`.
    /// - Parameters:
    ///   - records: Records to start with; each gets version 1.
    ///   - clock: The clock that lease timeouts are measured on.
    public init(_ records: [Connection] = [], clock: any Clock<Duration> = ContinuousClock()) {
        self.records = LockedState(Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0.withVersion(1)) }))
        self.clock = clock
    }

    public func read(_ id: ConnectionID) async throws -> Connection? {
        records.withLock { $0[id] }
    }

    public func write(_ connection: Connection, expecting precondition: WritePrecondition) async throws -> Connection {
        try records.withLock { records in
            let stored = records[connection.id]?.version
            guard precondition.isSatisfied(byStoredVersion: stored) else {
                throw CredentialStoreError.versionConflict.with(
                    message:
                        "Expected \(precondition) of \(connection.id), found \(stored.map { "version \($0)" } ?? "none")"
                )
            }
            let written = connection.withVersion((stored ?? 0) + 1)
            records[connection.id] = written
            return written
        }
    }

    public func delete(_ id: ConnectionID) async throws {
        _ = records.withLock { $0.removeValue(forKey: id) }
    }

    public func list() async throws -> [ConnectionID] {
        records.withLock { $0.keys.sorted() }
    }

    public func acquireRefreshLease(for id: ConnectionID, timeout: Duration) async throws -> any RefreshLease {
        guard try await leases.lock(id.rawValue, timeout: timeout, clock: clock) else {
            throw CredentialStoreError.leaseTimeout.with(message: "Timed out waiting for the refresh lease of \(id)")
        }
        return MutexLease(mutex: leases, key: id.rawValue)
    }
}

/// A lease backed by an ``AsyncKeyedMutex``.
package final class MutexLease: RefreshLease {
    private let mutex: AsyncKeyedMutex
    private let key: String
    private let released = LockedState(false)

    package init(mutex: AsyncKeyedMutex, key: String) {
        self.mutex = mutex
        self.key = key
    }

    package func release() async {
        let wasReleased = released.withLock { released in
            defer { released = true }
            return released
        }
        if !wasReleased { mutex.unlock(key) }
    }
}
