import Foundation
public import Tether

/// The behaviour every ``Tether/CredentialStore`` promises, as a check you can run against your own store.
///
/// ```swift
/// @Test func myStoreHonoursTheContract() async throws {
///     try await StoreContract().verify(MyStore(…))
/// }
/// ```
/// Give it an empty store: it writes, reads, deletes and leases records named `contract-*` and throws a
/// ``Violation`` describing the first broken promise. It does not depend on a test framework.
public struct StoreContract: Sendable {
    /// A broken promise of the store under test.
    public struct Violation: Error, Sendable, CustomStringConvertible {
        /// What the store did wrong.
        public let description: String
    }

    /// How long the lease check waits for a lease that another holder has; it expects a timeout.
    public var shortLeaseTimeout: Duration
    /// How long the lease check waits for a lease that is free or about to be.
    public var longLeaseTimeout: Duration

    /// Creates a contract check.
    /// - Parameters:
    ///   - shortLeaseTimeout: The timeout of an acquire that must time out, measured on the store's clock.
    ///   - longLeaseTimeout: The timeout of an acquire that must succeed.
    public init(shortLeaseTimeout: Duration = .milliseconds(20), longLeaseTimeout: Duration = .seconds(10)) {
        self.shortLeaseTimeout = shortLeaseTimeout
        self.longLeaseTimeout = longLeaseTimeout
    }

    /// Runs every check against `store`.
    /// - Parameter store: An empty store.
    /// - Throws: ``Violation`` at the first broken promise, or what the store threw where it should not have.
    public func verify(_ store: any CredentialStore) async throws {
        try await readOfMissingRecordIsNil(store)
        try await writeThenReadPreservesEveryField(store)
        try await versionsIncreaseByOne(store)
        try await absentPreconditionRejectsExistingRecord(store)
        try await staleVersionIsRejectedAndRecordUnchanged(store)
        try await deleteIsIdempotent(store)
        try await listIsSorted(store)
        try await leaseIsExclusive(store)
    }

    // MARK: Checks

    func readOfMissingRecordIsNil(_ store: any CredentialStore) async throws {
        let found = try await store.read("contract-missing")
        try expect(found == nil, "read of a record never written returned \(found.map { "\($0)" } ?? "nil")")
    }

    func writeThenReadPreservesEveryField(_ store: any CredentialStore) async throws {
        let original = Self.sampleConnection("contract-round-trip")
        let written = try await store.write(original, expecting: .absent)
        try expect(written.version == 1, "the first write returned version \(written.version), expected 1")
        try expect(written == original.withVersion(1), "write returned a record that differs from the one given")
        let read = try await store.read(original.id)
        try expect(read != nil, "read after write returned nil")
        try expect(
            read == written,
            "read after write returned a record that differs from the one written (fields or secrets were lost)"
        )
        // Compare the secrets explicitly too, in case a store's record type ever compares them loosely.
        try expect(
            read?.tokens.accessToken?.revealedValue == original.tokens.accessToken?.revealedValue
                && read?.tokens.refreshToken?.revealedValue == original.tokens.refreshToken?.revealedValue
                && read?.tokens.idToken?.revealedValue == original.tokens.idToken?.revealedValue,
            "read after write returned different secrets"
        )
        try await store.delete(original.id)
    }

    func versionsIncreaseByOne(_ store: any CredentialStore) async throws {
        var record = Self.sampleConnection("contract-versions")
        var expected: UInt64 = 1
        for step in 0..<4 {
            record.metadata["step"] = "\(step)"
            let precondition: WritePrecondition = step == 0 ? .absent : .version(expected - 1)
            let written = try await store.write(record, expecting: precondition)
            try expect(
                written.version == expected,
                "write number \(step + 1) returned version \(written.version), expected \(expected)"
            )
            let read = try await store.read(record.id)
            try expect(
                read?.version == expected,
                "read after write number \(step + 1) returned version \(read.map { "\($0.version)" } ?? "nil")"
            )
            expected += 1
        }
        let unconditional = try await store.write(record, expecting: .any)
        try expect(
            unconditional.version == expected,
            "write(expecting: .any) returned version \(unconditional.version), expected \(expected)"
        )
        try await store.delete(record.id)
    }

