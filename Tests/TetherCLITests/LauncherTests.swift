import Foundation
import Testing
import Tether
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// `tether` answers a fresh token itself and runs `tether-cli` for everything else: what it prints, and how it ends,
/// never differ from what `tether-cli` does on the same vault.
///
/// Each test compares `tether` with `tether-cli` on two copies of the same home, and runs a copy of the launcher
/// that has no `tether-cli` beside it: it can only answer on its own, so it shows which path was taken.
@Suite(.timeLimit(.minutes(3)))
struct LauncherTests {
    /// Signs in to a new provider, then copies the home (so that each tool gets the same vault).
    static func signedIn() async throws -> CLI {
        let cli = try await CLI.start()
        #expect(try await cli.loginWithDeviceCode().status == 0)
        return cli
    }

    /// A copy of `cli`'s home, with the same files and permissions.
    static func copy(_ cli: CLI) async throws -> CLI {
        let copy = cli.home.deletingLastPathComponent().appendingPathComponent("tether-cli-\(UUID().uuidString)")
        let copied = try await ChildProcessRunner.copyTree(cli.home.path, to: copy.path)
        #expect(copied)
        return CLI(home: copy, provider: cli.provider, extraEnvironment: cli.extraEnvironment)
    }

    /// Runs `arguments` with `tether` on `cli` and with `tether-cli` on a copy of its home made just before; in what
    /// they print, each home's path reads `$TETHER_HOME`.
    static func both(_ cli: CLI, _ arguments: [String]) async throws -> (launcher: Outcome, full: Outcome) {
        let other = try await copy(cli)
        defer { try? FileManager.default.removeItem(at: other.home) }
        let full = try await other.launch(arguments, executable: "tether-cli").finish(timeout: .seconds(60))
        let launcher = try await cli.run(arguments)
        return (normalized(launcher, home: cli.home), normalized(full, home: other.home))
    }

    /// What a run printed, and how it ended.
    struct Outcome: Equatable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func normalized(_ result: CLI.Result, home: URL) -> Outcome {
        Outcome(
            status: result.status,
            stdout: result.stdout.replacingOccurrences(of: home.path, with: "$TETHER_HOME"),
            stderr: result.stderr.replacingOccurrences(of: home.path, with: "$TETHER_HOME")
        )
    }

