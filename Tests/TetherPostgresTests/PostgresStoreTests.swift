import Foundation
import Logging
import PostgresNIO
import Testing
import Tether
import TetherPostgres
import TetherTestSupport
import TetherTesting

/// `PostgresStore` against a real PostgreSQL server (`Scripts/start-postgres.sh`). Serialized: one test stops
/// the server.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isEnabled, PostgresTestDatabase.skipMessage))
struct PostgresStoreTests {
    typealias Database = PostgresTestDatabase

    @Test func storeHonoursTheContract() async throws {
        try await Database.withStore(tenant: Database.uniqueTenant(), key: .generate()) { store, _ in
            try await StoreContract(shortLeaseTimeout: .milliseconds(50)).verify(store)
        }
    }

    @Test func tenantsDoNotSeeEachOthersRecords() async throws {
        let key = VaultKey.generate()
        let (first, second) = (Database.uniqueTenant(), Database.uniqueTenant())
        try await Database.withStore(tenant: first, key: key) { store, _ in
            try await store.write(Database.connection("shared-id", canary: "first"))
        }
        let (read, listed) = try await Database.withStore(tenant: second, key: key) { store, _ in
            (try await store.read("shared-id"), try await store.list())
        }
        #expect(read == nil)
        #expect(listed == [])
    }

    @Test func recordMovedToAnotherTenantDoesNotOpen() async throws {
        let key = VaultKey.generate()
        let (first, second) = (Database.uniqueTenant(), Database.uniqueTenant())
        try await Database.withStore(tenant: first, key: key) { store, client in
            try await store.write(Database.connection("moved", canary: "moved"))
            try await client.query(
                """
                INSERT INTO tether_credentials (tenant, connection_id, version, key_id, record)
                SELECT \(second), connection_id, version, key_id, record FROM tether_credentials
                WHERE tenant = \(first) AND connection_id = 'moved'
                """
            )
        }
        try await Database.withStore(tenant: second, key: key) { store, _ in
            await #expect(throws: CredentialStoreError.corrupted) { try await store.read("moved") }
        }
    }

    @Test func twoWorkersRacingForTheLeaseGetOneHolder() async throws {
        let tenant = Database.uniqueTenant()
        let key = VaultKey.generate()
        try await Database.withStore(tenant: tenant, key: key) { first, _ in
            try await Database.withStore(tenant: tenant, key: key) { second, _ in
                for round in 0..<10 {
                    let id = ConnectionID("race-\(round)")
                    async let a = Self.tryLease(first, id)
                    async let b = Self.tryLease(second, id)
                    let leases = await [a, b].compactMap { $0 }
                    #expect(leases.count == 1, "round \(round): \(leases.count) holders")
                    for lease in leases { await lease.release() }
                }
            }
        }
    }

    /// The lease, or `nil` when another holder kept it for 500 ms.
    static func tryLease(_ store: PostgresStore, _ id: ConnectionID) async -> (any RefreshLease)? {
        try? await store.acquireRefreshLease(for: id, timeout: .milliseconds(500))
    }

