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
}
