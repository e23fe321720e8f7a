import Foundation
import ProviderTestSupport
import SignInTestSupport
import Testing
import Tether
import TetherDevProvider
import TetherJWT
import TetherOAuth

/// A provider that rotates its signing key signs with the new key at once and keeps the previous one in its JWKS
/// (django-oauth-toolkit with `OIDC_RSA_PRIVATE_KEYS_INACTIVE`, the development provider's `rotateSigningKeys()`).
/// A client whose key set was fetched less than the validator's re-fetch interval ago then meets a `kid` it may not
/// fetch yet: the ID token came straight from the token endpoint, so its claims are checked without the signature
/// and the tokens are kept (docs/decisions.md §32).
@Suite(.timeLimit(.minutes(3)))
struct KeyRotationTests {
    /// A provider and a client whose validator has the default re-fetch interval (a minute).
    static func start() async throws -> ProviderHarness {
        try await ProviderHarness.start(validator: { url, transport in
            JWKSIDTokenValidator(jwksURL: url, transport: transport)
        })
    }

    @Test func aRefreshRightAfterTheProviderRotatedItsKeyKeepsTheRotatedTokens() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let result = try await harness.client.signIn(using: FormBrowser().presenter())
        let session = harness.session(try harness.vault())
        try await session.signIn(account: try #require(result.account), tokens: result.tokens)
        let previousKey = await harness.running.admin.currentKeyID()
        #expect(try await harness.running.admin.rotateSigningKeys() != previousKey)

        let refreshed = try await session.forceRefresh()

        #expect(refreshed != result.tokens.accessToken)
        let stored = try #require(try await session.connection()).tokens
        #expect(stored.refreshToken != result.tokens.refreshToken)
        #expect(stored.idToken != result.tokens.idToken)
        #expect(await session.status.kind == .connected)
        // The stored refresh token is the rotated one: the next refresh is no reuse.
        _ = try await session.forceRefresh()
        let counters = await harness.counters()
        #expect(counters[.refreshes] == 2)
        #expect(counters[.reuseDetections] == 0)
    }

    @Test func aSignInRightAfterTheProviderRotatedItsKeySucceeds() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        _ = try await harness.client.signIn(using: FormBrowser().presenter())
        try await harness.running.admin.rotateSigningKeys()

        let result = try await harness.client.signIn(using: FormBrowser().presenter())

        #expect(result.account?.displayIdentifier == "ada@example.com")
        #expect(result.idTokenClaims?.nonce != nil)
    }
}
