import Foundation
public import Logging
public import PostgresNIO
public import Tether

/// A ``Tether/CredentialStore`` in a PostgreSQL database, shared by every process and machine that connects to it.
///
/// Records are kept in the table `tether_credentials`, keyed by tenant and connection identifier, each sealed
/// with AES-GCM in the vault's record format (see <doc:ThreatModel>): a dump of the database, a replica or a
/// backup holds no usable token. Writes are a compare-and-swap on the record's version. The refresh lease is a
/// row in `tether_refresh_leases` with an expiry judged by the database's clock: its holder renews it while it
/// holds it, and the lease of a worker that crashed lapses after ``Configuration/leaseDuration``.
///
/// The store creates and migrates its tables on first use (or when you call ``migrate()``), under an advisory
/// lock, so that many workers may start at once.
///
/// ```swift
/// let client = PostgresClient(configuration: …, backgroundLogger: logger)
/// let store = PostgresStore(client: client, configuration: .init(tenant: "calendar-sync", key: key))
/// // Run the client for as long as the store is used (a ServiceGroup, or a task group):
/// async let _ = client.run()
/// ```
///
/// A database that cannot be reached throws ``Tether/CredentialStoreError/unavailable`` (a ``Tether/Session``
/// reports it as storage unavailable, never as signed out); a serialization failure or deadlock is retried.
public final class PostgresStore: CredentialStore {
    /// How the store names its records, seals them and leases refreshes.
    public struct Configuration: Sendable {
        /// The tenant whose records this store reads and writes; stores of different tenants share the tables
        /// but never see each other's records.
        public var tenant: String
        /// The key that seals every record written.
        public var key: VaultKey
        /// Earlier keys: records sealed with them stay readable and are sealed with ``key`` on their next write.
        public var previousKeys: [VaultKey]
        /// How long a refresh lease lasts unless renewed; its holder renews it every third of this while it
        /// holds it. A worker that crashed keeps its leases this long at most.
        public var leaseDuration: Duration
        /// How long one database operation may take before the store reports the database unavailable.
        public var operationTimeout: Duration
        /// The longest pause between two attempts to take a lease that another worker holds.
        public var leasePollInterval: Duration

        /// Creates a configuration.
        /// - Parameters:
        ///   - tenant: The tenant; 1 to 200 characters.
        ///   - key: The key that seals records.
        ///   - previousKeys: Earlier keys, still accepted for reading.
        ///   - leaseDuration: The life of an unrenewed refresh lease (at least 1 second).
        ///   - operationTimeout: The time limit of one database operation.
        ///   - leasePollInterval: The longest pause between attempts to take a held lease.
        public init(
            tenant: String = "default",
            key: VaultKey,
            previousKeys: [VaultKey] = [],
            leaseDuration: Duration = .seconds(30),
            operationTimeout: Duration = .seconds(10),
            leasePollInterval: Duration = .milliseconds(200)
        ) {
            self.tenant = tenant
            self.key = key
            self.previousKeys = previousKeys
            self.leaseDuration = leaseDuration
            self.operationTimeout = operationTimeout
            self.leasePollInterval = leasePollInterval
        }
    }

    let client: PostgresClient
    let configuration: Configuration
    let clock: any Clock<Duration>
    let logger: Logger
    let schema = SchemaGate()

    /// Creates a store over a connection pool.
    /// - Parameters:
    ///   - client: The pool; run it (`client.run()`) for as long as the store is used.
    ///   - configuration: The tenant, the keys and the lease settings.
    ///   - clock: The clock of lease waits, renewals and operation time limits.
    ///   - logger: Where the store logs (never a secret); the task's logger (`Logger.current`) by default.
    /// - Throws: ``Tether/CredentialStoreError/invalidConfiguration`` when the tenant is empty or longer than
    ///   200 characters, or the lease duration is shorter than 1 second.
    public init(
        client: PostgresClient,
        configuration: Configuration,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current
    ) throws {
        guard !configuration.tenant.isEmpty, configuration.tenant.count <= 200 else {
            throw CredentialStoreError.invalidConfiguration.with(message: "A tenant has 1 to 200 characters")
        }
        guard configuration.leaseDuration >= .seconds(1) else {
            throw CredentialStoreError.invalidConfiguration.with(message: "A lease lasts at least 1 second")
        }
        self.client = client
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
    }

    var tenant: String { configuration.tenant }

    // MARK: CredentialStore

    public func read(_ id: ConnectionID) async throws -> Connection? {
        try await prepare()
        let tenant = self.tenant
        let client = self.client
        let logger = self.logger
        let row: (Int64, Data)? = try await perform("read \(id)") {
            let rows = try await client.query(
                "SELECT version, record FROM tether_credentials WHERE tenant = \(tenant) AND connection_id = \(id.rawValue)",
                logger: logger
            )
            for try await (version, record) in rows.decode((Int64, Data).self) {
                return (version, record)
            }
            return nil
        }
        guard let (version, sealed) = row else { return nil }
        let connection = try open(sealed, id: id)
        guard connection.version == UInt64(version) else {
            throw CredentialStoreError.corrupted.with(
                message: "The stored record of \(id) does not match its version column"
            )
        }
        return connection
    }

