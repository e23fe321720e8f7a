import Foundation
import HTTPTypes
import Testing
import Tether
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport
import TetherURLSession

/// The `tether` executable, driven as a subprocess against the development provider on 127.0.0.1.
@Suite(.timeLimit(.minutes(3)))
struct CLITests {
    @Test(.enabled(if: HeadlessBrowser.isEnabled, "Needs Scripts/install-test-dependencies.sh"))
    func loginThroughAHeadlessBrowserSetAsBROWSER() async throws {
        // The script is the executable; it gets the authorization URL as its only argument.
        let cli = try await CLI.start().with(["BROWSER": "'\(HeadlessBrowser.script.path)'"])
        defer { Task { await cli.stop() } }
        let login = try await cli.run(["login", "dev", "--issuer", cli.issuer], timeout: .seconds(90))
        #expect(login.status == 0, "login failed: \(login.stderr)")
        #expect(login.stdout.isEmpty, "progress text on standard output: \(login.stdout)")
        #expect(login.stderr.contains("Signed in to 'dev' as a***@example.com"))
        #expect(await cli.provider.admin.counters()[.codesExchanged] == 1)

        let rows = try await cli.status()
        #expect(rows.count == 1)
        #expect(rows.first?["name"] as? String == "dev")
        #expect(rows.first?["state"] as? String == "connected")
        #expect(rows.first?["account"] as? String == "a***@example.com")
        #expect(rows.first?["provider"] as? String == "dev")

        let token = try await cli.run(["token"])
        #expect(token.status == 0)
        let userinfo = try await send(.get, cli.provider.url("/userinfo"), bearer: token.trimmedOutput)
        #expect(userinfo.status == 200)
        // The settings file holds no secret; the token is only in the encrypted vault.
        let settings = try String(contentsOf: cli.home.appendingPathComponent("connections.json"), encoding: .utf8)
        #expect(settings.contains("tether-dev-client"))
        #expect(!settings.contains(token.trimmedOutput))
    }

