import Foundation
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// The real `git` with `tether` as its credential helper, against a smart-HTTP git server on 127.0.0.1 that takes
/// the development provider's access tokens as passwords.
@Suite(
    .timeLimit(.minutes(3)),
    .enabled(if: HelperTools.hasGitAndPython, "Needs git and python3 on PATH")
)
struct GitCredentialHelperTests {
    /// How long the provider's tokens live, in seconds. The helper hands a token out while more than a quarter of
    /// its life is left, and git's requests of one clone must all reach the server within that quarter: 20 s leaves
    /// 5 s, which a loaded machine running the whole suite beside it needs (8 s left 2 s, and failed there).
    static let lifetime = 20
    /// A provider, a signed-in connection `dev`, a git server with one repository, and an environment for git
    /// with its own HOME and configuration, no terminal prompt and a GIT_ASKPASS that records being asked.
    struct Fixture: Sendable {
        let cli: CLI
        let server: ScriptServer
        let folder: URL
        let environment: [String: String]
        let askpassCalls: URL

        var remote: String { "http://127.0.0.1:\(server.port)/repo.git" }
        var clone: URL { folder.appendingPathComponent("clone") }
        var bare: URL { folder.appendingPathComponent("repositories").appendingPathComponent("repo.git") }

        /// - Parameter byHost: Sign in with `--git-host` and configure `credential.helper = tether` (found as
        ///   `git-credential-tether` on PATH), instead of `!tether git-credential --connection dev` for the URL.
        static func start(lifetime: Int, byHost: Bool = false) async throws -> Fixture {
            let cli = try await CLI.start(
                DevProvider.Configuration(accessTokenLifetime: .seconds(lifetime), idTokenLifetime: .seconds(lifetime))
            )
            let folder = cli.home.deletingLastPathComponent().appendingPathComponent("git-\(UUID().uuidString)")
            let repositories = folder.appendingPathComponent("repositories")
            try FileManager.default.createDirectory(at: repositories, withIntermediateDirectories: true)
            let bin = try cli.helperLinks()
            let askpass = try cli.recordingScript(named: "askpass")
            var environment = cli.environment
            environment["HOME"] = folder.path
            environment["GIT_CONFIG_NOSYSTEM"] = "1"
            environment["GIT_CONFIG_GLOBAL"] = folder.appendingPathComponent("gitconfig").path
            environment["GIT_TERMINAL_PROMPT"] = "0"
            environment["GIT_ASKPASS"] = askpass.script.path
            environment["SSH_ASKPASS"] = askpass.script.path
            for role in ["AUTHOR", "COMMITTER"] {
                environment["GIT_\(role)_NAME"] = "Ada"
                environment["GIT_\(role)_EMAIL"] = "ada@example.com"
            }
            environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            try "".write(to: folder.appendingPathComponent("gitconfig"), atomically: true, encoding: .utf8)

            let server = try await ScriptServer.start(
                script: StandInServers.git,
                arguments: [repositories.path, cli.provider.url("/userinfo").absoluteString],
                environment: environment
            )
            let fixture = Fixture(
                cli: cli,
                server: server,
                folder: folder,
                environment: environment,
                askpassCalls: askpass.calls
            )
            // One repository with one commit, pushed over the file system, before the sign-in: the first token's life
            // starts when the test's first request is at hand, not before a loaded machine ran five git commands.
            let bare = fixture.bare.path
            let seed = folder.appendingPathComponent("seed")
            try await fixture.expectGit(["init", "-q", "--bare", "-b", "main", bare])
            try await fixture.expectGit(["init", "-q", "-b", "main", seed.path])
            try "hello\n".write(to: seed.appendingPathComponent("README"), atomically: true, encoding: .utf8)
            try await fixture.expectGit(["-C", seed.path, "add", "README"])
            try await fixture.expectGit(["-C", seed.path, "commit", "-q", "-m", "First"])
            try await fixture.expectGit(["-C", seed.path, "push", "-q", bare, "main"])

            let login = try await cli.loginWithDeviceCode(
                ["login", "dev", "--issuer", cli.issuer, "--device"]
                    + (byHost ? ["--git-host", "127.0.0.1:\(server.port)"] : [])
            )
            #expect(login.status == 0, "\(login.stderr)")
            let config =
                byHost
                ? "[credential]\n\thelper = tether\n"
                : """
                [credential "http://127.0.0.1:\(server.port)"]
                \thelper =
                \thelper = "!tether git-credential --connection dev"

                """
            try config.write(to: folder.appendingPathComponent("gitconfig"), atomically: true, encoding: .utf8)

            return fixture
        }

