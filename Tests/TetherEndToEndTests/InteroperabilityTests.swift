import Foundation
import ProviderTestSupport
import Testing
import Tether
import TetherDevProvider
import TetherOAuth
import TetherURLSession

/// Discovery and client authentication against a development provider that behaves like other servers
/// (django-oauth-toolkit's metadata, per-client authentication methods, oauthlib's device endpoint).
@Suite(.timeLimit(.minutes(3)))
struct InteroperabilityTests {
    static let secret = "conformance-secret"

    /// A provider with a confidential client `confidential` registered for `method`.
    static func start(
        method: String? = nil,
        _ configure: (inout DevProvider.Configuration) -> Void = { _ in }
    ) async throws -> RunningDevProvider {
        var client = DevProvider.ClientRegistration(
            id: "confidential",
            secret: secret,
            redirectURIs: ["http://127.0.0.1/callback"]
        )
        client.tokenEndpointAuthMethod = method
        var configuration = DevProvider.Configuration(clients: [.defaultClient, client])
        configure(&configuration)
        return try await DevProvider(configuration).start()
    }

    static func discover(
        _ running: RunningDevProvider,
        clientID: String = "confidential",
        secret: String? = InteroperabilityTests.secret,
        clientAuthentication: ProviderConfiguration.ClientAuthentication? = nil
    ) async throws -> ProviderConfiguration {
        try await ProviderConfiguration.discover(
            issuer: running.issuer.absoluteString,
            clientID: clientID,
            clientSecret: secret.map(ClientSecret.init),
            providerID: "dev",
            transport: URLSessionTransport(),
            clientAuthentication: clientAuthentication
        )
    }

    @Test func endpointsMissingFromOpenIDDiscoveryComeFromRFC8414Metadata() async throws {
        let running = try await Self.start { $0.interoperability.openIDMetadataOmitsEndpoints = true }
        defer { Task { await running.stop() } }
        let configuration = try await Self.discover(running, clientID: "tether-dev-client", secret: nil)
        #expect(configuration.revocationEndpoint == running.issuer.appendingPathComponent("revoke"))
        #expect(
            configuration.deviceAuthorizationEndpoint == running.issuer.appendingPathComponent("device_authorization")
        )
        #expect(configuration.userinfoEndpoint != nil)
    }

    @Test func aPlainOAuthServerIsNotAskedForOpenID() async throws {
        let running = try await Self.start { $0.interoperability.supportsOpenIDConnect = false }
        defer { Task { await running.stop() } }
        let configuration = try await Self.discover(running, clientID: "tether-dev-client", secret: nil)
        #expect(!configuration.scopes.contains("openid"))
        #expect(configuration.scopes == ["offline_access"])
    }

    @Test func theProvidersOrderOfAuthenticationMethodsIsHonoured() async throws {
        let running = try await Self.start(method: "client_secret_post") {
            $0.interoperability.tokenEndpointAuthMethods = ["client_secret_post", "client_secret_basic"]
        }
        defer { Task { await running.stop() } }
        let configuration = try await Self.discover(running)
        #expect(configuration.clientAuthentication == .secretPost)
        let client = try OAuthClient(configuration: configuration, transport: URLSessionTransport())
        _ = try await client.startDeviceAuthorization()
    }

    @Test func anExplicitAuthenticationMethodWins() async throws {
        let running = try await Self.start(method: "client_secret_basic") {
            $0.interoperability.tokenEndpointAuthMethods = ["client_secret_post", "client_secret_basic"]
        }
        defer { Task { await running.stop() } }
        let configuration = try await Self.discover(running, clientAuthentication: .secretBasic)
        #expect(configuration.clientAuthentication == .secretBasic)
        let client = try OAuthClient(configuration: configuration, transport: URLSessionTransport())
        _ = try await client.startDeviceAuthorization()
    }

    @Test func deviceAuthorizationNamesABasicClientInTheForm() async throws {
        let running = try await Self.start(method: "client_secret_basic") {
            $0.interoperability.deviceAuthorizationRequiresClientIDInForm = true
        }
        defer { Task { await running.stop() } }
        let configuration = try await Self.discover(running)
        #expect(configuration.clientAuthentication == .secretBasic)
        let client = try OAuthClient(configuration: configuration, transport: URLSessionTransport())
        _ = try await client.startDeviceAuthorization()
    }
}
