import Foundation
import Testing
import Tether
import TetherOAuth

extension ConformanceTests {
    /// `ProviderConfiguration.discover` on DOT's two metadata documents, neither of which lists every endpoint.
    @Suite(.conformanceServer)
    struct DiscoveryTests {
        @Test func endpointsMissingFromOpenIDDiscoveryComeFromTheRFC8414Document() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let server = harness.server
            let configuration = try await harness.discover(scopes: nil)

            #expect(configuration.issuer == server.issuer)
            #expect(configuration.authorizationEndpoint == server.endpoint("authorize/"))
            #expect(configuration.tokenEndpoint == server.endpoint("token/"))
            #expect(configuration.userinfoEndpoint == server.endpoint("userinfo/"))
            #expect(configuration.jwksURI == server.endpoint(".well-known/jwks.json"))
            // Only the RFC 8414 document lists revocation; neither lists the device endpoint.
            #expect(configuration.revocationEndpoint == server.endpoint("revoke_token/"))
            #expect(configuration.deviceAuthorizationEndpoint == nil)
            #expect(configuration.scopes == ["openid", "email", "profile", "offline_access"])
            #expect(configuration.clientAuthentication == .none)
            #expect(configuration.issuerInAuthorizationResponse == false)

            let requests = try await server.requests()
            #expect(requests.to("/o/.well-known/openid-configuration").map(\.status) == [200], "\(requests)")
            #expect(requests.to("/.well-known/oauth-authorization-server/o").map(\.status) == [200], "\(requests)")
        }

        @Test func aConfidentialClientTakesTheFirstSecretMethodTheServerLists() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let server = harness.server
            let secret = try server.secret(of: "tether-post")
            // DOT's default order: client_secret_post, client_secret_basic.
            #expect(try await harness.discover("tether-post", secret: secret).clientAuthentication == .secretPost)
            let basicFirst: [String: Setting] = [
                "OIDC_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": .strings(["client_secret_basic", "client_secret_post"]),
                "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": .strings(["client_secret_basic", "client_secret_post"]),
            ]
            let reordered = try await server.with(basicFirst) {
                try await harness.discover("tether-post", secret: secret).clientAuthentication
            }
            #expect(reordered == .secretBasic)
            // An explicit choice wins over the server's order.
            let chosen = try await harness.discover("tether-post", secret: secret, authentication: .secretBasic)
            #expect(chosen.clientAuthentication == .secretBasic)
        }

        @Test func withoutOpenIDConnectTheRFC8414DocumentAloneServesAndNoOpenIDIsAsked() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let server = harness.server
            try await server.with(["OIDC_ENABLED": .bool(false)]) {
                let configuration = try await harness.discover(scopes: nil)
                #expect(configuration.userinfoEndpoint == nil)
                #expect(configuration.jwksURI == nil)
                #expect(configuration.revocationEndpoint == server.endpoint("revoke_token/"))
                #expect(configuration.scopes == ["offline_access"])
                let requests = try await server.requests()
                #expect(requests.to("/o/.well-known/openid-configuration").map(\.status) == [404], "\(requests)")

                // The sign-in works and is kept as an unknown account: no ID token, no userinfo to ask.
                let client = try harness.client(configuration)
                let result = try await client.signIn(using: harness.formPresenter())
                #expect(result.account == nil)
                #expect(result.idTokenClaims == nil)
                #expect(result.tokens.idToken == nil)
                #expect(result.tokens.refreshToken != nil)
                #expect(result.tokens.scopes == ["offline_access"])
                let afterSignIn = try await server.requests()
                #expect(afterSignIn.tokenRequests("authorization_code").map(\.status) == [200], "\(afterSignIn)")
                #expect(afterSignIn.to("/o/userinfo/").isEmpty, "\(afterSignIn)")
            }
        }

        @Test func anIssuerSpelledOtherwiseThanTheMetadataIsRefused() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let error = await #expect(throws: OAuthError.self) {
                _ = try await ProviderConfiguration.discover(
                    issuer: harness.server.issuer + "/",
                    clientID: "tether-public",
                    transport: harness.transport
                )
            }
            #expect(error == .discoveryFailed)
            #expect(error?.message.contains("RFC 8414 §3.3") == true, "\(String(describing: error))")
        }

        @Test func theRFC9207IssuerParameterIsRequiredOnceTheServerAnnouncesIt() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            try await harness.server.with(["COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": .bool(true)]) {
                let configuration = try await harness.discover()
                #expect(configuration.issuerInAuthorizationResponse)
                let result = try await harness.client(configuration).signIn(using: harness.formPresenter())
                #expect(result.account?.subject == "1")
            }
        }
    }
}