    func absentPreconditionRejectsExistingRecord(_ store: any CredentialStore) async throws {
        let record = Self.sampleConnection("contract-absent")
        let first = try await store.write(record, expecting: .absent)
        var second = record
        second.metadata["overwritten"] = "yes"
        try await expectVersionConflict(
            "write(expecting: .absent) over an existing record",
            try await store.write(second, expecting: .absent)
        )
        let read = try await store.read(record.id)
        try expect(read == first, "a refused write(expecting: .absent) changed the record")
        try await expectVersionConflict(
            "write(expecting: .version(1)) of a missing record",
            try await store.write(Self.sampleConnection("contract-never-written"), expecting: .version(1))
        )
        try await store.delete(record.id)
    }

    func staleVersionIsRejectedAndRecordUnchanged(_ store: any CredentialStore) async throws {
        var record = Self.sampleConnection("contract-stale")
        let first = try await store.write(record, expecting: .absent)
        record.metadata["generation"] = "2"
        let second = try await store.write(record, expecting: .version(first.version))
        var stale = record
        stale.metadata["generation"] = "stale"
        try await expectVersionConflict(
            "write(expecting: .version(\(first.version))) when version \(second.version) is stored",
            try await store.write(stale, expecting: .version(first.version))
        )
        let read = try await store.read(record.id)
        try expect(read == second, "a refused stale write changed the record")
        try await store.delete(record.id)
    }

    func deleteIsIdempotent(_ store: any CredentialStore) async throws {
        let record = Self.sampleConnection("contract-delete")
        _ = try await store.write(record, expecting: .absent)
        try await store.delete(record.id)
        let read = try await store.read(record.id)
        try expect(read == nil, "read after delete returned a record")
        try await store.delete(record.id)
        try await store.delete("contract-never-written")
        let listed = try await store.list()
        try expect(!listed.contains(record.id), "list after delete still names the deleted record")
        let rewritten = try await store.write(record, expecting: .absent)
        try expect(rewritten.version >= 1, "write after delete returned version 0")
        try await store.delete(record.id)
    }

    func listIsSorted(_ store: any CredentialStore) async throws {
        let ids: [ConnectionID] = ["contract-list-b", "contract-list-c", "contract-list-a", "contract-list-a.b"]
        for id in ids {
            _ = try await store.write(Self.sampleConnection(id), expecting: .absent)
        }
        let listed = try await store.list()
        try expect(listed == listed.sorted(), "list returned \(listed), which is not sorted")
        let ours = listed.filter { $0.rawValue.hasPrefix("contract-list-") }
        try expect(ours == ids.sorted(), "list returned \(ours) of the records written, expected \(ids.sorted())")
        for id in ids {
            try await store.delete(id)
        }
        let after = try await store.list().filter { $0.rawValue.hasPrefix("contract-list-") }
        try expect(after.isEmpty, "list after deleting every record still returned \(after)")
    }

    func leaseIsExclusive(_ store: any CredentialStore) async throws {
        let id: ConnectionID = "contract-lease"
        let first = try await store.acquireRefreshLease(for: id, timeout: longLeaseTimeout)
        do {
            try await expectLeaseTimeout(
                "a second acquire of a held lease",
                try await store.acquireRefreshLease(for: id, timeout: shortLeaseTimeout)
            )
            // Leases of different connections are independent.
            let other = try await store.acquireRefreshLease(for: "contract-lease-other", timeout: shortLeaseTimeout)
            await other.release()
        } catch {
            await first.release()
            throw error
        }
        await first.release()
        await first.release()
        let second = try await store.acquireRefreshLease(for: id, timeout: longLeaseTimeout)
        await second.release()
    }

