import Foundation
import SignInTestSupport
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files `tether` keeps in `TETHER_HOME` beside the vault: created private whatever the umask, never read or
/// written through a symbolic link, and not created at all by commands that only read.
@Suite(.timeLimit(.minutes(3)))
struct StateFilesCommandTests {
    /// The permission bits of `path` itself (not of what a link points to).
    static func mode(_ path: String) -> Int? {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        return (attributes?[.posixPermissions] as? NSNumber).map { $0.intValue & 0o777 }
    }

    static func isSymbolicLink(_ path: String) -> Bool {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        return attributes?[.type] as? FileAttributeType == .typeSymbolicLink
    }

    // MARK: Commands that only read

    @Test func readOnlyCommandsCreateNoHome() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        // Missing, and so is its parent.
        let home = cli.home.appendingPathComponent("nested/home")
        let reader = cli.with(["TETHER_HOME": home.path])

        let status = try await reader.run(["status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stderr.contains("No connections"), "\(status.stderr)")
        let json = try await reader.run(["status", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [Any] != nil)
        #expect(json.trimmedOutput.filter { !$0.isWhitespace } == "[]")
        let sources = try await reader.run(["calendar", "sources"])
        #expect(sources.status == 0, "\(sources.stderr)")
        let sourcesJSON = try await reader.run(["calendar", "sources", "--json"])
        #expect(sourcesJSON.status == 0, "\(sourcesJSON.stderr)")
        #expect(sourcesJSON.trimmedOutput.filter { !$0.isWhitespace } == "[]")
        let token = try await reader.run(["token", "nope"])
        #expect(token.status == 3, "\(token.stderr)")
        #expect(token.stderr.contains("nope"))
        #expect(try await reader.run(["token"]).status == 3)
        #expect(!FileManager.default.fileExists(atPath: cli.home.path), "a command that only reads made a folder")
    }

    @Test func readOnlyCommandsAddNothingToAnEmptyHome() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
        #expect(chmod(cli.home.path, 0o700) == 0)
        // And the commands that would write, had they found something to do.
        let commands = [
            ["status"], ["status", "--json"], ["calendar", "sources"], ["token", "nope"], ["calendar", "events"],
            ["calendar", "flights"], ["calendar", "trips"], ["calendar", "calendars"], ["calendar", "sync"],
            ["logout"], ["logout", "--all"], ["logout", "nope"], ["calendar", "select", "nope", "--all"],
            ["request", "nope", "https://api.example.com/"],
        ]
        for arguments in commands {
            let result = try await cli.run(arguments)
            #expect([0, 3].contains(result.status), "\(arguments): \(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.home.path).isEmpty)
    }

    // MARK: Permissions

    @Test func everyFileIsOwnerOnlyWhateverTheUmask() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let login = try await cli.loginUnderUmaskZero([
            "login", "dev", "--issuer", cli.issuer, "--device", "--name", "ada-google", "--calendar", "google",
            "--scope", "openid email profile offline_access https://www.googleapis.com/auth/calendar.readonly",
        ])
        #expect(login.status == 0, "\(login.stderr)")
        let window = try await cli.window()
        #expect(try await cli.runUnderUmaskZero(["calendar", "events"] + window).status == 0)
        // A revoked grant: `token` records it in status.json, a fetch in calendar-status.json.
        await cli.provider.admin.revokeGrants(ofUser: "ada")
        #expect(try await cli.runUnderUmaskZero(["token", "ada-google", "--force-refresh"]).status == 3)
        #expect(try await cli.runUnderUmaskZero(["calendar", "events"] + window).status == 3)

        let home = cli.home.path
        for file in ["connections.json", "status.json", "calendar-status.json", "vault.key"] {
            #expect(Self.mode("\(home)/\(file)") == 0o600, "\(file)")
        }
        for folder in ["", "/records", "/locks", "/calendar-cache"] {
            #expect(Self.mode(home + folder) == 0o700, "\(folder)")
        }
        let manager = FileManager.default
        let inside = try ["records", "locks", "calendar-cache"].flatMap { folder in
            try manager.contentsOfDirectory(atPath: "\(home)/\(folder)").map { "\(home)/\(folder)/\($0)" }
        }
        #expect(inside.contains { $0.hasSuffix("connections.json.lock") })
        #expect(inside.contains { $0.hasSuffix("status.json.lock") })
        for path in inside { #expect(Self.mode(path) == 0o600, "\(path)") }
    }

    // MARK: Symbolic links

    @Test func connectionsFileIsNeverReadThroughASymbolicLink() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let settings = cli.home.appendingPathComponent("connections.json").path
        let elsewhere = cli.home.deletingLastPathComponent().appendingPathComponent("\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        try FileManager.default.moveItem(atPath: settings, toPath: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: settings, withDestinationPath: elsewhere)
        let before = try Data(contentsOf: URL(fileURLWithPath: elsewhere))

        let status = try await cli.run(["status"])
        #expect(status.status == 5, "\(status.stderr)")
        #expect(status.stderr.contains("symbolic link"), "\(status.stderr)")
        #expect(try await cli.run(["token", "dev"]).status == 5)
        #expect(Self.isSymbolicLink(settings))
        #expect(try Data(contentsOf: URL(fileURLWithPath: elsewhere)) == before)
    }

    @Test func statusFileIsReplacedNotWrittenThroughASymbolicLink() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let statusFile = cli.home.appendingPathComponent("status.json").path
        let elsewhere = cli.home.deletingLastPathComponent().appendingPathComponent("\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        let planted = Data("{}\n".utf8)
        try planted.write(to: URL(fileURLWithPath: elsewhere))
        try FileManager.default.createSymbolicLink(atPath: statusFile, withDestinationPath: elsewhere)

        await cli.provider.admin.revokeGrants(ofUser: "ada")
        #expect(try await cli.run(["token", "dev", "--force-refresh"]).status == 3)
        #expect(!Self.isSymbolicLink(statusFile))
        #expect(Self.mode(statusFile) == 0o600)
        #expect(try String(contentsOfFile: statusFile, encoding: .utf8).contains("\"dev\""))
        #expect(try Data(contentsOf: URL(fileURLWithPath: elsewhere)) == planted)
    }

    // MARK: Names

    @Test(arguments: ["--home", "-x", "--lease-holder=me"])
    func namesThatStartWithADashAreRefusedAtLogin(_ name: String) async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let login = try await cli.run(["login", "dev", "--issuer", cli.issuer, "--device", "--name=\(name)"])
        #expect(login.status == 2, "\(login.stderr)")
        #expect(login.stderr.contains("'\(name)' is not a usable connection name"), "\(login.stderr)")
        #expect(login.stderr.contains("starts with '-'"), "\(login.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.home.path), "a refused login made TETHER_HOME")
        let token = try await cli.run(["token", "--", name])
        #expect(token.status == 2, "\(token.stderr)")
        #expect(token.stderr.contains("starts with '-'"), "\(token.stderr)")
    }
}

extension CLI {
    /// `/bin/sh` running `tether arguments…` with umask 000, so that every file mode is what `tether` sets.
    func launchUnderUmaskZero(_ arguments: [String]) throws -> Running {
        let shell = ["/bin/sh", "-c", "umask 000; exec \"$0\" \"$@\"", try Self.executable().path]
        return try Running(shell + arguments, environment: environment)
    }

    /// Runs `tether arguments…` with umask 000 to completion.
    func runUnderUmaskZero(_ arguments: [String]) async throws -> Result {
        try await launchUnderUmaskZero(arguments).finish(timeout: .seconds(60))
    }

    /// ``loginWithDeviceCode(_:as:)`` with umask 000.
    func loginUnderUmaskZero(_ arguments: [String]) async throws -> Result {
        let running = try launchUnderUmaskZero(arguments)
        let codeLine = try await running.waitForErrorLine(timeout: .seconds(30)) { $0.contains("enter the code") }
        let code = try #require(codeLine.split(separator: " ").last.map(String.init))
        let page = try #require(URL(string: provider.url("/device").absoluteString + "?user_code=\(code)"))
        let (_, answer) = try await FormBrowser().submit(page, extraFields: ["user_code": code])
        #expect(answer.contains("Device connected"), "the verification page answered: \(answer.prefix(300))")
        return try await running.finish(timeout: .seconds(30))
    }
}
