import Foundation
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

@testable import TetherCLI

/// `tether git-credential` at the protocol level: what git writes on standard input and reads back, against the
/// development provider on 127.0.0.1.
@Suite(.timeLimit(.minutes(3)))
struct GitCredentialCommandTests {
    /// `key=value` lines as a dictionary (the last value of a repeated key).
    static func fields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    @Test func gitGetAnswersAPasswordOrABearerCredentialWithTheExpiry() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let token = try await cli.run(["token", "dev"]).trimmedOutput
        let expiry = try #require(await cli.provider.admin.expiry(ofAccessToken: token))

        let classic = try await cli.run(
            ["git-credential", "--connection", "dev", "get"],
            input: "protocol=https\nhost=git.example.com\nwwwauth[]=Basic realm=\"x\"\n\n"
        )
        #expect(classic.status == 0, "\(classic.stderr)")
        let answer = Self.fields(classic.stdout)
        #expect(Set(answer.keys) == ["username", "password", "password_expiry_utc"], "\(answer.keys)")
        #expect(answer["username"] == "oauth2")
        #expect(answer["password"] == token)
        let expiresAt = try #require(answer["password_expiry_utc"].flatMap(Double.init))
        #expect(abs(expiresAt - expiry.timeIntervalSince1970) < 2, "\(expiresAt) vs \(expiry)")
        #expect(classic.stderr.isEmpty, "\(classic.stderr)")