    @Test func loginWithADeviceCodeApprovedAtTheVerificationPage() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let login = try await cli.loginWithDeviceCode()
        #expect(login.status == 0, "login failed: \(login.stderr)")
        #expect(login.stderr.contains(cli.provider.url("/device").absoluteString))
        #expect(await cli.provider.admin.counters()[.deviceApprovals] == 1)
        #expect(try await cli.status().first?["state"] as? String == "connected")
    }

    @Test func eightConcurrentTokenProcessesAcrossAnExpiryShareOneRefresh() async throws {
        let cli = try await CLI.start(DevProvider.Configuration(accessTokenLifetime: .seconds(6)))
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let first = try await cli.run(["token"])
        #expect(first.status == 0)
        let before = await cli.provider.admin.counters()

        // Past the expiry; the new token then lives 6 s, far longer than eight processes take to start.
        try await Task.sleep(for: .seconds(6))
        let launched = Date()
        let processes = try (0..<8).map { _ in try cli.launch(["token"]) }
        var results: [CLI.Result] = []
        for process in processes { results.append(try await process.finish(timeout: .seconds(60))) }

        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
        let tokens = Set(results.map(\.trimmedOutput))
        #expect(tokens.count == 1, "the processes printed \(tokens.count) different tokens")
        #expect(!tokens.contains(first.trimmedOutput), "the expired token was printed")
        let after = await cli.provider.admin.counters()
        #expect(after[.refreshes] - before[.refreshes] == 1)
        #expect(after[.reuseDetections] == 0)
        // The token printed is one the provider issued, by the refresh the processes made (it lives 6 s from then).
        let printed = try #require(tokens.first)
        let expiry = try #require(await cli.provider.admin.expiry(ofAccessToken: printed), "a token never issued")
        #expect(expiry > launched.addingTimeInterval(5), "a token issued before the processes started")
        // And the provider takes it while it lives (on a loaded machine the eight starts can use up its 6 s).
        if Date() < expiry.addingTimeInterval(-1) {
            let userinfo = try await send(.get, cli.provider.url("/userinfo"), bearer: printed)
            #expect(userinfo.status == 200)
        }
    }

    @Test func logoutRevokesAndThenTokenSaysNeedsSignIn() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let logout = try await cli.run(["logout"])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(await cli.provider.admin.counters()[.revocations] >= 1)

        let token = try await cli.run(["token", "dev"])
        #expect(token.status == 3)
        #expect(token.stdout.isEmpty)
        #expect(token.stderr.contains("tether login dev"))
        #expect(token.stderr.split(separator: "\n").count == 1, "more than one line: \(token.stderr)")
        #expect(try await cli.status().first?["state"] as? String == "not-connected")
        #expect(try await cli.run(["logout", "dev"]).status == 0, "a second logout failed")
    }

    @Test func aHomeThatIsAFileIsNamedAsTheProblemNotTheKey() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let file = cli.home.deletingLastPathComponent().appendingPathComponent("home-\(UUID().uuidString)")
        try Data("not a folder".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let status = try await cli.with(["TETHER_HOME": file.path]).run(["status"])
        #expect(status.status == 5, "\(status.stderr)")
        #expect(status.stderr.contains("is not a folder"), "\(status.stderr)")
        #expect(status.stderr.contains("Point TETHER_HOME"), "\(status.stderr)")
        #expect(!status.stderr.contains("TETHER_VAULT_KEY"), "\(status.stderr)")
        #expect(try Data(contentsOf: file) == Data("not a folder".utf8))
    }

    @Test func logoutOfAMistypedNameSaysSoAndSignsNothingOut() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)

        // The sign-in is the grant's last use, whether or not a rule says when the grant ends.
        let row = try #require(try await cli.status().first)
        #expect(row["lastUsed"] as? String != nil, "\(row)")
        #expect(row["lastUsed"] as? String == row["lastRefresh"] as? String, "\(row)")

        let typo = try await cli.run(["logout", "dve"])
        #expect(typo.status == 3, "\(typo.stderr)")
        #expect(typo.stderr.contains("no connection named 'dve'"), "\(typo.stderr)")
        #expect(typo.stderr.contains("The connections are dev"), "\(typo.stderr)")
        #expect(!typo.stderr.contains("Signed out"))
        #expect(try await cli.status().first?["state"] as? String == "connected")

        // Forgotten before: the same error, and still nothing changes.
        #expect(try await cli.run(["logout", "dev", "--forget"]).status == 0)
        let again = try await cli.run(["logout", "dev", "--forget"])
        #expect(again.status == 3, "\(again.stderr)")
        #expect(again.stderr.contains("There are no connections"), "\(again.stderr)")
    }

    @Test func aTamperedVaultGivesAClearErrorAndTheFileIsLeftUntouched() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let records = cli.home.appendingPathComponent("records")
        let file = try #require(
            try FileManager.default.contentsOfDirectory(at: records, includingPropertiesForKeys: nil).first
        )
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 5] ^= 0x40
        try bytes.write(to: file)

        let token = try await cli.run(["token"])
        #expect(token.status == 1)
        #expect(token.stdout.isEmpty)
        #expect(token.stderr.contains("damaged"), "\(token.stderr)")
        #expect(token.stderr.contains("left untouched"))
        #expect(try Data(contentsOf: file) == bytes, "the vault file changed")
        let rows = try await cli.status()
        #expect(rows.first?["state"] as? String == "storage-unavailable")
        #expect(try Data(contentsOf: file) == bytes, "status changed the vault file")
        let relogin = try await cli.run(["login", "dev", "--device"])
        #expect(relogin.status == 1, "signing in over a damaged record must stop before the sign-in")
        #expect(try Data(contentsOf: file) == bytes, "login changed the vault file")
        // Only an explicit logout removes it.
        #expect(try await cli.run(["logout"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func requestRefreshesOnceAndRetriesOnceAfterA401() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let userinfo = try await cli.run(["request", cli.provider.url("/userinfo").absoluteString])
        #expect(userinfo.status == 0, "\(userinfo.stderr)")
        #expect(userinfo.stdout.contains("\"ada-0001\""))

        await cli.provider.admin.expireAccessTokens()
        let before = await cli.provider.admin.counters()
        let resource = try await cli.run(["request", "dev", cli.provider.url("/resource").absoluteString])
        #expect(resource.status == 0, "\(resource.stderr)")
        let after = await cli.provider.admin.counters()
        #expect(after.responses(from: .resource, status: 401) - before.responses(from: .resource, status: 401) == 1)
        #expect(after.requests(to: .resource) - before.requests(to: .resource) == 2)
        #expect(after[.refreshes] - before[.refreshes] == 1)
    }

    @Test func requestAfterARefusedGraphTokenAndARevokedGrantLeavesTheConnectionNeedingSignIn() async throws {
        var configuration = DevProvider.Configuration()
        configuration.resourceErrors = .microsoftGraph
        let cli = try await CLI.start(configuration)
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        _ = await cli.provider.admin.revokeAllGrants()
        await cli.provider.admin.expireAccessTokens()

        let request = try await cli.run(["request", "dev", cli.provider.url("/resource").absoluteString])
        #expect(request.status == 3, "\(request.stderr)")
        #expect(request.stderr.contains("no longer accepts this sign-in"), "\(request.stderr)")
        #expect(await cli.provider.admin.counters().responses(from: .resource, status: 401) == 1)
        let row = try #require(try await cli.status().first)
        #expect(row["state"] as? String == "needs-sign-in")
        #expect((row["lastError"] as? String)?.contains("no longer accepts this sign-in") == true, "\(row)")
    }

    @Test func verboseLogsNeverContainTokens() async throws {
        let cli = try await CLI.start(DevProvider.Configuration(accessTokenLifetime: .seconds(2)))
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        try await Task.sleep(for: .seconds(2))
        let token = try await cli.run(["token", "--verbose"])
        #expect(token.status == 0)
        #expect(token.stderr.contains("debug"), "no debug logs: \(token.stderr)")
        #expect(!token.stderr.contains(token.trimmedOutput), "the access token reached the log")
        let forced = try await cli.run(["token", "--force-refresh", "--json", "--verbose"])
        let object = try JSONSerialization.jsonObject(with: Data(forced.stdout.utf8)) as? [String: Any]
        let accessToken = try #require(object?["accessToken"] as? String)
        #expect(!forced.stderr.contains(accessToken))
        #expect(accessToken != token.trimmedOutput)
    }

    @Test func usageConfigurationAndNetworkFailuresHaveTheirExitCodes() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.run(["token", "--bogus"]).status == 2)
        #expect(try await cli.run(["login", "nope"]).status == 2)
        #expect(try await cli.run(["login", "google"]).status == 5)
        #expect(try await cli.run(["login", "apple"]).status == 5)
        let unreachable = try await cli.run(["login", "dev", "--issuer", "http://127.0.0.1:9", "--device"])
        #expect(unreachable.status == 4, "\(unreachable.stderr)")
        #expect(unreachable.stderr.hasPrefix("tether: "))
        #expect(try await cli.run(["token"]).status == 3)
        let help = try await cli.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("EXIT STATUS"))
        #expect(!help.stdout.contains("\u{1B}["), "colour without a terminal")
        let providers = try await cli.run(["providers", "--json"])
        let presets = try JSONSerialization.jsonObject(with: Data(providers.stdout.utf8)) as? [[String: Any]]
        #expect(
            Set((presets ?? []).compactMap { $0["name"] as? String }).isSuperset(of: [
                "google", "microsoft", "github", "dev",
            ])
        )
    }

    @Test func statusReadsTheVaultWithoutAskingTheProvider() async throws {
        let cli = try await CLI.start(DevProvider.Configuration(accessTokenLifetime: .seconds(2)))
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        try await Task.sleep(for: .seconds(2))
        let before = await cli.provider.admin.counters()
        let rows = try await cli.status()
        #expect(rows.first?["state"] as? String == "connected")
        #expect(await cli.provider.admin.counters().requests(to: .token) == before.requests(to: .token))
        // --check asks the provider, which refreshes the stale token.
        let checked = try await cli.run(["status", "--check", "--json"])
        #expect(checked.status == 0)
        #expect(await cli.provider.admin.counters()[.refreshes] - before[.refreshes] == 1)
    }

    @Test func signingInAgainReusesTheSavedSettingsAndTheSealedClientSecret() async throws {
        let secret = "s3cret-\(UUID().uuidString)"
        var configuration = DevProvider.Configuration(accessTokenLifetime: .seconds(2))
        configuration.clients.append(
            DevProvider.ClientRegistration(
                id: "tether-confidential",
                secret: secret,
                redirectURIs: ["http://127.0.0.1/callback"]
            )
        )
        let cli = try await CLI.start(configuration)
        defer { Task { await cli.stop() } }
        // The secret comes from the environment, as the help recommends (command lines are visible to others).
        let first = try await cli.with(["TETHER_CLIENT_SECRET": secret]).loginWithDeviceCode([
            "login", "--issuer", cli.issuer, "--client-id", "tether-confidential", "--name", "work", "--device",
            "--json",
        ])
        #expect(first.status == 0, "\(first.stderr)")
        // --json: the connection alone on standard output, progress on standard error.
        let object = try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [[String: Any]]
        #expect(object?.first?["name"] as? String == "work")
        let settings = try String(contentsOf: cli.home.appendingPathComponent("connections.json"), encoding: .utf8)
        #expect(settings.contains("tether-confidential"))
        #expect(!settings.contains(secret), "the client secret is readable in connections.json")
        #expect(settings.contains("sealedClientSecret"))

        #expect(try await cli.run(["logout", "work"]).status == 0)
        // `tether login NAME` signs in again with the saved issuer, client id and (sealed) secret.
        let again = try await cli.loginWithDeviceCode(["login", "work", "--device"])
        #expect(again.status == 0, "\(again.stderr)")
        try await Task.sleep(for: .seconds(2))
        let token = try await cli.run(["token", "work"])
        #expect(token.status == 0, "the refresh with the sealed secret failed: \(token.stderr)")
        #expect(await cli.provider.admin.counters()[.refreshes] >= 1)
        let statusFile = cli.home.appendingPathComponent("status.json")
        let lastErrors = (try? String(contentsOf: statusFile, encoding: .utf8)) ?? ""
        #expect(!lastErrors.contains(secret))
    }

    @Test func unusableNamesAndPlainHTTPToOtherHostsAreUsageErrors() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.run(["login", "dev", "--name", ""]).status == 2)
        #expect(try await cli.run(["logout", String(repeating: "x", count: 201)]).status == 2)
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let plain = try await cli.run(["request", "http://example.com/api"])
        #expect(plain.status == 2)
        #expect(plain.stderr.contains("plain http"))
    }

    /// `script` (util-linux) runs a command on a pseudo-terminal.
    static let hasScript = FileManager.default.isExecutableFile(atPath: "/usr/bin/script")

    @Test(.enabled(if: hasScript, "Needs /usr/bin/script for a pseudo-terminal"))
    func colourOnlyOnATerminalAndNeverWithNO_COLOR() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let command = "'\(try CLI.executable().path)' providers"
        let onTerminal = try await cli.with(["TERM": "xterm"]).runScript(command)
        #expect(onTerminal.contains("\u{1B}[1m"), "no colour on a terminal: \(onTerminal.prefix(200))")
        let noColor = try await cli.with(["TERM": "xterm", "NO_COLOR": "1"]).runScript(command)
        #expect(!noColor.contains("\u{1B}["), "colour despite NO_COLOR")
        #expect(noColor.contains("google"))
        let piped = try await cli.run(["providers"])
        #expect(!piped.stdout.contains("\u{1B}["), "colour without a terminal")
    }

    @Test func demoExitsZero() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        // 10-second tokens: the fresh-process step must find the token still fresh when other suites load the machine.
        let demo = try await cli.run(["demo", "--lifetime", "10"], timeout: .seconds(150))
        #expect(demo.status == 0, "\(demo.stdout)\n\(demo.stderr)")
        #expect(demo.stdout.contains("Every step behaved as expected"))
        #expect(demo.stdout.contains("needs sign-in"))
        #expect(demo.stdout.contains("offline"))
        // The calendar step: two sources load; the revoked one shows its cached events, stale, the other loads.
        #expect(demo.stdout.contains("from ada-google (Google Calendar API)"))
        #expect(demo.stdout.contains("grace-outlook needs sign-in and shows"))
        #expect(demo.stdout.contains("ada-google loads fresh"))
        // A second calendar chosen, and the trip its flight completes.
        #expect(demo.stdout.contains("Travel"))
        #expect(demo.stdout.contains("FRA → HND → FRA, legs LH716, NH223"))
    }

    func send(_ method: HTTPRequest.Method, _ url: URL, bearer: String) async throws -> (status: Int, body: Data) {
        var request = HTTPRequest(method: method, url: url)
        request.headerFields[.authorization] = "Bearer \(bearer)"
        let (response, body) = try await URLSessionTransport().send(request, body: nil)
        return (response.status.code, body)
    }
}
