import Foundation
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// `--allow-login`: a helper signs in only when asked to and when a person is at a terminal; otherwise "needs
/// sign-in" is reported as always, and no browser opens.
@Suite(.timeLimit(.minutes(3)))
struct AllowLoginTests {
    /// A connection whose grant the provider revoked, and whose access token is within the refresh leeway.
    static func revoked(_ cli: CLI) async throws {
        _ = await cli.provider.admin.revokeAllGrants()
        try await LauncherTests.expire(cli)
    }

    @Test func withoutATerminalNoHelperSignsIn() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        try await Self.revoked(cli)
        let browser = try cli.recordingScript(named: "browser")
        let probed = cli.with(["BROWSER": browser.script.path])

        let token = try await probed.run(["token", "dev", "--allow-login"])
        #expect(token.status == 3, "\(token.stderr)")
        #expect(token.stdout.isEmpty)
        #expect(token.stderr.contains("tether login dev"), "\(token.stderr)")
        let git = try await probed.run(
            ["git-credential", "--connection", "dev", "get", "--allow-login"],
            input: "protocol=https\nhost=git.example.com\n"
        )
        #expect(git.status == 3, "\(git.stderr)")
        #expect(git.stdout == "quit=1\n")
        let kube = try await probed.run(["kube-credential", "dev", "--allow-login"])
        #expect(kube.status == 3, "\(kube.stderr)")
        #expect(!FileManager.default.fileExists(atPath: browser.calls.path), "a browser was opened")
        #expect(await cli.provider.admin.counters()[.codesExchanged] == 0)
    }

    @Test(.enabled(if: HeadlessBrowser.isEnabled, "Needs Scripts/install-test-dependencies.sh"))
    func atATerminalTokenSignsInAgainAndPrintsTheToken() async throws {
        let cli = try await CLI.start().with(["BROWSER": "'\(HeadlessBrowser.script.path)'"])
        defer { Task { await cli.stop() } }
        let login = try await cli.run(["login", "dev", "--issuer", cli.issuer], timeout: .seconds(90))
        #expect(login.status == 0, "\(login.stderr)")
        try await Self.revoked(cli)

        // On a pseudo-terminal, as a person runs it; the sign-in's progress goes to standard error.
        let tether = try CLI.executable().path
        let output = try await cli.runScript("'\(tether)' token dev --allow-login; echo \"exit=$?\"")
        let lines = output.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("exit=0"), "\(output)")
        #expect(output.contains("Signed in to 'dev'"), "\(output)")
        #expect(await cli.provider.admin.counters()[.codesExchanged] == 2)
        let token = try await cli.run(["token", "dev"])
        #expect(token.status == 0, "\(token.stderr)")
        #expect(lines.contains(token.trimmedOutput), "the token printed is not the new grant's: \(output)")
    }
}
