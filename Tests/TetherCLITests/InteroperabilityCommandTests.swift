import Foundation
import Testing
import Tether
import TetherCommandSupport
import TetherDevProvider
import TetherOAuth
import TetherTestSupport

/// `tether` against a development provider that behaves like other servers (django-oauth-toolkit): identity it
/// cannot get, endpoints only its RFC 8414 document lists, a client held to one authentication method, a browser
/// command that fails.
@Suite(.timeLimit(.minutes(3)))
struct InteroperabilityCommandTests {
    static let secret = "conformance-secret"

    static func start(_ configure: (inout DevProvider.Configuration) -> Void) async throws -> CLI {
        var configuration = DevProvider.Configuration()
        configure(&configuration)
        return try await CLI.start(configuration)
    }

    @Test func aSignInWithoutIdentityIsKeptAsUnknownAccount() async throws {
        let cli = try await Self.start {
            $0.interoperability.issuesIDTokenForDeviceGrant = false
            $0.interoperability.userinfoRequiresOpenIDScope = true
        }
        defer { Task { await cli.stop() } }
        let login = try await cli.loginWithDeviceCode([
            "login", "dev", "--issuer", cli.issuer, "--device", "--scope", "offline_access",
        ])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stderr.contains("Signed in to 'dev' as an unknown account."), "\(login.stderr)")
        let row = try #require(try await cli.status().first)
        #expect(row["account"] as? String == "unknown account")
        #expect(row["provider"] as? String == "dev")
        #expect(row["state"] as? String == "connected")
    }

    @Test func endpointsOnlyTheRFC8414DocumentListsAreUsed() async throws {
        let cli = try await Self.start { $0.interoperability.openIDMetadataOmitsEndpoints = true }
        defer { Task { await cli.stop() } }
        let login = try await cli.loginWithDeviceCode()
        #expect(login.status == 0, "\(login.stderr)")
        let logout = try await cli.run(["logout"])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(logout.trimmedOutput.isEmpty)
        #expect(logout.stderr == "Signed out of 'dev'.\n")
        #expect(await cli.provider.admin.counters()[.revocations] == 1)
    }

    @Test func logoutSaysWhenTheProviderWasNotTold() async throws {
        let cli = try await Self.start { _ in }
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        await cli.provider.admin.failNext(5, requestsTo: .revoke, status: 400)
        let logout = try await cli.run(["logout"])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(logout.stderr.contains("its tokens were deleted, but not revoked at the provider"), "\(logout.stderr)")
        #expect(!logout.stderr.contains("Signed out of 'dev'."))
        #expect(try await cli.status().first?["state"] as? String == "not-connected")
    }

    @Test func theClientAuthenticationMethodIsChosenOnTheCommandLine() async throws {
        let cli = try await Self.start {
            var client = DevProvider.ClientRegistration(
                id: "confidential",
                secret: Self.secret,
                redirectURIs: ["http://127.0.0.1/callback"]
            )
            client.tokenEndpointAuthMethod = "client_secret_basic"
            $0.clients.append(client)
            $0.interoperability.tokenEndpointAuthMethods = ["client_secret_post", "client_secret_basic"]
        }
        defer { Task { await cli.stop() } }
        let withSecret = cli.with(["TETHER_CLIENT_SECRET": Self.secret])
        let arguments = ["login", "dev", "--issuer", cli.issuer, "--client-id", "confidential", "--device"]
        // The server lists client_secret_post first, but this client is registered for client_secret_basic.
        let refused = try await withSecret.run(arguments)
        #expect(refused.status != 0)
        let login = try await withSecret.loginWithDeviceCode(
            arguments + ["--client-auth-method", "client_secret_basic"]
        )
        #expect(login.status == 0, "\(login.stderr)")
        // Kept with the connection: signing in again needs no option.
        let again = try await withSecret.loginWithDeviceCode(["login", "dev", "--device"])
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test func aFailingBrowserCommandStopsTheSignInAtOnce() async throws {
        let cli = try await Self.start { _ in }
        defer { Task { await cli.stop() } }
        let login = try await cli.with(["BROWSER": "/bin/false"]).run(["login", "dev", "--issuer", cli.issuer])
        #expect(login.status == 1, "\(login.stderr)")
        #expect(login.stderr.contains("'false' exited with status 1"), "\(login.stderr)")
        #expect(login.stderr.contains("--device"), "\(login.stderr)")
    }

    /// A browser that opens the page and never signs in: the wait ends at --timeout with 3, as every failure that
    /// signing in again fixes, and nothing is stored.
    @Test func aSignInThatTimesOutExitsThreeAndSaysHowToRetry() async throws {
        let cli = try await Self.start { _ in }
        defer { Task { await cli.stop() } }
        let login = try await cli.with(["BROWSER": "/bin/true"]).run(
            ["login", "dev", "--issuer", cli.issuer, "--name", "late", "--timeout", "1"]
        )
        #expect(login.status == 3, "\(login.stderr)")
        #expect(login.stderr.contains("The sign-in timed out"), "\(login.stderr)")
        #expect(login.stderr.contains("Sign in again (a longer --timeout gives more time)"), "\(login.stderr)")
        let token = try await cli.run(["token", "late"])
        #expect(token.status == 3 && token.stdout.isEmpty, "\(token.stderr)")
        // A first sign-in that failed leaves no state behind for a connection that does not exist.
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("status.json").path))
    }

    @Test func anExpiredDeviceCodeExitsThree() {
        let failure = CLIFailure.from(OAuthError.deviceCodeExpired, connection: "tv")
        #expect(failure.status == .needsSignIn)
        #expect(failure.description.contains("Sign in again with --device"))
    }
}