        // git 2.46 and later announce authtype: a Bearer credential that git does not keep.
        let bearer = try await cli.run(
            ["git-credential", "--connection", "dev", "get"],
            input: "capability[]=authtype\ncapability[]=state\nprotocol=https\nhost=git.example.com\n"
        )
        #expect(bearer.status == 0, "\(bearer.stderr)")
        let lines = bearer.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("capability[]=authtype"))
        #expect(lines.contains("authtype=Bearer"))
        #expect(lines.contains("credential=\(token)"))
        #expect(lines.contains("ephemeral=true"))
        #expect(lines.contains { $0.hasPrefix("password_expiry_utc=") })
        #expect(!lines.contains { $0.hasPrefix("password=") || $0.hasPrefix("username=") }, "\(lines)")

        // A user name from the URL is kept; --username overrides everything.
        let named = try await cli.run(
            ["git-credential", "--connection", "dev", "get"],
            input: "protocol=https\nhost=git.example.com\nusername=ada\n"
        )
        #expect(Self.fields(named.stdout)["username"] == "ada")
        let overridden = try await cli.run(
            ["git-credential", "--connection", "dev", "--username", "x-access-token", "get"],
            input: "protocol=https\nhost=git.example.com\n"
        )
        #expect(Self.fields(overridden.stdout)["username"] == "x-access-token")
    }

    @Test func eraseMakesTheNextGetRefreshOnceAndKeepsTheGrant() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let input = "protocol=https\nhost=git.example.com\n"
        let get = ["git-credential", "--connection", "dev", "get"]
        let first = Self.fields(try await cli.run(get, input: input).stdout)["password"]
        let rejected = try #require(first)
        let before = await cli.provider.admin.counters()[.refreshes]

        // Another token refused: nothing changes.
        let other = try await cli.run(
            ["git-credential", "--connection", "dev", "erase"],
            input: input + "password=x\n"
        )
        #expect(other.status == 0, "\(other.stderr)")
        #expect(Self.fields(try await cli.run(get, input: input).stdout)["password"] == rejected)
        #expect(await cli.provider.admin.counters()[.refreshes] == before)

        let erase = try await cli.run(
            ["git-credential", "--connection", "dev", "erase"],
            input: input + "username=oauth2\npassword=\(rejected)\n"
        )
        #expect(erase.status == 0, "\(erase.stderr)")
        #expect(erase.stdout.isEmpty)
        #expect(await cli.provider.admin.counters()[.refreshes] == before, "erase itself refreshed")
        let marker = try String(contentsOf: cli.home.appendingPathComponent("rejected-tokens.json"), encoding: .utf8)
        #expect(marker.contains("\"dev\""))
        #expect(!marker.contains(rejected), "the refused token is written in the clear")

        let second = Self.fields(try await cli.run(get, input: input).stdout)["password"]
        #expect(second != nil && second != rejected)
        #expect(await cli.provider.admin.counters()[.refreshes] == before + 1)
        let third = Self.fields(try await cli.run(get, input: input).stdout)["password"]
        #expect(third == second)
        #expect(await cli.provider.admin.counters()[.refreshes] == before + 1)
        #expect(try await cli.status().first?["state"] as? String == "connected")
        // store is a no-op.
        let store = try await cli.run(
            ["git-credential", "--connection", "dev", "store"],
            input: input + "password=y\n"
        )
        #expect(store.status == 0 && store.stdout.isEmpty)
        #expect(Self.fields(try await cli.run(get, input: input).stdout)["password"] == second)

        // Signing out takes the fingerprint with the token: the file of the only connection goes.
        let markers = cli.home.appendingPathComponent("rejected-tokens.json")
        let refused = try await cli.run(
            ["git-credential", "--connection", "dev", "erase"],
            input: input + "username=oauth2\npassword=\(second ?? "")\n"
        )
        #expect(refused.status == 0 && FileManager.default.fileExists(atPath: markers.path))
        #expect(try await cli.run(["logout", "dev"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: markers.path))
    }

    @Test func theHostMappingTheLinkedNameAndWhatGitDoesNotGetAnAnswerFor() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let login = try await cli.loginWithDeviceCode([
            "login", "dev", "--issuer", cli.issuer, "--device", "--git-host", "Git.Example.com",
            "--git-username", "x-token-auth",
        ])
        #expect(login.status == 0, "\(login.stderr)")
        let bin = try cli.helperLinks()
        let linked = bin.appendingPathComponent("git-credential-tether").path
        func helper(_ arguments: [String], _ input: String) async throws -> CLI.Result {
            try await ChildProcess.run([linked] + arguments, input: input, environment: cli.environment)
        }
        let token = try await cli.run(["token", "dev"]).trimmedOutput

        let mapped = try await helper(["get"], "protocol=https\nhost=git.example.com\n")
        #expect(mapped.status == 0, "\(mapped.stderr)")
        #expect(Self.fields(mapped.stdout)["username"] == "x-token-auth")
        #expect(Self.fields(mapped.stdout)["password"] == token)

        // Another host, another port: no answer, so that git asks its other helpers.
        for host in ["github.com", "git.example.com:8443"] {
            let other = try await helper(["get"], "protocol=https\nhost=\(host)\n")
            #expect(other.status == 0 && other.stdout.isEmpty, "\(host): \(other.stdout) \(other.stderr)")
        }
        // Unknown operations are ignored; `capability` lists authtype.
        let unknown = try await helper(["frobnicate"], "protocol=https\nhost=git.example.com\n")
        #expect(unknown.status == 0 && unknown.stdout.isEmpty && unknown.stderr.isEmpty)
        let capability = try await helper(["capability"], "")
        #expect(capability.stdout.contains("capability authtype"), "\(capability.stdout)")
        // Plain http to another host: no token, and git stops.
        let plain = try await helper(["get"], "protocol=http\nhost=git.example.com\n")
        #expect(plain.status == 5, "\(plain.stderr)")
        #expect(plain.stdout == "quit=1\n")
        #expect(!plain.stderr.contains(token))
        // A line longer than git's limit is refused with nothing on standard output.
        let long = try await helper(
            ["get"],
            "protocol=https\nhost=git.example.com\npath=\(String(repeating: "a", count: 70_000))\n"
        )
        #expect(long.status == 2, "\(long.stderr)")
        #expect(long.stdout.isEmpty)
        #expect(long.stderr.contains("65535"), "\(long.stderr)")
    }

    @Test func needsSignInAndOfflineTellGitToQuitWithOneLine() async throws {
        let cli = try await CLI.start(DevProvider.Configuration(accessTokenLifetime: .seconds(4)))
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let input = "protocol=https\nhost=git.example.com\n"

        let unknown = try await cli.run(["git-credential", "--connection", "nope", "get"], input: input)
        #expect(unknown.status == 3, "\(unknown.stderr)")
        #expect(unknown.stdout == "quit=1\n")
        #expect(unknown.stderr.contains("tether login"), "\(unknown.stderr)")

        // Offline: the provider answers 503 to every refresh; the grant is kept.
        try await Task.sleep(for: .seconds(4))
        await cli.provider.admin.failNext(1000, requestsTo: .token)
        let offline = try await cli.run(["git-credential", "--connection", "dev", "get"], input: input)
        #expect(offline.status == 4, "\(offline.stderr)")
        #expect(offline.stdout == "quit=1\n")
        #expect(offline.stderr.split(separator: "\n").count == 1, "\(offline.stderr)")
        #expect(offline.stderr.contains("try again"), "\(offline.stderr)")
        await cli.provider.admin.failNext(0, requestsTo: .token)
        let back = try await cli.run(["git-credential", "--connection", "dev", "get"], input: input)
        #expect(back.status == 0, "the grant was lost: \(back.stderr)")

        _ = await cli.provider.admin.revokeAllGrants()
        try await Task.sleep(for: .seconds(4))
        let revoked = try await cli.run(["git-credential", "--connection", "dev", "get"], input: input)
        #expect(revoked.status == 3, "\(revoked.stderr)")
        #expect(revoked.stdout == "quit=1\n")
        #expect(revoked.stderr.split(separator: "\n").count == 1, "\(revoked.stderr)")
        #expect(revoked.stderr.contains("'dev'") && revoked.stderr.contains("tether login dev"), "\(revoked.stderr)")
        // Nothing was deleted: the connection is there, waiting for a sign-in.
        #expect(try await cli.status().first?["state"] as? String == "needs-sign-in")
    }

    @Test func gitInputParsesListsAndHostsNormalize() throws {
        let input = try GitCredentialInput.parse(
            Data("capability[]=a\ncapability[]=\ncapability[]=authtype\nhost=x\r\npassword=p=q\n\nhost=ignored\n".utf8)
        )
        #expect(input.capabilities == ["authtype"])
        #expect(input.host == "x")
        #expect(input.password == "p=q")
        #expect(throws: CLIFailure.self) { try GitCredentialInput.parse(Data("novalue\n".utf8)) }
        #expect(CredentialHelperSetting.host(of: "https://User@GHCR.io:443/v2/") == "ghcr.io:443")
        #expect(CredentialHelperSetting.host(of: "index.docker.io/v1/") == "index.docker.io")
        #expect(CredentialHelperSetting.host(of: "exa mple.com") == nil)
    }
}
