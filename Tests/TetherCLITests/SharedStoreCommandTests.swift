import Foundation
import HTTPTypes
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport
import TetherURLSession

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tether` on a PostgreSQL store (`TETHER_STORE`) shared by several machines, each played by a `TETHER_HOME` of
/// its own, against a real server (`Scripts/start-postgres.sh`, which sets `TETHER_POSTGRES_URL`).
@Suite(
    .timeLimit(.minutes(3)),
    .enabled(
        if: ProcessInfo.processInfo.environment["TETHER_POSTGRES_URL"].map { !$0.isEmpty } == true
            || ProcessInfo.processInfo.environment["TETHER_REQUIRE_POSTGRES"] == "1",
        "TETHER_POSTGRES_URL is not set: run `Scripts/start-postgres.sh swift test --filter SharedStoreCommandTests`"
    )
)
struct SharedStoreCommandTests {
    /// A password in the store's URL, which must never be printed (the test cluster trusts loopback and ignores
    /// it).
    static let password = "pg-password-canary-5150"

    @Test func eightMachinesAcrossAnExpiryShareOneRefresh() async throws {
        let cli = try await Self.signedIn(
            DevProvider.Configuration(
                accessTokenLifetime: .seconds(6),
                refreshTokenRotation: true,
                reuseDetection: true,
                reuseGracePeriod: .zero
            )
        )
        defer { Task { await cli.stop() } }
        let first = try await cli.run(["token"])
        #expect(first.status == 0, "\(first.stderr)")
        let machines = try (0..<8).map { _ in try Self.machine(like: cli) }
        defer { for machine in machines { try? FileManager.default.removeItem(at: machine.home) } }
        let before = await cli.provider.admin.counters()

        // Past the expiry; the new token then lives 6 s, far longer than eight processes take to start.
        try await Task.sleep(for: .seconds(6))
        let processes = try machines.map { try $0.launch(["token"]) }
        var results: [CLI.Result] = []
        for process in processes { results.append(try await process.finish(timeout: .seconds(60))) }

        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
        let tokens = Set(results.map(\.trimmedOutput))
        #expect(tokens.count == 1, "the machines printed \(tokens.count) different tokens")
        #expect(!tokens.contains(first.trimmedOutput), "the expired token was printed")
        let after = await cli.provider.admin.counters()
        #expect(after[.refreshes] - before[.refreshes] == 1)
        #expect(after[.reuseDetections] == 0)
        for token in tokens {
            var request = HTTPRequest(method: .get, url: cli.provider.url("/userinfo"))
            request.headerFields[.authorization] = "Bearer \(token)"
            let (response, _) = try await URLSessionTransport().send(request, body: nil)
            #expect(response.status.code == 200, "the provider refused the printed token")
        }
        // No machine kept tokens of its own: its folder holds settings only.
        for machine in machines {
            let records = machine.home.appendingPathComponent("records")
            let files = (try? FileManager.default.contentsOfDirectory(atPath: records.path)) ?? []
            #expect(files.isEmpty, "a machine wrote vault records: \(files)")
        }
    }

    /// `tether token` killed while the provider answers its refresh (rotation, reuse detection, no grace): the
    /// refresh runs in a worker that adopted the lease row, so the rotated refresh token still reaches the store.
    @Test func sigkillDuringARefreshLosesNothing() async throws {
        let cli = try await Self.signedIn(
            DevProvider.Configuration(
                accessTokenLifetime: .seconds(4),
                refreshTokenRotation: true,
                reuseDetection: true,
                reuseGracePeriod: .zero
            )
        )
        defer { Task { await cli.stop() } }
        // Stale after 3 s (the session's leeway is a quarter of the lifetime); the provider then holds token
        // requests for 3 s, so that the test can kill `tether` while the refresh is on its way.
        try await Task.sleep(for: .milliseconds(3500))
        await cli.provider.admin.setLatency(.seconds(3), for: .token)
        let running = try await InterruptedRefreshTests.launchAndCatchMidRefresh(cli)

        kill(running.process.processIdentifier, SIGKILL)
        let result = try await running.finish(timeout: .seconds(30))
        #expect(running.process.terminationReason == .uncaughtSignal)
        #expect(result.status == SIGKILL)

        try await InterruptedRefreshTests.expectTheGrantSurvived(cli)
    }

    @Test func statusNamesTheStoreWithoutItsPassword() async throws {
        let cli = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        let result = try await cli.run(["status", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let row = try #require(rows.first)
        #expect(row["state"] as? String == "connected")
        let store = try #require(row["store"] as? String)
        #expect(store.hasPrefix("postgresql://tether:***@127.0.0.1:"), "\(store)")
        let table = try await cli.run(["status"])
        #expect(table.stdout.contains("Store: postgresql://tether:***@"), "\(table.stdout)")
        for output in [result.stdout, result.stderr, table.stdout, table.stderr] {
            #expect(!output.contains(Self.password))
        }
    }

    @Test func aDatabaseThatIsDownIsStorageUnavailableNotSignedOut() async throws {
        let cli = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        // The same settings and keys, on a port where no server listens.
        let down = cli.with([
            "TETHER_STORE": "postgresql://tether:\(Self.password)@127.0.0.1:\(try Self.closedPort())/tether"
        ])

        let token = try await down.run(["token"])
        #expect(token.status == 4, "\(token.stderr)")
        #expect(token.stdout.isEmpty)
        #expect(token.stderr.contains("credential store cannot be reached"), "\(token.stderr)")
        #expect(!token.stderr.contains("sign"), "\(token.stderr)")
        let verbose = try await down.run(["token", "--verbose"])
        #expect(verbose.status == 4)
        let status = try await down.run(["status", "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
        #expect(rows.first?["state"] as? String == "storage-unavailable", "\(rows)")
        #expect(status.stderr.contains("credential store cannot be reached"), "\(status.stderr)")
        // With no settings to show rows for, status does not say "no connections" but that the store is down.
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("tether-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: empty) }
        let bare = try await CLI(home: empty, provider: cli.provider, extraEnvironment: down.extraEnvironment)
            .run(["status"])
        #expect(bare.status == 4, "\(bare.stderr)")
        #expect(!bare.stderr.contains("No connections"), "\(bare.stderr)")
        for output in [token.stderr, verbose.stderr, status.stdout, status.stderr, bare.stderr] {
            #expect(!output.contains(Self.password), "the URL's password was printed")
        }

        // Nothing was lost: with the database back, the same connection answers.
        let again = try await cli.run(["token"])
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test func aBadStoreURLOrAMissingKeyIsAConfigurationError() async throws {
        let cli = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        let notAURL = try await cli.with(["TETHER_STORE": "mysql://root:\(Self.password)@db/tether"]).run(["token"])
        #expect(notAURL.status == 5, "\(notAURL.stderr)")
        #expect(notAURL.stderr.contains("postgresql://"), "\(notAURL.stderr)")
        let noHost = try await cli.run(["token", "--store", "postgresql://:\(Self.password)@/tether"])
        #expect(noHost.status == 5, "\(noHost.stderr)")
        let noKey = try await cli.with(["TETHER_POSTGRES_KEY": ""]).run(["token"])
        #expect(noKey.status == 5, "\(noKey.stderr)")
        #expect(noKey.stderr.contains("TETHER_POSTGRES_KEY"), "\(noKey.stderr)")
        for output in [notAURL, noHost, noKey].flatMap({ [$0.stdout, $0.stderr] }) {
            #expect(!output.contains(Self.password), "the URL's password was printed")
        }
    }

    // MARK: Helpers

    /// A CLI on the test server's store (a tenant of its own, a password in the URL), signed in with a device code.
    static func signedIn(_ configuration: DevProvider.Configuration = DevProvider.Configuration()) async throws -> CLI {
        let url = try #require(
            ProcessInfo.processInfo.environment["TETHER_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 },
            "TETHER_REQUIRE_POSTGRES=1 but TETHER_POSTGRES_URL is not set"
        )
        let withPassword = url.replacingOccurrences(
            of: "postgresql://tether@",
            with: "postgresql://tether:\(password)@"
        )
        let cli = try await CLI.start(configuration).with([
            "TETHER_STORE": withPassword,
            "TETHER_STORE_TENANT": "cli-\(UUID().uuidString)",
            "TETHER_POSTGRES_KEY": randomKey(),
            "TETHER_VAULT_KEY": randomKey(),
        ])
        let login = try await cli.loginWithDeviceCode()
        #expect(login.status == 0, "login failed: \(login.stderr)")
        return cli
    }

    /// Another machine: a `TETHER_HOME` of its own with the same settings (connections.json, bound to the same
    /// vault key) and the same store.
    static func machine(like cli: CLI) throws -> CLI {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("tether-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: cli.home.appendingPathComponent("connections.json"),
            to: home.appendingPathComponent("connections.json")
        )
        return CLI(home: home, provider: cli.provider, extraEnvironment: cli.extraEnvironment)
    }

    static func randomKey() -> String {
        Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    /// A loopback port that was free a moment ago and has no listener.
    static func closedPort() throws -> Int {
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, stream, 0)
        try #require(descriptor >= 0, "could not open a socket")
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        try #require(bound, "could not find a free port")
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
