import Foundation
import ProviderTestSupport
import SignInTestSupport
import Testing
import Tether
import TetherDevProvider
import TetherJWT
import TetherOAuth
import TetherTesting

/// Who signed in, found without ever blocking a sign-in on it: against a development provider that behaves like
/// servers which issue no ID token for the device grant and serve userinfo only to `openid` tokens.
@Suite(.timeLimit(.minutes(3)))
struct IdentityFallbackTests {
    /// Runs the device flow and approves it on the verification page.
    static func deviceSignIn(_ harness: ProviderHarness, scopes: [String]? = nil) async throws -> SignInResult {
        let authorization = try await harness.client.startDeviceAuthorization(scopes: scopes)
        let waiting = Task { try await harness.client.waitForDeviceAuthorization(authorization) }
        let page = authorization.verificationURIComplete ?? authorization.verificationURI
        _ = try await FormBrowser().submit(page, extraFields: ["user_code": authorization.userCode])
        #expect(await harness.clock.waitForSleepers(1))
        harness.clock.advance(by: authorization.interval)
        return try await waiting.value
    }

    @Test func deviceGrantWithoutIDTokenTakesTheAccountFromUserinfo() async throws {
        let harness = try await ProviderHarness.start { $0.interoperability.issuesIDTokenForDeviceGrant = false }
        defer { Task { await harness.stop() } }
        let result = try await Self.deviceSignIn(harness)
        #expect(result.idTokenClaims == nil)
        #expect(result.account?.displayIdentifier == "ada@example.com")
        #expect(result.tokens.refreshToken != nil)
    }

    @Test func deviceGrantWithoutOpenIDNeverAsksUserinfoAndKeepsTheTokens() async throws {
        let harness = try await ProviderHarness.start {
            $0.interoperability.issuesIDTokenForDeviceGrant = false
            $0.interoperability.userinfoRequiresOpenIDScope = true
        }
        defer { Task { await harness.stop() } }
        let result = try await Self.deviceSignIn(harness, scopes: ["offline_access"])
        #expect(result.account == nil)
        #expect(result.tokens.accessToken != nil)
        #expect(result.tokens.refreshToken != nil)
        #expect(await harness.counters().requests(to: .userinfo) == 0)

        // Stored without an account, and refreshed.
        let session = harness.session(MemoryStore())
        let stored = try await session.signIn(account: .unknown(providerID: "dev"), tokens: result.tokens)
        #expect(stored.account.isUnknown)
        #expect("\(stored.account)" == "Account(dev, unknown account)")
        harness.clock.advance(by: .seconds(3600))
        _ = try await session.validAccessToken()
    }

    @Test func userinfoFailureDuringSignInKeepsTheTokens() async throws {
        let harness = try await ProviderHarness.start { $0.interoperability.issuesIDTokenForDeviceGrant = false }
        defer { Task { await harness.stop() } }
        await harness.running.admin.failNext(1, requestsTo: .userinfo, status: 404)
        let result = try await Self.deviceSignIn(harness)
        #expect(result.account == nil)
        #expect(result.tokens.refreshToken != nil)
    }

    @Test func refreshedIDTokenOfAnUnknownAccountIsAccepted() async throws {
        let harness = try await ProviderHarness.start(validator: { url, transport in
            JWKSIDTokenValidator(jwksURL: url, transport: transport)
        })
        defer { Task { await harness.stop() } }
        let result = try await Self.deviceSignIn(harness)
        let refreshToken = try #require(result.tokens.refreshToken)
        let response = try await harness.client.refresh(
            RefreshRequest(
                connectionID: "dev",
                refreshToken: refreshToken,
                account: .unknown(providerID: "dev"),
                tokens: result.tokens
            )
        )
        #expect(response.idToken != nil)
    }
}
