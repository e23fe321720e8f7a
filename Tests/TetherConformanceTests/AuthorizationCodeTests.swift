import Foundation
import Testing
import Tether
import TetherOAuth
import TetherTestSupport

extension ConformanceTests {
    /// The authorization code flow with PKCE (RFC 6749 §4.1, RFC 7636) through DOT's own sign-in form, its consent
    /// page and a real headless Chromium, with the loopback redirect of RFC 8252.
    @Suite(.conformanceServer)
    struct AuthorizationCodeTests {
        @Test func aPublicClientSignsInWithPKCEOnTheServersForm() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let (_, result) = try await harness.signIn()

            let account = try #require(result.account)
            #expect(account.subject == "1")
            #expect(account.displayIdentifier == "ada@example.com")
            let claims = try #require(result.idTokenClaims)
            #expect(claims.issuer == harness.server.issuer)
            #expect(claims.audience == ["tether-public"])
            #expect(claims.nonce != nil)
            #expect(result.tokens.refreshToken != nil)
            #expect(result.tokens.idToken != nil)
            #expect(Set(result.tokens.scopes ?? []) == Set(Harness.scopes))
            #expect(result.missingScopes.isEmpty)
            let lifetime = try #require(result.tokens.expiresAt).timeIntervalSinceNow
            #expect((3500...3600).contains(lifetime), "expires in \(lifetime) s")

            let requests = try await harness.server.requests()
            let exchanges = requests.tokenRequests("authorization_code")
            #expect(exchanges.map(\.status) == [200], "\(requests)")
            #expect(exchanges.map(\.clientAuthentication) == ["none"], "\(requests)")
            #expect(requests.to("/o/.well-known/jwks.json").map(\.status) == [200], "\(requests)")
        }

        @Test func theServerHoldsTheCodeToItsPKCEVerifier() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let client = try harness.client(try await harness.discover())
            let presentation = try await harness.formPresenter().begin(redirectURI: nil)
            let request = try client.makeAuthorizationRequest(redirectURI: presentation.redirectURI)
            let callbackURL = try await presentation.present(request.url)
            await presentation.cancel()
            let code = try request.callback(from: callbackURL).code

            // Another request of the same client has another verifier: DOT refuses the code with it.
            let other = try client.makeAuthorizationRequest(redirectURI: presentation.redirectURI)
            let error = await #expect(throws: OAuthError.self) { _ = try await client.exchange(code, for: other) }
            #expect(error?.errorCode == .invalidGrant)
            #expect(error?.httpStatus == 400)
            #expect(error?.requiresReauthentication == true)
            let requests = try await harness.server.requests()
            #expect(requests.tokenRequests("authorization_code").map(\.status) == [400], "\(requests)")
        }

        @Test func aPersonWhoAllowsOnTheConsentPageIsSignedIn() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let client = try harness.client(try await harness.discover("tether-consent"))
            let result = try await client.signIn(using: harness.formPresenter(decision: "allow"))
            #expect(result.account?.subject == "1")
            // The form was shown (GET), then answered (POST) before the redirect.
            let requests = try await harness.server.requests()
            #expect(requests.to("/o/authorize/").map(\.method).contains("POST"), "\(requests)")
            #expect(requests.tokenRequests("authorization_code").map(\.status) == [200], "\(requests)")
        }

        @Test func aPersonWhoDeniesOnTheConsentPageGetsAccessDenied() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let client = try harness.client(try await harness.discover("tether-consent"))
            await #expect(throws: OAuthError.accessDenied) {
                _ = try await client.signIn(using: harness.formPresenter(decision: "deny"))
            }
            let requests = try await harness.server.requests()
            #expect(requests.to("/o/token/").isEmpty, "\(requests)")
        }

        @Test(.enabled(if: HeadlessBrowser.isEnabled, "Needs Scripts/install-test-dependencies.sh"))
        func aPersonSignsInWithHeadlessChromium() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let client = try harness.client(try await harness.discover())
            let result = try await client.signIn(using: harness.headlessPresenter())
            let account = try #require(result.account)
            #expect(account.displayIdentifier == "ada@example.com")
            let session = harness.session(try harness.vault(), client: client)
            try await session.signIn(account: account, tokens: result.tokens)
            #expect(await harness.session(try harness.vault(), client: client).restore().kind == .connected)
            let requests = try await harness.server.requests()
            #expect(requests.to("/accounts/login/").map(\.method).contains("POST"), "\(requests)")
            #expect(requests.tokenRequests("authorization_code").map(\.status) == [200], "\(requests)")
        }
    }
}