    /// Runs `tether arguments…` from a folder where `tether-cli` is not: it succeeds only on the fast path.
    static func launcherAlone(_ cli: CLI, _ arguments: [String]) async throws -> CLI.Result {
        let folder = cli.home.deletingLastPathComponent().appendingPathComponent("launcher-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let launcher = folder.appendingPathComponent("tether")
        try await copyExecutable(to: launcher)
        return try await ChildProcess.run([launcher.path] + arguments, environment: cli.environment)
    }

    /// Copies the launcher to `target` with `cp`: a file this process had open for writing could still be open in
    /// a child another test is starting at that moment, and executing it would then fail with "Text file busy".
    static func copyExecutable(to target: URL) async throws {
        let copied = try await ChildProcessRunner.copyTree(try CLI.executable(named: "tether").path, to: target.path)
        #expect(copied)
    }

    /// Rewrites the stored record so that its access token expires in `seconds`, an hour after it was received:
    /// within the refresh leeway.
    static func expire(_ cli: CLI, inSeconds seconds: Double = 60) async throws {
        let vault = try VaultStore(directory: cli.home, environment: [:])
        let record = try #require(try await vault.read(ConnectionID("dev")))
        var tokens = record.tokens
        tokens.receivedAt = Date().addingTimeInterval(-3600)
        tokens.expiresAt = Date().addingTimeInterval(seconds)
        var changed = record
        changed.tokens = tokens
        _ = try await vault.write(changed, expecting: .version(record.version))
    }

    @Test func aFreshTokenIsPrintedByTheLauncherAsByTheFullTool() async throws {
        let cli = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        let refreshes = await cli.provider.admin.counters()[.refreshes]
        for arguments in [["token"], ["token", "dev"], ["token", "--json"], ["token", "--json", "dev"]] {
            let (launcher, full) = try await Self.both(cli, arguments)
            #expect(full.status == 0, "\(full.stderr)")
            #expect(launcher.status == full.status)
            #expect(launcher.stdout == full.stdout, "\(arguments)")
            #expect(launcher.stderr == full.stderr)
            let alone = try await Self.launcherAlone(cli, arguments)
            #expect(alone.status == 0, "\(arguments): \(alone.stderr)")
            #expect(alone.stdout == full.stdout)
        }
        #expect(await cli.provider.admin.counters()[.refreshes] == refreshes)
    }

    @Test func anExpiringTokenIsLeftToTheFullToolWhichRefreshesIt() async throws {
        let cli = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        let before = try await cli.run(["token"])
        try await Self.expire(cli)

        let alone = try await Self.launcherAlone(cli, ["token"])
        #expect(alone.status == 1)
        #expect(alone.stderr.contains("tether-cli"), "\(alone.stderr)")
        #expect(alone.stdout.isEmpty)

        let refreshes = await cli.provider.admin.counters()[.refreshes]
        let token = try await cli.run(["token"])
        #expect(token.status == 0, "\(token.stderr)")
        #expect(token.trimmedOutput != before.trimmedOutput)
        #expect(await cli.provider.admin.counters()[.refreshes] == refreshes + 1)
        // The refreshed token is fresh again: the launcher answers alone.
        #expect(try await Self.launcherAlone(cli, ["token"]).stdout == token.stdout)
    }

    @Test func aRevokedGrantEndsAsInTheFullTool() async throws {
        let cli = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        _ = await cli.provider.admin.revokeAllGrants()
        try await Self.expire(cli)
        let (launcher, full) = try await Self.both(cli, ["token"])
        #expect(full.status == 3, "\(full.stderr)")
        #expect(launcher.status == full.status)
        #expect(launcher.stdout == full.stdout)
        #expect(launcher.stderr == full.stderr)
    }

    @Test(arguments: [["token", "nosuch"], ["token", "--minimum-lifetime", "60"], ["token", "dev", "extra"]])
    func otherRequestsAreLeftToTheFullTool(_ arguments: [String]) async throws {
        let cli = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        let (launcher, full) = try await Self.both(cli, arguments)
        #expect(launcher.status == full.status)
        #expect(launcher.stderr == full.stderr)
        if arguments.contains("nosuch") {
            #expect(full.status == 3, "\(full.stderr)")
            #expect(launcher.stdout == full.stdout)
        }
        #expect(try await Self.launcherAlone(cli, arguments).status == 1)
    }

    /// A forced refresh goes to the provider; the two homes share one grant, so only the launcher runs it here.
    @Test func aForcedRefreshIsLeftToTheFullTool() async throws {
        let cli = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        let before = try await cli.run(["token"])
        #expect(try await Self.launcherAlone(cli, ["token", "--force-refresh"]).status == 1)
        let refreshes = await cli.provider.admin.counters()[.refreshes]
        let forced = try await cli.run(["token", "--force-refresh"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.trimmedOutput != before.trimmedOutput)
        #expect(await cli.provider.admin.counters()[.refreshes] == refreshes + 1)
    }

    @Test func aTamperedRecordEndsAsInTheFullTool() async throws {
        let cli = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        let records = cli.home.appendingPathComponent("records")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: records.path).first)
        let file = records.appendingPathComponent(name)
        var bytes = [UInt8](try Data(contentsOf: file))
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: file)

        let (launcher, full) = try await Self.both(cli, ["token"])
        #expect(full.status != 0)
        #expect(full.stderr.contains("failed authentication"), "\(full.stderr)")
        #expect(launcher.status == full.status)
        #expect(launcher.stdout == full.stdout)
        #expect(launcher.stderr == full.stderr)
        #expect(try await Self.launcherAlone(cli, ["token"]).status == 1)
    }

    @Test func aChangedProfileIsLeftToTheFullTool() async throws {
        let cli = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        let file = cli.home.appendingPathComponent("connections.json")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("\"preset\" : \"dev\""), "\(text)")
        try Data(text.replacingOccurrences(of: "\"preset\" : \"dev\"", with: "\"preset\" : \"oidc\"").utf8)
            .write(to: file)

        let (launcher, full) = try await Self.both(cli, ["token"])
        #expect(full.status == 5, "\(full.stderr)")
        #expect(launcher.status == full.status)
        #expect(launcher.stderr == full.stderr)
        #expect(try await Self.launcherAlone(cli, ["token"]).status == 1)
    }
}

/// Copies a folder with `cp -a`, which keeps modes (the vault refuses files others could read).
enum ChildProcessRunner {
    /// Waits for `cp` without holding a thread of the concurrency pool (two on this machine's two cores): the
    /// suites running meanwhile would wait for it.
    static func copyTree(_ source: String, to target: String) async throws -> Bool {
        let environment = ProcessInfo.processInfo.environment
        let copy = try ChildProcess(["/bin/cp", "-a", source, target], environment: environment)
        return try await copy.finish(timeout: .seconds(60)).status == 0
    }
}
