import Foundation
import PostgresNIO
import Testing
import Tether
import TetherPostgres
import TetherTesting

#if canImport(Glibc)
import Glibc
#endif

extension PostgresStoreTests {
    /// Stops the server under a store and starts it again: the store reports the database unavailable (never
    /// "no record"), then works again on its same pool. Needs the cluster's `pg_ctl` and data folder, which
    /// `Scripts/start-postgres.sh` exports.
    @Test func storeReportsUnavailableWhileTheDatabaseIsDownAndRecovers() async throws {
        let environment = Database.environment
        let pgCtl = try #require(environment["TETHER_POSTGRES_PG_CTL"], "TETHER_POSTGRES_PG_CTL is not set")
        let data = try #require(environment["TETHER_POSTGRES_DATA"], "TETHER_POSTGRES_DATA is not set")
        let tenant = Database.uniqueTenant()
        try await Database.withStore(tenant: tenant, key: .generate(), operationTimeout: .seconds(3)) { store, _ in
            let written = try await store.write(Database.connection("offline", canary: "offline"))
            var restarted = false
            defer {
                if !restarted { try? Self.pgCtl(pgCtl, ["-D", data, "-w", "-l", data + "/restart.log", "start"]) }
            }
            try Self.pgCtl(pgCtl, ["-D", data, "-m", "fast", "-w", "stop"])

            await #expect(throws: CredentialStoreError.unavailable) { try await store.read("offline") }
            await #expect(throws: CredentialStoreError.unavailable) {
                try await store.write(written, expecting: .version(written.version))
            }
            await #expect(throws: CredentialStoreError.unavailable) {
                try await store.acquireRefreshLease(for: "offline", timeout: .seconds(1))
            }

            try Self.pgCtl(pgCtl, ["-D", data, "-w", "-l", data + "/restart.log", "start"])
            restarted = true
            // The pool reconnects on demand; the first attempts may still meet connections the stop closed.
            var read: Connection?
            for _ in 0..<50 where read == nil {
                read = try? await store.read("offline")
                if read == nil { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(read == written)
            #expect(try await store.write(written, expecting: .version(1)).version == 2)
        }
    }

