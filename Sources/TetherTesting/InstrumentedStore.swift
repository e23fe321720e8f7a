public import Tether

/// Wraps a ``Tether/CredentialStore`` to count calls, inject failures and observe writes.
///
/// Use it to make a store "unavailable" the way a locked device is, or to check what was stored at the moment
/// of a write.
public final class InstrumentedStore: CredentialStore {
    /// Calls seen so far.
    public struct Calls: Sendable, Hashable {
        /// Reads.
        public var reads = 0
        /// Successful writes.
        public var writes = 0
        /// Deletes.
        public var deletes = 0
        /// Leases granted.
        public var leases = 0
    }

    private let base: any CredentialStore
    private let calls = LockedState(Calls())
    private let readFailure = LockedState<CredentialStoreError?>(nil)
    private let writeFailure = LockedState<CredentialStoreError?>(nil)
    private let countedWriteFailures = LockedState<(count: Int, error: CredentialStoreError)?>(nil)
    private let writeHook: LockedState<(@Sendable (Connection) async -> Void)?> = LockedState(nil)

    /// Wraps `base`.
    /// - Parameter base: The store that does the work.
    public init(_ base: any CredentialStore) { self.base = base }

    /// What was called so far.
    public var callCounts: Calls { calls.withLock { $0 } }

    /// Makes every read (and lease) fail with `error` until set to `nil`.
    /// - Parameter error: The failure, or `nil` to read normally again.
    public func failReads(with error: CredentialStoreError?) { readFailure.withLock { $0 = error } }

    /// Makes every write fail with `error` until set to `nil`.
    /// - Parameter error: The failure, or `nil` to write normally again.
    public func failWrites(with error: CredentialStoreError?) { writeFailure.withLock { $0 = error } }

    /// Makes the next `count` writes fail with `error`, then write normally again.
    /// - Parameters:
    ///   - count: How many writes fail.
    ///   - error: The failure.
    public func failNextWrites(_ count: Int, with error: CredentialStoreError) {
        countedWriteFailures.withLock { $0 = count > 0 ? (count, error) : nil }
    }

    /// Runs `hook` after each successful write, before the write returns to its caller.
    /// - Parameter hook: Receives the stored record.
    public func onWrite(_ hook: (@Sendable (Connection) async -> Void)?) { writeHook.withLock { $0 = hook } }

    public func read(_ id: ConnectionID) async throws -> Connection? {
        calls.withLock { $0.reads += 1 }
        if let error = readFailure.withLock({ $0 }) { throw error }
        return try await base.read(id)
    }

    public func write(_ connection: Connection, expecting precondition: WritePrecondition) async throws -> Connection {
        if let error = writeFailure.withLock({ $0 }) { throw error }
        let counted = countedWriteFailures.withLock { failures -> CredentialStoreError? in
            guard let current = failures else { return nil }
            failures = current.count > 1 ? (current.count - 1, current.error) : nil
            return current.error
        }
        if let counted { throw counted }
        let written = try await base.write(connection, expecting: precondition)
        calls.withLock { $0.writes += 1 }
        if let hook = writeHook.withLock({ $0 }) { await hook(written) }
        return written
    }

    public func delete(_ id: ConnectionID) async throws {
        calls.withLock { $0.deletes += 1 }
        if let error = writeFailure.withLock({ $0 }) { throw error }
        try await base.delete(id)
    }

    public func list() async throws -> [ConnectionID] {
        if let error = readFailure.withLock({ $0 }) { throw error }
        return try await base.list()
    }

    public func acquireRefreshLease(for id: ConnectionID, timeout: Duration) async throws -> any RefreshLease {
        if let error = readFailure.withLock({ $0 }) { throw error }
        let lease = try await base.acquireRefreshLease(for: id, timeout: timeout)
        calls.withLock { $0.leases += 1 }
        return lease
    }
}

extension InstrumentedStore: SpaceReservingStore {
    /// Forwards to the wrapped store when it can reserve space (``VaultStore``); otherwise does nothing.
    package func reserveSpace(forNextWriteOf id: ConnectionID) async throws {
        try await (base as? any SpaceReservingStore)?.reserveSpace(forNextWriteOf: id)
    }
}