    /// Checks that a waiter for a held lease really waits: it starts while `holder` holds the lease, is seen
    /// asleep on `clock` (the clock `waiter` measures lease timeouts on; only a waiting acquire sleeps on it), and
    /// is granted only after the release, by the order of events rather than by timing.
    /// - Parameters:
    ///   - holder: The store whose lease is taken first.
    ///   - waiter: The store that waits for it: the same store, or another over the same records.
    ///   - clock: The clock `waiter` was created with.
    ///   - id: The connection whose lease is used.
    /// - Throws: ``Violation`` when the waiter was granted without waiting, or what the stores threw.
    public static func waiterIsGrantedOnlyAfterRelease(
        holder: any CredentialStore,
        waiter: any CredentialStore,
        clock: ManualClock,
        id: ConnectionID = "contract-lease-waiter"
    ) async throws {
        let events = LockedState<[String]>([])
        let lease = try await holder.acquireRefreshLease(for: id, timeout: .seconds(5))
        let waiting = Task {
            let granted = try await waiter.acquireRefreshLease(for: id, timeout: .seconds(60))
            events.withLock { $0.append("granted") }
            return granted
        }
        let asleep = await clock.waitForSleepers(1, maximumYields: 100_000)
        events.withLock { $0.append("released") }
        await lease.release()
        // Wakes a waiter that polls a lock file; one queued in the same process is handed the lease directly.
        clock.advance(by: .milliseconds(100))
        let granted = try await waiting.value
        await granted.release()
        let order = events.withLock { $0 }
        guard asleep, order == ["released", "granted"] else {
            throw Violation(
                description: "a waiter for a held lease was granted without waiting for the release (events: \(order))"
            )
        }
    }

    // MARK: Helpers

    /// A record with every field set, secrets included.
    /// - Parameter id: The connection.
    /// - Returns: A record that has not been stored (version 0).
    public static func sampleConnection(_ id: ConnectionID) -> Connection {
        Connection(
            id: id,
            account: Account(providerID: "contract", subject: "subject-\(id)", displayIdentifier: "jane@example.com"),
            tokens: TokenSet(
                accessToken: AccessToken("access-\(id)"),
                refreshToken: RefreshToken("refresh-\(id)"),
                idToken: IDToken("header.payload.signature"),
                tokenType: "Bearer",
                scopes: ["openid", "email", "offline_access"],
                receivedAt: Date(timeIntervalSince1970: 1_700_000_000.5),
                expiresAt: Date(timeIntervalSince1970: 1_700_003_600.25)
            ),
            metadata: ["calendar": "primary", "unicode": "zürich ✓"]
        )
    }

    private func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw Violation(description: message()) }
    }

    private func expectVersionConflict(
        _ what: String,
        _ operation: @autoclosure () async throws -> Connection
    ) async throws {
        try await expect(.versionConflict, what, operation) { "returned version \($0.version)" }
    }

    private func expectLeaseTimeout(
        _ what: String,
        _ operation: @autoclosure () async throws -> any RefreshLease
    ) async throws {
        try await expect(.leaseTimeout, what, operation) { lease in
            await lease.release()
            return "was granted"
        }
    }

    /// Requires `operation` to throw `expected`; `outcome` releases and describes what it returned instead.
    private func expect<Value>(
        _ expected: CredentialStoreError,
        _ what: String,
        _ operation: () async throws -> Value,
        outcome: (Value) async -> String
    ) async throws {
        do {
            let result = try await operation()
            throw Violation(description: "\(what) \(await outcome(result)); expected \(expected.details.code)")
        } catch let error as CredentialStoreError where error == expected {
            return
        } catch let violation as Violation {
            throw violation
        } catch {
            throw Violation(description: "\(what) threw \(error) instead of \(expected.details.code)")
        }
    }
}