    @Test func holderRenewsItsLeaseWhileHoldingIt() async throws {
        let tenant = Database.uniqueTenant()
        let key = VaultKey.generate()
        try await Database.withStore(tenant: tenant, key: key, leaseDuration: .seconds(2)) { holder, _ in
            try await Database.withStore(tenant: tenant, key: key, leaseDuration: .seconds(2)) { other, _ in
                let lease = try await holder.acquireRefreshLease(for: "renewed", timeout: .seconds(5))
                // Three lease durations: without renewal the lease would have lapsed twice over.
                await #expect(throws: CredentialStoreError.leaseTimeout) {
                    try await other.acquireRefreshLease(for: "renewed", timeout: .seconds(6))
                }
                await lease.release()
                let next = try await other.acquireRefreshLease(for: "renewed", timeout: .seconds(5))
                await next.release()
            }
        }
    }

    @Test func leaseOfAKilledWorkerLapsesAndAnotherTakesIt() async throws {
        let url = try Database.requireURL()
        let tenant = Database.uniqueTenant()
        let key = VaultKey.generate()
        try await Database.withStore(tenant: tenant, key: key, leaseDuration: .seconds(2)) { store, _ in
            let written = try await store.write(Database.connection("crashed", canary: "crashed"))
            let probe = try ProbeProcess.launch(["hold-postgres-lease", url, tenant, "crashed", "2"])
            defer { probe.kill() }
            #expect(try await probe.waitForLine("held", timeout: .seconds(60)))
            await #expect(throws: CredentialStoreError.leaseTimeout) {
                try await store.acquireRefreshLease(for: "crashed", timeout: .milliseconds(300))
            }
            probe.kill()
            let lease = try await store.acquireRefreshLease(for: "crashed", timeout: .seconds(30))
            #expect(try await store.read("crashed") == written)
            await lease.release()
        }
    }

    @Test func recordsAreSealedInTheDatabase() async throws {
        let tenant = Database.uniqueTenant()
        let canary = "canary-\(UUID().uuidString)"
        try await Database.withStore(tenant: tenant, key: .generate()) { store, client in
            try await store.write(Database.connection("sealed", canary: canary))
            let rows = try await client.query(
                "SELECT tenant, connection_id, version, key_id, record FROM tether_credentials WHERE tenant = \(tenant)"
            )
            var dumped = Data()
            for try await (tenant, id, _, keyID, record) in rows.decode((String, String, Int64, String, Data).self) {
                dumped.append(contentsOf: (tenant + id + keyID).utf8)
                dumped.append(record)
            }
            #expect(!dumped.isEmpty)
            #expect(!Self.contains(dumped, canary))
        }
        let dump = try Self.pgDump(table: "tether_credentials")
        #expect(String(decoding: dump, as: UTF8.self).contains(tenant))
        #expect(!Self.contains(dump, canary))
    }

    /// Whether `data` holds `text`, as is or base64-encoded.
    static func contains(_ data: Data, _ text: String) -> Bool {
        let raw = Data(text.utf8)
        return data.range(of: raw) != nil || data.range(of: Data(raw.base64EncodedString().prefix(20).utf8)) != nil
    }

    /// `pg_dump --data-only` of one table, as an operator would take it.
    static func pgDump(table: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["pg_dump", "--data-only", "--table", table, try Database.requireURL()]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "pg_dump failed")
        return data
    }

    @Test func recordSealedWithAnOldKeyIsReadAndResealedOnWrite() async throws {
        let tenant = Database.uniqueTenant()
        let (old, new) = (VaultKey.generate(), VaultKey.generate())
        let written = try await Database.withStore(tenant: tenant, key: old) { store, _ in
            try await store.write(Database.connection("rotated", canary: "rotated"))
        }
        try await Database.withStore(tenant: tenant, key: new) { store, _ in
            await #expect(throws: CredentialStoreError.wrongKey) { try await store.read("rotated") }
        }
        try await Database.withStore(tenant: tenant, key: new, previousKeys: [old]) { store, client in
            #expect(try await Self.keyID(client, tenant, "rotated") == Self.hex(old))
            let read = try #require(try await store.read("rotated"))
            #expect(read == written)
            _ = try await store.write(read, expecting: .version(read.version))
            #expect(try await Self.keyID(client, tenant, "rotated") == Self.hex(new))
        }
        let reread = try await Database.withStore(tenant: tenant, key: new) { store, _ in
            try await store.read("rotated")
        }
        #expect(reread?.version == 2)
    }

    static func keyID(_ client: PostgresClient, _ tenant: String, _ id: String) async throws -> String? {
        let rows = try await client.query(
            "SELECT key_id FROM tether_credentials WHERE tenant = \(tenant) AND connection_id = \(id)"
        )
        for try await keyID in rows.decode(String.self) { return keyID }
        return nil
    }

    /// The hexadecimal key identifier of `key`, as the vault's record header holds it.
    static func hex(_ key: VaultKey) throws -> String {
        let sealed = try VaultRecordFormat.seal(plaintext: Data(), id: "probe", key: key)
        return try #require(VaultRecordFormat.keyIdentifier(of: sealed)).map { String(format: "%02x", $0) }.joined()
    }

    @Test func workersStartingTogetherMigrateOnce() async throws {
        let url = try Database.requireURL()
        let name = "tether_migrate_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        try await Database.withClient { client in
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        }
        let fresh = try #require(URLComponents(string: url)).with(path: "/\(name)")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await Database.withClient(url: fresh) { client in
                        let store = try PostgresStore(client: client, configuration: .init(key: .generate()))
                        try await store.migrate()
                        #expect(try await store.list() == [])
                    }
                }
            }
            try await group.waitForAll()
        }
        let versions = try await Database.withClient(url: fresh) { client in
            var versions: [Int32] = []
            let rows = try await client.query("SELECT version FROM tether_schema_migrations ORDER BY version")
            for try await version in rows.decode(Int32.self) { versions.append(version) }
            return versions
        }
        #expect(versions == [1, 2])
        try await Database.withClient { client in
            try await client.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name)"))
        }
    }
}

extension URLComponents {
    fileprivate func with(path: String) -> String {
        var copy = self
        copy.path = path
        return copy.string ?? ""
    }
}
