import Foundation
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// `tether login github --device` against a development provider speaking the GitHub dialect.
@Suite(.timeLimit(.minutes(3)))
struct GitHubCommandTests {
    @Test func deviceLoginStatusAndLogoutThatCannotRevokeWithoutASecret() async throws {
        var configuration = DevProvider.Configuration()
        configuration.dialect = .github
        let cli = try await CLI.start(configuration)
        defer { Task { await cli.stop() } }
        let login = try await cli.loginWithDeviceCode([
            "login", "github", "--issuer", cli.issuer, "--client-id", "tether-dev-client", "--device",
        ])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stderr.contains("/login/device"), "\(login.stderr)")
        #expect(login.stderr.contains("Signed in to 'github' as a***."), "\(login.stderr)")
        let row = try #require(try await cli.status().first)
        #expect(row["provider"] as? String == "github")
        #expect(row["state"] as? String == "connected")
        let token = try await cli.run(["token", "github"])
        #expect(token.status == 0, "\(token.stderr)")
        #expect(!token.trimmedOutput.isEmpty)

        let logout = try await cli.run(["logout", "github"])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(logout.stderr.contains("not revoked at the provider"), "\(logout.stderr)")
        #expect(logout.stderr.contains("client secret"), "\(logout.stderr)")
        #expect(await cli.provider.admin.counters()[.grantsRevoked] == 0)
    }

    @Test func aNarrowedGrantIsShownAfterLogin() async throws {
        var configuration = DevProvider.Configuration()
        configuration.dialect = .github
        configuration.interoperability.grantableScopes = ["read:user"]
        let cli = try await CLI.start(configuration)
        defer { Task { await cli.stop() } }
        let login = try await cli.loginWithDeviceCode([
            "login", "github", "--issuer", cli.issuer, "--client-id", "tether-dev-client", "--device",
        ])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stderr.contains("Not granted: user:email"), "\(login.stderr)")
    }
}
