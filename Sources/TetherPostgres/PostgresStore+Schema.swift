import Logging
import PostgresNIO
import Tether

extension PostgresStore {
    /// A step of the schema; steps run in order, each once, recorded in `tether_schema_migrations`.
    struct Migration: Sendable {
        let version: Int32
        let statements: [String]
    }

    /// The schema's steps. Add new steps at the end; never change a step that has shipped.
    static let migrations: [Migration] = [
        Migration(
            version: 1,
            statements: [
                """
                CREATE TABLE tether_credentials (
                    tenant text NOT NULL,
                    connection_id text NOT NULL,
                    version bigint NOT NULL CHECK (version > 0),
                    key_id text NOT NULL,
                    record bytea NOT NULL,
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (tenant, connection_id)
                )
                """,
                """
                CREATE TABLE tether_refresh_leases (
                    tenant text NOT NULL,
                    connection_id text NOT NULL,
                    holder text NOT NULL,
                    expires_at timestamptz NOT NULL,
                    PRIMARY KEY (tenant, connection_id)
                )
                """,
            ]
        ),
        // What the refresh scheduler needs, kept up to date by every write: when the access token was received
        // and expires (only for records with a refresh token, the ones it can refresh), a worker's claim, and the
        // mark of a grant that ended.
        Migration(
            version: 2,
            statements: [
                """
                ALTER TABLE tether_credentials
                    ADD COLUMN access_received_at timestamptz,
                    ADD COLUMN access_expires_at timestamptz,
                    ADD COLUMN claimed_until timestamptz,
                    ADD COLUMN sign_in_reason text,
                    ADD COLUMN sign_in_marked_at timestamptz
                """,
                """
                CREATE INDEX tether_credentials_refresh_due ON tether_credentials (tenant, access_expires_at)
                    WHERE access_expires_at IS NOT NULL
                """,
                """
                CREATE INDEX tether_credentials_sign_in ON tether_credentials (tenant)
                    WHERE sign_in_reason IS NOT NULL
                """,
            ]
        ),
    ]

    /// The advisory lock key that serializes migrations across workers (an arbitrary constant: "tether" in ASCII).
    static let migrationLockKey: Int64 = 0x7465_7468_6572

    /// Creates or migrates the store's tables. Operations do this on first use; call it at start-up to find a
    /// database problem early. Safe to run from many workers at once: they take turns under an advisory lock,
    /// and each step runs once.
    /// - Throws: ``Tether/CredentialStoreError/unavailable`` when the database cannot be reached, or
    ///   ``Tether/CredentialStoreError/io`` when a step fails (the transaction is rolled back).
    public func migrate() async throws {
        try await schema.ensure { try await runMigrations() }
    }

    func prepare() async throws {
        try await migrate()
    }

    private func runMigrations() async throws {
        let client = self.client
        let logger = self.logger
        try await perform("migrate the schema") {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLockKey))", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS tether_schema_migrations (
                        version integer PRIMARY KEY,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """,
                    logger: logger
                )
                var current: Int32 = 0
                let rows = try await connection.query(
                    "SELECT coalesce(max(version), 0) FROM tether_schema_migrations",
                    logger: logger
                )
                for try await version in rows.decode(Int32.self) { current = version }
                for migration in Self.migrations where migration.version > current {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        "INSERT INTO tether_schema_migrations (version) VALUES (\(migration.version))",
                        logger: logger
                    )
                    logger.info("Migrated the credential tables", metadata: ["version": "\(migration.version)"])
                }
            }
        }
    }
}
