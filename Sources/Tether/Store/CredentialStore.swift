/// Where a ``Session`` keeps its ``Connection`` records: bytes and keys, nothing about OAuth.
///
/// ## When to implement
/// Tether ships ``MemoryStore`` (tests, previews), ``VaultStore`` (an encrypted file vault, the default on
/// Linux) and `KeychainStore` (Apple platforms, in the `TetherKeychain` module). Implement this protocol to keep
/// credentials somewhere else, such as a database shared by many servers.
///
/// ## The contract
/// - A record is read and written as one unit; a reader never sees half of a write.
/// - ``write(_:expecting:)`` is a compare-and-swap on ``Connection/version``: the store assigns the next version
///   and refuses the write with ``CredentialStoreError/versionConflict`` when the stored version is not the one
///   expected.
/// - ``acquireRefreshLease(for:timeout:)`` grants one holder at a time per connection, across every process
///   (or machine) that shares the store. A ``Session`` holds it while it refreshes, so that a rotated refresh
///   token is never used twice.
/// - A store that cannot be read *yet* (a device locked since boot, an app prewarmed before first unlock)
///   throws ``CredentialStoreError/unavailable``, never "no record": an unreadable store is not a signed-out user.
/// - Damaged data throws a specific error and is left untouched; a store never deletes what it cannot read.
///
/// ## Testing
/// Run the store contract suite in `TetherTests` against a new store, or use ``MemoryStore`` as a test double.
public protocol CredentialStore: Sendable {
    /// Reads a record.
    /// - Parameter id: The connection.
    /// - Returns: The record, or `nil` when there is none.
    /// - Throws: ``CredentialStoreError`` — `unavailable`, `corrupted`, `wrongKey`, `unsupportedFormat`, `io`.
    func read(_ id: ConnectionID) async throws -> Connection?

    /// Writes a record if the stored version matches `precondition`, assigning the next version.
    /// - Parameters:
    ///   - connection: The record to store; its ``Connection/version`` is ignored.
    ///   - precondition: What the store must hold for the write to happen.
    /// - Returns: The record as stored, with its new version.
    /// - Throws: ``CredentialStoreError/versionConflict`` when the precondition fails, or another
    ///   ``CredentialStoreError``; the stored record is then unchanged, except that a store that cannot confirm a
    ///   write is durable (``VaultStore`` when flushing its folder fails) throws ``CredentialStoreError/io`` with
    ///   the new record possibly in place.
    func write(_ connection: Connection, expecting precondition: WritePrecondition) async throws -> Connection

    /// Deletes a record from every place the store keeps it. Deleting a missing record succeeds.
    /// - Parameter id: The connection.
    /// - Throws: ``CredentialStoreError`` when the store cannot be changed.
    func delete(_ id: ConnectionID) async throws

    /// Lists the stored connections.
    /// - Returns: The identifiers, sorted.
    func list() async throws -> [ConnectionID]

    /// Waits for the refresh lease of a connection, which at most one holder has at a time.
    /// - Parameters:
    ///   - id: The connection.
    ///   - timeout: How long to wait for another holder to finish.
    /// - Returns: The lease; call ``RefreshLease/release()`` when done.
    /// - Throws: ``CredentialStoreError/leaseTimeout`` when the lease was not granted in time, or
    ///   `CancellationError`.
    func acquireRefreshLease(for id: ConnectionID, timeout: Duration) async throws -> any RefreshLease
}

/// A held refresh lease; see ``CredentialStore/acquireRefreshLease(for:timeout:)``.
public protocol RefreshLease: Sendable {
    /// Gives the lease back. Releasing twice does nothing.
    func release() async
}

extension CredentialStore {
    /// Writes a record over whatever is stored (no version check).
    /// - Parameter connection: The record.
    /// - Returns: The record as stored.
    @discardableResult
    public func write(_ connection: Connection) async throws -> Connection {
        try await write(connection, expecting: .any)
    }

    /// Runs `body` while holding the connection's refresh lease, releasing it afterwards even when `body` throws.
    /// - Parameters:
    ///   - id: The connection.
    ///   - timeout: How long to wait for the lease.
    ///   - body: The work to do under the lease.
    /// - Returns: What `body` returns.
    public func withRefreshLease<T: Sendable>(
        for id: ConnectionID,
        timeout: Duration,
        _ body: () async throws -> T
    ) async throws -> T {
        let lease = try await acquireRefreshLease(for: id, timeout: timeout)
        do {
            let result = try await body()
            await lease.release()
            return result
        } catch {
            await lease.release()
            throw error
        }
    }
}

/// What a store must hold for ``CredentialStore/write(_:expecting:)`` to proceed.
public struct WritePrecondition: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Hashable {
        case any
        case absent
        case version(UInt64)
    }

    let kind: Kind

    /// Write whatever is stored.
    public static let any = WritePrecondition(kind: .any)
    /// Write only if no record exists.
    public static let absent = WritePrecondition(kind: .absent)
    /// Write only if the stored record has this version.
    /// - Parameter version: The expected version.
    public static func version(_ version: UInt64) -> WritePrecondition { WritePrecondition(kind: .version(version)) }

    /// Checks the precondition against the stored version (`nil` when there is no record).
    /// - Parameter storedVersion: The version in the store.
    /// - Returns: Whether a write may proceed.
    public func isSatisfied(byStoredVersion storedVersion: UInt64?) -> Bool {
        switch kind {
        case .any: true
        case .absent: storedVersion == nil
        case .version(let expected): storedVersion == expected
        }
    }

    /// The version a ``version(_:)`` precondition expects; `nil` for ``any`` and ``absent``.
    package var expectedVersion: UInt64? {
        if case .version(let version) = kind { return version }
        return nil
    }

    /// `any`, `absent` or `version N`.
    public var description: String {
        switch kind {
        case .any: "any"
        case .absent: "absent"
        case .version(let version): "version \(version)"
        }
    }
}
