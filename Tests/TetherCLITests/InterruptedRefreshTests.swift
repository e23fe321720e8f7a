import Foundation
import Testing
import Tether
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tether token` killed while the provider answers its refresh, against a provider that rotates refresh tokens
/// with reuse detection and no grace period: the rotated token must reach the vault all the same.
///
/// To catch the process exactly between the provider's rotation and the vault write, the test stops it (`SIGSTOP`)
/// while the provider holds the refresh request (a latency fault), waits until the provider has rotated the token
/// and answered, and only then sends the signal. A refresh run inside the stopped process would never see the
/// answer.
@Suite(.timeLimit(.minutes(3)))
struct InterruptedRefreshTests {
    @Test func sigtermDuringARefreshEndsTheProcessOnlyAfterTheWrite() async throws {
        let (cli, before) = try await Self.signedInWithAStaleToken()
        defer { Task { await cli.stop() } }
        let running = try await Self.launchAndCatchMidRefresh(cli)

        kill(running.process.processIdentifier, SIGTERM)
        kill(running.process.processIdentifier, SIGCONT)
        let result = try await running.finish(timeout: .seconds(30))
        #expect(running.process.terminationReason == .uncaughtSignal, "exited \(result.status): \(result.stderr)")
        #expect(result.status == SIGTERM, "a shell reports 128 + \(result.status)")
        // Already in the vault when the process ended.
        let stored = try #require(try await Self.vault(cli).read("dev"))
        #expect(stored.tokens.refreshToken != before.tokens.refreshToken, "the rotated refresh token was not stored")

        try await Self.expectTheGrantSurvived(cli)
    }

    @Test func sigkillDuringARefreshLosesNothing() async throws {
        let (cli, _) = try await Self.signedInWithAStaleToken()
        defer { Task { await cli.stop() } }
        let running = try await Self.launchAndCatchMidRefresh(cli)

        kill(running.process.processIdentifier, SIGKILL)
        let result = try await running.finish(timeout: .seconds(30))
        #expect(running.process.terminationReason == .uncaughtSignal)
        #expect(result.status == SIGKILL)

        try await Self.expectTheGrantSurvived(cli)
        // The worker, its caller gone, stores the tokens, fails to write its answer to the closed pipe and exits at
        // once: it must not crash and hold the lease while a backtrace is written.
        for _ in 0..<100 where Self.workerProcess(home: cli.home) != nil {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(Self.workerProcess(home: cli.home) == nil, "the refresh worker was still running 5 s later")
    }

    @Test func sigtermOutsideARefreshEndsTheProcessAtOnce() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        // `tether request` to a resource that answers slowly: a fresh token, no refresh, no lease.
        await cli.provider.admin.setLatency(.seconds(20), for: .resource)
        let running = try cli.launch(["request", cli.provider.url("/resource").absoluteString])
        try await Self.waitUntil { await cli.provider.admin.counters().requests(to: .resource) == 1 }
        kill(running.process.processIdentifier, SIGTERM)
        let result = try await running.finish(timeout: .seconds(10))
        #expect(running.process.terminationReason == .uncaughtSignal)
        #expect(result.status == SIGTERM)
    }

    @Test func theWorkerGetsTheVaultKeyThroughAPipeAndNoSecretInItsArgumentsOrEnvironment() async throws {
        let key = VaultKey.generate().revealedBase64
        let cli = try await CLI.start(DevProvider.Configuration(accessTokenLifetime: .seconds(4)))
            .with(["TETHER_VAULT_KEY": key, "TETHER_CLIENT_SECRET": "not-for-the-worker"])
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        try await Task.sleep(for: .milliseconds(3500))
        await cli.provider.admin.setLatency(.seconds(2), for: .token)
        let requestsBefore = await cli.provider.admin.counters().requests(to: .token)
        let running = try cli.launch(["token"])
        try await Self.waitUntil { await cli.provider.admin.counters().requests(to: .token) > requestsBefore }
        let worker = try #require(Self.workerProcess(home: cli.home), "no refresh worker is running")
        #expect(!worker.arguments.contains(key))
        #expect(worker.arguments.contains("refresh-worker"))
        #expect(!worker.environment.contains { $0.hasPrefix("TETHER_") })
        #expect(!worker.environment.contains { $0.contains(key) })
        let result = try await running.finish(timeout: .seconds(30))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(await cli.provider.admin.counters()[.refreshes] == 1)
        // The worker opened the vault with the key it was given: the record it wrote opens with that key.
        let vault = try VaultStore(directory: cli.home, key: try VaultKey(base64: key), environment: [:])
        #expect(try await vault.read("dev")?.tokens.accessToken?.revealedValue == result.trimmedOutput)
    }

    @Test func refreshFailuresInTheWorkerKeepTheirExitStatusesAndMessages() async throws {
        let cli = try await CLI.start(DevProvider.Configuration(accessTokenLifetime: .seconds(4)))
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        try await Task.sleep(for: .milliseconds(3500))

        await cli.provider.admin.failNext(20, requestsTo: .token)
        let offline = try await cli.run(["token"])
        #expect(offline.status == 4, "\(offline.stderr)")
        #expect(offline.stderr.contains("try again when the provider can be reached"), "\(offline.stderr)")
        #expect(await cli.provider.admin.counters().requests(to: .token) > 2, "the caller's retries stopped")

        await cli.provider.admin.setFaults(DevProvider.Faults())
        _ = await cli.provider.admin.revokeAllGrants()
        let revoked = try await cli.run(["token"])
        #expect(revoked.status == 3, "\(revoked.stderr)")
        #expect(revoked.stderr.contains("needs sign-in again"), "\(revoked.stderr)")
        let status = try await cli.status()
        #expect(status.first?["state"] as? String == "needs-sign-in")
    }

    // MARK: Helpers

    /// The command line and environment of the refresh worker running for the vault at `home` (Linux `/proc`).
    static func workerProcess(home: URL) -> (arguments: [String], environment: [String])? {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { Int32($0) } ?? []
        for pid in pids {
            func strings(_ file: String) -> [String] {
                guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/\(file)") else { return [] }
                return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            }
            let arguments = strings("cmdline")
            if arguments.contains("refresh-worker"), arguments.contains(home.path) {
                return (arguments, strings("environ"))
            }
        }
        return nil
    }

    /// A provider with 4-second access tokens (stale after 3 s, with the session's leeway of a quarter of the lifetime; the
    /// refreshed one then stays fresh while the test checks it), rotation and reuse detection without grace; signed
    /// in, the access token stale, and the provider holding token requests for 3 seconds.
    static func signedInWithAStaleToken() async throws -> (CLI, Connection) {
        let cli = try await CLI.start(
            DevProvider.Configuration(
                accessTokenLifetime: .seconds(4),
                refreshTokenRotation: true,
                reuseDetection: true,
                reuseGracePeriod: .zero
            )
        )
        #expect(try await cli.loginWithDeviceCode().status == 0)
        try await Task.sleep(for: .milliseconds(3500))
        await cli.provider.admin.setLatency(.seconds(3), for: .token)
        let stored = try #require(try await vault(cli).read("dev"))
        return (cli, stored)
    }

    /// Starts `tether token` and stops it (`SIGSTOP`) while the provider holds its refresh request; returns once the
    /// provider has rotated the refresh token and answered.
    static func launchAndCatchMidRefresh(_ cli: CLI) async throws -> CLI.Running {
        let before = await cli.provider.admin.counters()
        let running = try cli.launch(["token"])
        try await waitUntil {
            await cli.provider.admin.counters().requests(to: .token) > before.requests(to: .token)
        }
        kill(running.process.processIdentifier, SIGSTOP)
        try await waitUntil { await cli.provider.admin.counters()[.refreshes] > before[.refreshes] }
        return running
    }

    /// The interrupted process's refresh was the only one, and the next `tether token` prints a token the provider
    /// accepts without any reuse of a spent refresh token. (That one may refresh again when the machine is so
    /// loaded that the stored token has gone stale meanwhile; it then presents the rotated refresh token.)
    static func expectTheGrantSurvived(_ cli: CLI) async throws {
        #expect(await cli.provider.admin.counters()[.refreshes] == 1)
        await cli.provider.admin.setLatency(.zero, for: .token)
        // On a loaded machine the printed token (4-second lifetime) may expire before the provider sees it; the
        // next `tether token` then refreshes with the rotated refresh token. A lost grant fails every attempt.
        try await cli.expectTheNextTokenIsAccepted()
        let counters = await cli.provider.admin.counters()
        #expect(counters[.reuseDetections] == 0)
        #expect(counters[.refreshFailures] == 0)
    }

    static func vault(_ cli: CLI) throws -> VaultStore {
        try VaultStore(directory: cli.home, environment: [:])
    }

    /// Polls `condition` every 10 ms for up to 20 s.
    static func waitUntil(_ condition: () async throws -> Bool) async throws {
        for _ in 0..<2000 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ChildProcess.Failure(description: "the condition did not hold within 20 s")
    }
}