        func git(_ arguments: [String]) async throws -> ChildProcess.Result {
            let git = try #require(HelperTools.path(of: "git"))
            return try await ChildProcess.run([git] + arguments, environment: environment, timeout: .seconds(90))
        }

        func launchGit(_ arguments: [String]) throws -> ChildProcess {
            let git = try #require(HelperTools.path(of: "git"))
            return try ChildProcess([git] + arguments, environment: environment)
        }

        func expectGit(_ arguments: [String]) async throws {
            let result = try await git(arguments)
            #expect(result.status == 0, "git \(arguments.joined(separator: " ")): \(result.stderr)")
        }

        var askpassWasCalled: Bool { FileManager.default.fileExists(atPath: askpassCalls.path) }

        func refreshes() async -> Int { await cli.provider.admin.counters()[.refreshes] }

        func stop() async {
            server.stop()
            try? FileManager.default.removeItem(at: folder)
            await cli.stop()
        }
    }

    @Test func cloneAndFetchAndOneRefreshAfterEachKindOfExpiry() async throws {
        let fixture = try await Fixture.start(lifetime: Self.lifetime, byHost: true)
        defer { Task { await fixture.stop() } }
        let clone = try await fixture.git(["clone", "-q", fixture.remote, fixture.clone.path])
        #expect(clone.status == 0, "\(clone.stderr)")
        #expect(FileManager.default.fileExists(atPath: fixture.clone.appendingPathComponent("README").path))

        // The token expires on its own: the helper refreshes it before git sends it.
        try await Task.sleep(for: .seconds(Self.lifetime))
        var before = await fixture.refreshes()
        let fetch = try await fixture.git(["-C", fixture.clone.path, "fetch", "-q", "origin"])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(await fixture.refreshes() == before + 1)

        // The server stops taking a token the vault holds for valid: git reports the refusal (erase), and the
        // next fetch gets a token refreshed once.
        await fixture.cli.provider.admin.expireAccessTokens()
        before = await fixture.refreshes()
        let refused = try await fixture.git(["-C", fixture.clone.path, "fetch", "-q", "origin"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("Authentication failed"), "\(refused.stderr)")
        let again = try await fixture.git(["-C", fixture.clone.path, "fetch", "-q", "origin"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(await fixture.refreshes() == before + 1)
        #expect(!fixture.askpassWasCalled, "git asked for a password")
        #expect(try await fixture.cli.status().first?["state"] as? String == "connected")
    }

    @Test func eightParallelFetchesAcrossAnExpiryShareOneRefresh() async throws {
        let fixture = try await Fixture.start(lifetime: Self.lifetime)
        defer { Task { await fixture.stop() } }
        // Eight clones made over the file system, each fetching from the server: no two fetches share a lock.
        var clones: [String] = []
        for index in 0..<8 {
            let path = fixture.folder.appendingPathComponent("clone-\(index)").path
            try await fixture.expectGit(["clone", "-q", fixture.bare.path, path])
            try await fixture.expectGit(["-C", path, "remote", "set-url", "origin", fixture.remote])
            clones.append(path)
        }
        try await Task.sleep(for: .seconds(Self.lifetime))
        let before = await fixture.refreshes()

        let fetches = try clones.map { try fixture.launchGit(["-C", $0, "fetch", "-q", "origin"]) }
        var results: [ChildProcess.Result] = []
        for fetch in fetches { results.append(try await fetch.finish(timeout: .seconds(90))) }
        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
        #expect(await fixture.refreshes() == before + 1)
        #expect(await fixture.cli.provider.admin.counters()[.reuseDetections] == 0)
        #expect(!fixture.askpassWasCalled)
    }

    @Test func aRevokedGrantStopsGitAtOnceWithTheSignInLineAndNoPrompt() async throws {
        let fixture = try await Fixture.start(lifetime: Self.lifetime)
        defer { Task { await fixture.stop() } }
        let clone = try await fixture.git(["clone", "-q", fixture.remote, fixture.clone.path])
        #expect(clone.status == 0, "\(clone.stderr)")
        _ = await fixture.cli.provider.admin.revokeAllGrants()
        try await Task.sleep(for: .seconds(Self.lifetime))

        let fetch = try await fixture.git(["-C", fixture.clone.path, "fetch", "origin"])
        #expect(fetch.status != 0)
        #expect(fetch.stderr.contains("tether login dev"), "\(fetch.stderr)")
        #expect(fetch.stderr.contains("told us to quit"), "\(fetch.stderr)")
        #expect(!fixture.askpassWasCalled, "git asked for a password")
        #expect(try await fixture.cli.status().first?["state"] as? String == "needs-sign-in")
    }
}
