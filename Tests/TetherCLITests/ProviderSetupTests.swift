import Foundation
import Testing
import Tether
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
        #expect(ProviderPreset.allCases.map(\.rawValue) == ["google", "microsoft", "dev", "firebase", "apple"])
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
}
