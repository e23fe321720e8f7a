import Foundation
import Testing
import Tether
import TetherCommandSupport
import TetherDevProvider
import TetherOAuth
import TetherTestSupport
import TetherURLSession

@testable import TetherCLI

/// `tether login`'s provider resolution and configuration, called directly, without ArgumentParser.
struct ProviderSetupTests {
    @Test func presetsAreReadInAnyCaseAndOtherNamesAreSavedConnections() throws {
        #expect(try ProviderSetup(provider: "Google").choice(existing: nil) == .preset(.google))
        #expect(try ProviderSetup(issuer: "https://login.example.com").choice(existing: nil) == .issuer)
        #expect(throws: CLIFailure.self) { try ProviderSetup(provider: "work").choice(existing: nil) }
        #expect(throws: CLIFailure.self) { try ProviderSetup().choice(existing: nil) }
        #expect(
            ProviderPreset.allCases.map(\.rawValue) == ["google", "microsoft", "github", "dev", "firebase", "apple"]
        )
    }

    @Test func scopesAreSplitOnSpacesAndCommasAndTheEnvironmentIsAFallback() {
        #expect(
            ProviderSetup.scopes(["openid email", "calendar,tasks"], environment: [:])
                == ["openid", "email", "calendar", "tasks"]
        )
        #expect(ProviderSetup.scopes([], environment: ["TETHER_SCOPE": "openid profile"]) == ["openid", "profile"])
        #expect(ProviderSetup.scopes(["a"], environment: ["TETHER_SCOPE": "b"]) == ["a"])
        #expect(ProviderSetup.scopes([], environment: [:]) == nil)
    }

    @Test func aPresetWithoutAClientIDFailsBeforeAnyRequest() async throws {
        let transport = CountingTransport()
        let setup = ProviderSetup(provider: "google")
        await #expect(throws: CLIFailure.self) {
            _ = try await setup.configuration(
                for: .preset(.google),
                existing: nil,
                openSecret: { sealed, _ in sealed },
                transport: transport
            )
        }
        #expect(transport.count == 0)
    }

    @Test func theDevPresetIsDiscoveredAndEndpointOverridesApply() async throws {
        let running = try await DevProvider().start()
        defer { Task { await running.stop() } }
        let setup = ProviderSetup(
            provider: "dev",
            issuer: running.issuer.absoluteString,
            revocationEndpoint: "https://revoke.example.com/revoke",
            environment: ["TETHER_SCOPE": "openid email"]
        )
        let configuration = try await setup.configuration(
            for: try setup.choice(existing: nil),
            existing: nil,
            openSecret: { sealed, _ in sealed },
            transport: URLSessionTransport()
        )
        #expect(configuration.providerID == "dev")
        #expect(configuration.clientID == "tether-dev-client")
        #expect(configuration.scopes == ["openid", "email"])
        #expect(configuration.tokenEndpoint.host == running.issuer.host)
        #expect(configuration.revocationEndpoint?.absoluteString == "https://revoke.example.com/revoke")
    }

    // MARK: Discovery failures and --token-endpoint

    /// Resolves `--issuer` with `--token-endpoint` against a development provider.
    private func configurationWithTokenEndpoint(_ running: RunningDevProvider) async throws -> ProviderConfiguration {
        let base = "http://127.0.0.1:\(running.port)"
        let setup = ProviderSetup(issuer: base, clientID: "cli", tokenEndpoint: base + "/token")
        return try await setup.configuration(
            for: .issuer,
            existing: nil,
            openSecret: { sealed, _ in sealed },
            transport: URLSessionTransport()
        )
    }

    @Test func aServerWithoutDiscoveryUsesTheGivenTokenEndpoint() async throws {
        let faults = DevProvider.Faults(serverErrors: [.discovery: 2], serverErrorStatus: 404)
        let running = try await DevProvider(.init(faults: faults)).start()
        defer { Task { await running.stop() } }

        let configuration = try await configurationWithTokenEndpoint(running)

        #expect(configuration.issuer == nil)
        #expect(configuration.tokenEndpoint.absoluteString == "http://127.0.0.1:\(running.port)/token")
    }

    @Test func anOutageIsNotTakenForAServerWithoutDiscovery() async throws {
        let faults = DevProvider.Faults(serverErrors: [.discovery: 2], serverErrorStatus: 500)
        let running = try await DevProvider(.init(faults: faults)).start()
        defer { Task { await running.stop() } }

        let failure = await #expect(throws: CLIFailure.self) { try await configurationWithTokenEndpoint(running) }

        #expect(failure?.message.contains("HTTP 500") == true)
    }

    @Test func anIssuerMismatchIsNotTakenForAServerWithoutDiscovery() async throws {
        let impostor = try #require(URL(string: "http://127.0.0.1:9/impostor"))
        let running = try await DevProvider(.init(issuer: impostor)).start()
        defer { Task { await running.stop() } }

        let failure = await #expect(throws: CLIFailure.self) { try await configurationWithTokenEndpoint(running) }

        #expect(failure?.message.contains("RFC 8414") == true)
        #expect(failure?.fix?.contains("--token-endpoint is not used") == true)
    }

    // MARK: --client-secret-file

    private func secretFile(_ content: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tether-secret-\(UUID().uuidString)")
        try Data(content.utf8).write(to: url)
        return url.path
    }

    private let noInput: () throws -> Data = {
        Issue.record("standard input read")
        return Data()
    }

    @Test func aClientSecretFileIsReadWithoutItsTrailingNewline() throws {
        let path = try secretFile("s3cret-from-file\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try ProviderSetup.clientSecret(fromFile: path, standardInput: noInput) == "s3cret-from-file")
        let windows = try secretFile("s3cret \r\n")
        defer { try? FileManager.default.removeItem(atPath: windows) }
        #expect(try ProviderSetup.clientSecret(fromFile: windows, standardInput: noInput) == "s3cret ")
    }

    @Test func aDashReadsTheClientSecretFromStandardInput() throws {
        let secret = try ProviderSetup.clientSecret(fromFile: "-") { Data("s3cret-from-stdin\n".utf8) }
        #expect(secret == "s3cret-from-stdin")
    }

    @Test(arguments: ["", "\n", "\r\n"])
    func anEmptyClientSecretFileIsRefused(content: String) throws {
        let path = try secretFile(content)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let failure = #expect(throws: CLIFailure.self) {
            try ProviderSetup.clientSecret(fromFile: path, standardInput: noInput)
        }
        #expect(failure?.status == .usage)
        #expect(failure?.message.contains("is empty") == true)
        #expect(throws: CLIFailure.self) { try ProviderSetup.clientSecret(fromFile: "-") { Data() } }
    }

    @Test func aMissingClientSecretFileIsAUsageError() {
        let failure = #expect(throws: CLIFailure.self) {
            try ProviderSetup.clientSecret(fromFile: "/nonexistent/tether-secret", standardInput: noInput)
        }
        #expect(failure?.status == .usage)
    }

    @Test func theSecretFromAFileNeverReachesAnErrorMessage() async throws {
        let path = try secretFile("s3cret-canary\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let secret = try ProviderSetup.clientSecret(fromFile: path, standardInput: noInput)
        // Nothing listens on port 9 of the loopback interface: discovery fails.
        let setup = ProviderSetup(issuer: "http://127.0.0.1:9", clientID: "cli", clientSecret: secret)
        let failure = await #expect(throws: CLIFailure.self) {
            _ = try await setup.configuration(
                for: .issuer,
                existing: nil,
                openSecret: { sealed, _ in sealed },
                transport: URLSessionTransport()
            )
        }
        let text = try #require(failure).description
        #expect(!text.contains("s3cret"))
        #expect(!"\(setup)".contains("s3cret"))
    }
}