    /// A session over the store while the database goes away: it says storage unavailable, never signed out, sends
    /// no refresh it could not store, and refreshes once the database is back.
    @Test func sessionReportsStorageUnavailableWhileTheDatabaseIsDown() async throws {
        let environment = Database.environment
        let pgCtl = try #require(environment["TETHER_POSTGRES_PG_CTL"], "TETHER_POSTGRES_PG_CTL is not set")
        let data = try #require(environment["TETHER_POSTGRES_DATA"], "TETHER_POSTGRES_DATA is not set")
        let tenant = Database.uniqueTenant()
        try await Database.withStore(tenant: tenant, key: .generate(), operationTimeout: .seconds(3)) { store, _ in
            try await store.write(Database.connection("session", canary: "session"))
            let refreshes = LockedState(0)
            let refresher = StubRefresher { _ in
                refreshes.withLock { $0 += 1 }
                return TokenResponse(
                    accessToken: AccessToken("access-after-restart"),
                    refreshToken: RefreshToken("refresh-after-restart"),
                    expiresIn: .seconds(3600)
                )
            }
            let session = Session(
                id: "session",
                store: store,
                refresher: refresher,
                configuration: Session.Configuration(retry: Backoff(maximumAttempts: 1))
            )
            // The tokens expired long ago: restoring may refresh them, with the database up.
            #expect(await session.restore().isConnected)
            let refreshesBefore = refreshes.withLock { $0 }

            var restarted = false
            defer {
                if !restarted { try? Self.pgCtl(pgCtl, ["-D", data, "-w", "-l", data + "/restart.log", "start"]) }
            }
            try Self.pgCtl(pgCtl, ["-D", data, "-m", "fast", "-w", "stop"])
            // A refresh needs the store's lease.
            await #expect(throws: SessionError.storageUnavailable) { try await session.forceRefresh() }
            guard case .storageUnavailable(let problem) = await session.status else {
                Issue.record("the session says \(await session.status), not storage unavailable")
                return
            }
            #expect(problem == .unavailable)
            #expect(refreshes.withLock { $0 } == refreshesBefore, "a refresh was sent that could not be stored")
            // A session that starts while the database is down says the same.
            let starting = Session(id: "session", store: store, refresher: refresher)
            guard case .storageUnavailable = await starting.restore() else {
                Issue.record("a restoring session says \(await starting.status), not storage unavailable")
                return
            }

            try Self.pgCtl(pgCtl, ["-D", data, "-w", "-l", data + "/restart.log", "start"])
            restarted = true
            // The pool reconnects on demand; the first attempts may still meet connections the stop closed.
            var token: AccessToken?
            for _ in 0..<50 where token == nil {
                token = try? await session.forceRefresh()
                if token == nil { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(token == AccessToken("access-after-restart"))
            #expect(refreshes.withLock { $0 } == refreshesBefore + 1)
            #expect(try await store.read("session")?.tokens.accessToken == AccessToken("access-after-restart"))
        }
    }

    /// The connection under a write is cut while its statement runs (another transaction holds the row, and the
    /// server ends the waiting backend, as a failover or an administrator's `pg_terminate_backend` does): the write
    /// fails as the database being unavailable, the record is the one before it, and the pool's next write works.
    @Test func aConnectionCutInTheMiddleOfAWriteIsUnavailableAndChangesNothing() async throws {
        let tenant = Database.uniqueTenant()
        try await Database.withStore(tenant: tenant, key: .generate(), operationTimeout: .seconds(5)) { store, _ in
            let written = try await store.write(Database.connection("cut", canary: "cut"))
            let changed = {
                var record = written
                record.tokens = Database.connection("cut", canary: "changed").tokens
                return record
            }()
            try await Database.withClient { admin in
                try await admin.withConnection { holder in
                    try await holder.query("BEGIN", logger: Database.quietLogger)
                    try await holder.query(
                        "SELECT 1 FROM tether_credentials WHERE tenant = \(tenant) AND connection_id = 'cut' FOR UPDATE",
                        logger: Database.quietLogger
                    )
                    let write = Task { try await store.write(changed, expecting: .version(written.version)) }
                    // Wait until the write's backend waits for the row, then end that backend.
                    var ended = 0
                    for _ in 0..<100 where ended == 0 {
                        try await Task.sleep(for: .milliseconds(50))
                        ended = try await Self.endBackendsBlocked(by: holder)
                    }
                    #expect(ended >= 1, "the write never waited for the row")
                    await #expect(throws: CredentialStoreError.unavailable) { try await write.value }
                    // A retry by the store may be waiting again; end it before the row is let go.
                    _ = try await Self.endBackendsBlocked(by: holder)
                    try await holder.query("ROLLBACK", logger: Database.quietLogger)
                }
            }
            #expect(try await store.read("cut") == written)
            let next = try await store.write(changed, expecting: .version(written.version))
            #expect(next.version == written.version + 1)
            #expect(try await store.read("cut")?.tokens.accessToken == AccessToken("access-changed"))
        }
    }

    /// Ends every backend that waits for a lock `connection`'s transaction holds; returns how many.
    static func endBackendsBlocked(by connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            """
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
            WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))
            """,
            logger: Database.quietLogger
        )
        var count = 0
        for try await ended in rows.decode(Int.self) { count = ended }
        return count
    }

    /// Runs the cluster's `pg_ctl` and waits for it. Spawned and reaped directly rather than through `Process`,
    /// whose exit monitoring here missed the exit of a `pg_ctl start` that leaves a server running behind it.
    static func pgCtl(_ path: String, _ arguments: [String]) throws {
        let command = ([path] + arguments).map { "'\($0)'" }.joined(separator: " ") + " </dev/null >/dev/null 2>&1"
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(command), nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ)
        try #require(spawned == 0, "could not start pg_ctl")
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        try #require(status == 0, "pg_ctl \(arguments.last ?? "") failed")
    }
}
