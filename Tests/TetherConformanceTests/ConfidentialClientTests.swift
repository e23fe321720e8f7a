import Foundation
import Testing
import Tether
import TetherOAuth

extension ConformanceTests {
    /// Confidential clients (RFC 6749 §2.3.1). The conformance server holds `tether-basic` to `client_secret_basic`
    /// and `tether-post` to `client_secret_post`, so a sign-in proves which method Tether sent.
    @Suite(.conformanceServer)
    struct ConfidentialClientTests {
        @Test(arguments: [
            ("tether-basic", ProviderConfiguration.ClientAuthentication.secretBasic, "basic"),
            ("tether-post", .secretPost, "post"),
        ])
        func signInRefreshAndSignOutUseTheClientsMethod(
            clientID: String,
            method: ProviderConfiguration.ClientAuthentication,
            logged: String
        ) async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let secret = try harness.server.secret(of: clientID)
            let (client, result) = try await harness.signIn(clientID, secret: secret, authentication: method)
            #expect(client.configuration.clientAuthentication == method)
            #expect(result.account?.subject == "1")
            let session = harness.session(try harness.vault(), client: client)
            try await session.signIn(account: try #require(result.account), tokens: result.tokens)
            _ = try await session.forceRefresh()
            try await session.signOut()

            let requests = try await harness.server.requests()
            let sent = requests.filter { $0.path == "/o/token/" || $0.path == "/o/revoke_token/" }
            #expect(
                sent.map(\.description) == [
                    "POST /o/token/ grant_type=authorization_code client_auth=\(logged) -> 200",
                    "POST /o/token/ grant_type=refresh_token client_auth=\(logged) -> 200",
                    "POST /o/revoke_token/ client_auth=\(logged) token_type_hint=refresh_token -> 200",
                ],
                "\(requests)"
            )
        }

        @Test(arguments: [
            ("tether-basic", ProviderConfiguration.ClientAuthentication.secretPost),
            ("tether-post", .secretBasic),
        ])
        func theOtherMethodIsRefusedAsAConfigurationProblem(
            clientID: String,
            method: ProviderConfiguration.ClientAuthentication
        ) async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let secret = try harness.server.secret(of: clientID)
            let error = await #expect(throws: OAuthError.self) {
                _ = try await harness.signIn(clientID, secret: secret, authentication: method)
            }
            #expect(error?.classification == .configuration, "\(String(describing: error))")
            #expect(error?.httpStatus == 401)
            #expect(error?.requiresReauthentication == false)
            let requests = try await harness.server.requests()
            #expect(requests.tokenRequests("authorization_code").map(\.status) == [401], "\(requests)")
        }
    }
}
