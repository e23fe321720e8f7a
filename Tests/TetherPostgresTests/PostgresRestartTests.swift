import Foundation
import Testing
import Tether
import TetherPostgres

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