    public func write(_ connection: Connection, expecting precondition: WritePrecondition) async throws -> Connection {
        try await prepare()
        if precondition == .absent { return try await insert(connection) }
        if let expected = precondition.expectedVersion { return try await update(connection, from: expected) }
        // `.any`: a compare-and-swap on whatever is stored now, again if another writer got there first.
        var attempts = 0
        while true {
            attempts += 1
            let stored = try await storedVersion(connection.id)
            do {
                if let stored { return try await update(connection, from: stored) }
                return try await insert(connection)
            } catch let error as CredentialStoreError where error == .versionConflict && attempts < 8 {
                continue
            }
        }
    }

    public func delete(_ id: ConnectionID) async throws {
        try await prepare()
        let tenant = self.tenant
        let client = self.client
        let logger = self.logger
        try await perform("delete \(id)") {
            _ = try await client.query(
                "DELETE FROM tether_credentials WHERE tenant = \(tenant) AND connection_id = \(id.rawValue)",
                logger: logger
            )
        }
    }

    public func list() async throws -> [ConnectionID] {
        try await prepare()
        let tenant = self.tenant
        let client = self.client
        let logger = self.logger
        let names = try await perform("list") {
            let rows = try await client.query(
                "SELECT connection_id FROM tether_credentials WHERE tenant = \(tenant)",
                logger: logger
            )
            var names: [String] = []
            for try await name in rows.decode(String.self) { names.append(name) }
            return names
        }
        return names.map { ConnectionID($0) }.sorted()
    }

    // MARK: Writes

    private func insert(_ connection: Connection) async throws -> Connection {
        let record = connection.withVersion(1)
        let sealed = try seal(record)
        let tenant = self.tenant
        let client = self.client
        let logger = self.logger
        let keyID = configuration.key.identifier.hexString
        let schedule = RefreshSchedule(connection.tokens)
        let inserted = try await perform("insert \(connection.id)") {
            let rows = try await client.query(
                """
                INSERT INTO tether_credentials (tenant, connection_id, version, key_id, record,
                    access_received_at, access_expires_at, sign_in_reason, sign_in_marked_at)
                VALUES (\(tenant), \(connection.id.rawValue), 1, \(keyID), \(sealed),
                    \(schedule.receivedAt), \(schedule.expiresAt), \(schedule.endedReason),
                    CASE WHEN \(schedule.endedReason)::text IS NULL THEN NULL ELSE now() END)
                ON CONFLICT (tenant, connection_id) DO NOTHING RETURNING version
                """,
                logger: logger
            )
            for try await _ in rows { return true }
            return false
        }
        guard inserted else {
            throw CredentialStoreError.versionConflict.with(message: "A record of \(connection.id) already exists")
        }
        return record
    }

    private func update(_ connection: Connection, from expected: UInt64) async throws -> Connection {
        guard expected < UInt64(Int64.max) else {
            throw CredentialStoreError.versionConflict.with(message: "No stored record has version \(expected)")
        }
        let record = connection.withVersion(expected + 1)
        let sealed = try seal(record)
        let tenant = self.tenant
        let client = self.client
        let logger = self.logger
        let keyID = configuration.key.identifier.hexString
        let (old, new) = (Int64(expected), Int64(expected + 1))
        let schedule = RefreshSchedule(connection.tokens)
        let updated = try await perform("update \(connection.id)") {
            let rows = try await client.query(
                """
                UPDATE tether_credentials SET version = \(new), key_id = \(keyID), record = \(sealed),
                    updated_at = now(), claimed_until = NULL,
                    access_received_at = \(schedule.receivedAt), access_expires_at = \(schedule.expiresAt),
                    sign_in_reason = CASE WHEN \(schedule.canRefresh) THEN NULL
                        ELSE coalesce(sign_in_reason, \(schedule.endedReason)) END,
                    sign_in_marked_at = CASE WHEN \(schedule.canRefresh) THEN NULL
                        WHEN sign_in_reason IS NULL AND \(schedule.endedReason)::text IS NOT NULL THEN now()
                        ELSE sign_in_marked_at END
                WHERE tenant = \(tenant) AND connection_id = \(connection.id.rawValue) AND version = \(old)
                RETURNING version
                """,
                logger: logger
            )
            for try await _ in rows { return true }
            return false
        }
        guard updated else {
            throw CredentialStoreError.versionConflict.with(
                message: "The record of \(connection.id) is not at version \(expected)"
            )
        }
        return record
    }

    private func storedVersion(_ id: ConnectionID) async throws -> UInt64? {
        let tenant = self.tenant
        let client = self.client
        let logger = self.logger
        return try await perform("read the version of \(id)") {
            let rows = try await client.query(
                "SELECT version FROM tether_credentials WHERE tenant = \(tenant) AND connection_id = \(id.rawValue)",
                logger: logger
            )
            for try await version in rows.decode(Int64.self) { return UInt64(version) }
            return nil
        }
    }
}

extension Data {
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
