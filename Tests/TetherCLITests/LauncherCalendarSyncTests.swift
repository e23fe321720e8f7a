import Foundation
import Testing
import Tether
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

@testable import TetherCalendarTool

/// `tether calendar sync` in its own process (`tether-calendar`, which the launcher runs): what it prints and how
/// it ends are those of `tether-cli` on a copy of the same home; a refresh, and every command line it does not run
/// itself, are `tether-cli`'s, and nothing is refreshed or changed before it takes over.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct LauncherCalendarSyncTests {
    /// Two calendar sources with hour-long tokens: nothing is due within the default 30-minute lead.
    static func signedIn(_ configuration: DevProvider.Configuration = DevProvider.Configuration()) async throws -> CLI {
        let cli = try await CLI.start(configuration)
        #expect(try await cli.loginCalendar("ada-google", api: "google").status == 0)
        #expect(try await cli.loginCalendar("grace-outlook", api: "microsoft", as: "grace").status == 0)
        return cli
    }

    /// A folder with copies of the launcher and `tether-calendar` and no `tether-cli`: what runs there was done by
    /// `tether-calendar` alone.
    static func aloneLauncher(near cli: CLI) async throws -> URL {
        let folder = cli.home.deletingLastPathComponent().appendingPathComponent("calendar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["tether", "tether-calendar"] {
            let copied = try await ChildProcessRunner.copyTree(
                try CLI.executable(named: name).path,
                to: folder.appendingPathComponent(name).path
            )
            #expect(copied)
        }
        return folder.appendingPathComponent("tether")
    }

    /// The relative time in "Next run due in 29 minutes (…)" may turn between two runs; the instant may not.
    static func masked(_ outcome: LauncherTests.Outcome) -> LauncherTests.Outcome {
        var masked = outcome
        masked.stdout = outcome.stdout.replacingOccurrences(
            of: #"Next run due [^(]*\("#,
            with: "Next run due … (",
            options: .regularExpression
        )
        return masked
    }

    @Test(arguments: [
        ["calendar", "sync", "--json"],
        ["calendar", "sync"],
        ["calendar", "sync", "--days=3", "--lead", "10", "--budget", "30", "--json"],
        ["calendar", "sync", "--verbose", "--days", "2"],
    ])
    func theSyncPrintsWhatTetherCLIPrints(_ arguments: [String]) async throws {
        let cli = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        let launcher = try await Self.aloneLauncher(near: cli)
        defer { try? FileManager.default.removeItem(at: launcher.deletingLastPathComponent()) }
        let refreshes = await cli.provider.admin.counters()[.refreshes]

        let copy = try await LauncherTests.copy(cli)
        defer { try? FileManager.default.removeItem(at: copy.home) }
        let full = try await copy.launch(arguments, executable: "tether-cli").finish(timeout: .seconds(60))
        let alone = try await ChildProcess.run([launcher.path] + arguments, input: "", environment: cli.environment)

        #expect(full.status == 0, "\(full.stderr)")
        #expect(alone.status == 0, "\(arguments) was not run by tether-calendar: \(alone.stderr)")
        let calendarTool = Self.masked(LauncherTests.normalized(alone, home: cli.home))
        let fullTool = Self.masked(LauncherTests.normalized(full, home: copy.home))
        if arguments.contains("--verbose") {
            // Debug lines carry times and identifiers of their own; both name every source and end alike.
            #expect(calendarTool.stdout == fullTool.stdout)
            #expect(calendarTool.status == fullTool.status)
            #expect(alone.stderr.contains("debug"), "\(alone.stderr)")
        } else {
            #expect(calendarTool == fullTool, "\(arguments)")
        }
        #expect(alone.stdout.contains("ada-google") && alone.stdout.contains("grace-outlook"), "\(alone.stdout)")
        #expect(await cli.provider.admin.counters()[.refreshes] == refreshes)
        try await cli.expectNoTokens(in: [alone, full])
    }

    /// With tokens inside the lead, the refresh is `tether-cli`'s: without it beside, nothing is refreshed and the
    /// vault is as it was; with it, one refresh per source, through the launcher as a timer runs it.
    @Test func aRefreshThatIsDueIsHandedToTetherCLI() async throws {
        let cli = try await Self.signedIn(DevProvider.Configuration(accessTokenLifetime: .seconds(600)))
        defer { Task { await cli.stop() } }
        let launcher = try await Self.aloneLauncher(near: cli)
        defer { try? FileManager.default.removeItem(at: launcher.deletingLastPathComponent()) }
        let refreshes = await cli.provider.admin.counters()[.refreshes]
        let records = cli.home.appendingPathComponent("records")
        let before = try Self.contents(of: records)
        #expect(before.count == 2)

        let alone = try await ChildProcess.run(
            [launcher.path, "calendar", "sync", "--json"],
            input: "",
            environment: cli.environment
        )
        #expect(alone.status == 1, "\(alone.stderr)")
        #expect(alone.stdout.isEmpty, "\(alone.stdout)")
        #expect(alone.stderr.contains("cannot run") && alone.stderr.contains("tether-cli"), "\(alone.stderr)")
        #expect(await cli.provider.admin.counters()[.refreshes] == refreshes)
        #expect(try Self.contents(of: records) == before)

        let sync = try await cli.json(["calendar", "sync", "--json"])
        #expect(sync.result.status == 0, "\(sync.result.stderr)")
        let connections = try #require((sync.object as? [String: Any])?["connections"] as? [[String: Any]])
        #expect(connections.map { $0["token"] as? String } == ["refreshed", "refreshed"], "\(connections)")
        #expect(await cli.provider.admin.counters()[.refreshes] - refreshes == 2)
        try await cli.expectNoTokens(in: [alone, sync.result])
    }

    /// An API that refuses the stored token (the provider ended it early) asks for a refresh mid-sync: `tether-cli`
    /// takes over, refreshes, and the sync ends as if it had run alone.
    @Test func aTokenRefusedDuringTheSyncIsHandedToTetherCLI() async throws {
        let cli = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        #expect(try await cli.run(["calendar", "sync"]).status == 0)
        let refreshes = await cli.provider.admin.counters()[.refreshes]
        await cli.provider.admin.expireAccessTokens()

        let sync = try await cli.json(["calendar", "sync", "--json"])
        #expect(sync.result.status == 0, "\(sync.result.stderr)")
        let connections = try #require((sync.object as? [String: Any])?["connections"] as? [[String: Any]])
        #expect(connections.allSatisfy { $0["calendar"] as? String == "connected" }, "\(connections)")
        #expect(await cli.provider.admin.counters()[.refreshes] - refreshes == 2)
        try await cli.expectNoTokens(in: [sync.result])
    }

    /// Command lines `tether-calendar` does not run are `tether-cli`'s, with its words and exit statuses.
    @Test(arguments: [
        ["calendar", "sync", "--days", "0"],
        ["calendar", "sync", "--lead", "-1"],
        ["calendar", "sync", "--json", "--json"],
        ["calendar", "sync", "--bogus"],
        ["calendar", "sync", "--help"],
        ["calendar", "sync", "--store", "vault", "--json"],
        ["calendar", "sync", ""],
        ["calendar", "sync", "="],
        ["calendar", "sync", "--json="],
        ["calendar", "sync", "--days=", "7"],
    ])
    func otherCommandLinesAreTetherCLIs(_ arguments: [String]) async throws {
        let cli = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        let (launcher, full) = try await LauncherTests.both(cli, arguments)
        #expect(Self.masked(launcher) == Self.masked(full), "\(arguments)")
        #expect(SyncOptions(["tether"] + arguments) == nil, "\(arguments)")
    }

    @Test func theCommandLinesItRuns() throws {
        #expect(SyncOptions(["tether", "calendar", "sync"]) == SyncOptions(["tether", "calendar", "sync"]))
        let options = try #require(SyncOptions(["t", "calendar", "sync", "--days=3", "--lead", "0", "-v", "--json"]))
        #expect(options.run == CalendarSyncRun(budget: 120, lead: 0, days: 3, json: true))
        #expect(options.verbose)
        #expect(SyncOptions(["t", "calendar", "sync", "--budget", "3601"]) == nil)
        #expect(SyncOptions(["t", "calendar", "sync", "--days"]) == nil)
        #expect(SyncOptions(["t", "calendar", "sync", "--json=yes"]) == nil)
        #expect(SyncOptions(["t", "calendar", "events"]) == nil)
        #expect(SyncOptions(["t", "calendar", "sync", "extra"]) == nil)
        #expect(SyncOptions(["t", "calendar", "sync", ""]) == nil)
        #expect(SyncOptions(["t", "calendar", "sync", "="]) == nil)
        #expect(SyncOptions(["t", "calendar", "sync", "--verbose="]) == nil)
        #expect(SyncOptions(["t", "calendar", "sync", "--days="]) == nil)
        #expect(SyncOptions(["t", "calendar", "sync", "--days", ""]) == nil)
    }

    /// The refresh hands over from a thread of the concurrency pool, which blocks most signals: `tether-cli` still
    /// starts with the signal mask the process started with, so that `SIGHUP` and `SIGQUIT` end it as they end a
    /// `tether-cli` run from the start.
    @Test func tetherCLIStartsWithTheSignalMaskOfTheProcess() async throws {
        let cli = try await Self.signedIn(DevProvider.Configuration(accessTokenLifetime: .seconds(600)))
        defer { Task { await cli.stop() } }
        // The refresh waits at the provider, so that `tether-cli` is caught while it runs.
        await cli.provider.admin.setLatency(.milliseconds(1500), for: .token)
        let sync = try cli.launch(["calendar", "sync", "--json"])
        let status = "/proc/\(sync.process.processIdentifier)/status"
        var blocked: UInt64?
        let deadline = ContinuousClock.now + .seconds(20)
        while blocked == nil, ContinuousClock.now < deadline {
            let executable = try? FileManager.default.destinationOfSymbolicLink(
                atPath: "/proc/\(sync.process.processIdentifier)/exe"
            )
            if executable?.hasSuffix("/tether-cli") == true,
                let text = try? String(contentsOfFile: status, encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") })
            {
                blocked = UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let result = try await sync.finish(timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        let mask = try #require(blocked, "tether-cli was not seen running")
        // SIGHUP (1), SIGQUIT (3), SIGUSR1 (10) and SIGALRM (14): bit (number - 1).
        for signal in [1, 3, 10, 14] {
            #expect(mask & (1 << UInt64(signal - 1)) == 0, "signal \(signal) is blocked: \(String(mask, radix: 16))")
        }
    }

    /// Every record in `folder` (`*.vault`) and its bytes.
    static func contents(of folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".vault") {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }
}
