import Foundation
import ProviderTestSupport
import SignInTestSupport
import Testing
import Tether
import TetherDevProvider
import TetherOAuth
import TetherTestSupport
import TetherTesting

/// The whole life of a connection over real HTTP on 127.0.0.1, against the development provider.
@Suite(.timeLimit(.minutes(3)))
struct EndToEndTests {
    @Test func signInStoreRestoreRefreshRevokeAndSignInAgain() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let browser = FormBrowser()

        // Sign in through the real sign-in page and store the connection.
        let result = try await harness.client.signIn(using: browser.presenter())
        let account = try #require(result.account)
        #expect(account.displayIdentifier == "ada@example.com")
        #expect(result.tokens.refreshToken != nil)
        #expect(result.idTokenClaims?.nonce != nil)
        let store = try harness.vault()
        let firstLaunch = harness.session(store)
        try await firstLaunch.signIn(account: account, tokens: result.tokens)

        // A new launch restores it without a network round trip.
        let secondLaunch = harness.session(try harness.vault())
        #expect(await secondLaunch.restore().kind == .connected)
        #expect(await harness.counters()[.refreshes] == 0)

        // An hour later the token is refreshed, with rotation, before anyone gets it.
        let before = try #require(try await store.read("dev"))
        harness.clock.advance(by: .seconds(3600))
        let fresh = try await secondLaunch.validAccessToken()
        #expect(fresh != before.tokens.accessToken)
        let after = try #require(try await store.read("dev"))
        #expect(after.tokens.accessToken == fresh)
        #expect(after.tokens.refreshToken != before.tokens.refreshToken)
        #expect(await harness.counters()[.refreshes] == 1)
        #expect(await harness.counters()[.rotations] == 1)

        // The grant is revoked at the provider: the next refresh ends the session, keeping the account as hint.
        _ = await harness.running.admin.revokeAllGrants()
        harness.clock.advance(by: .seconds(3600))
        do {
            _ = try await secondLaunch.validAccessToken()
            Issue.record("a revoked grant still produced a token")
        } catch let error as SessionError {
            #expect(error == .needsSignIn)
            #expect(error.accountHint?.subject == account.subject)
        }
        guard case .needsSignIn(_, let hint?) = await secondLaunch.status else {
            Issue.record("expected needsSignIn with a hint")
            return
        }
        #expect(try await store.read("dev")?.tokens.refreshToken == nil)

        // Sign in again with the hint: the page is prefilled with it.
        let shown = LockedURLs()
        let again = try await harness.client.signIn(
            using: browser.presenter(shown: shown),
            loginHint: hint.displayIdentifier
        )
        let hinted = try #require(shown.urls.first)
        #expect(
            URLComponents(url: hinted, resolvingAgainstBaseURL: false)?.queryItems?.contains {
                $0.name == "login_hint" && $0.value == "ada@example.com"
            } == true
        )
        try await secondLaunch.signIn(account: try #require(again.account), tokens: again.tokens)
        #expect(await secondLaunch.status.kind == .connected)

        // Sign out: revoked at the provider and gone from the vault.
        try await secondLaunch.signOut()
        #expect(try await store.list().isEmpty)
        #expect(await harness.counters()[.revocations] >= 1)
        #expect(await harness.counters()[.reuseDetections] == 0)
    }

    @Test func thousandConcurrentCallersAcrossExpiriesNeverTriggerReuseDetection() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let result = try await harness.client.signIn(using: FormBrowser().presenter())
        let session = harness.session(MemoryStore())
        try await session.signIn(account: try #require(result.account), tokens: result.tokens)
        for expiry in 1...3 {
            harness.clock.advance(by: .seconds(3600))
            let tokens = try await withThrowingTaskGroup(of: AccessToken.self) { group in
                for _ in 0..<1_000 { group.addTask { try await session.validAccessToken() } }
                return try await group.reduce(into: Set<AccessToken>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1)
            #expect(await harness.counters()[.refreshes] == expiry)
        }
        #expect(await harness.counters()[.reuseDetections] == 0)
        #expect(await harness.counters()[.refreshFailures] == 0)
    }

    @Test func deviceFlowIsApprovedThroughTheVerificationPage() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let authorization = try await harness.client.startDeviceAuthorization()
        #expect(!authorization.userCode.isEmpty)
        #expect(!authorization.description.contains("device_code"))
        let waiting = Task { try await harness.client.waitForDeviceAuthorization(authorization) }

        // First poll: still pending.
        #expect(await harness.clock.waitForSleepers(1))
        harness.clock.advance(by: authorization.interval)
        #expect(await harness.clock.waitForSleepers(1))
        #expect(await harness.counters()[.pendingPolls] >= 1)

        // The user approves on the verification page, entering the code.
        let page = authorization.verificationURIComplete ?? authorization.verificationURI
        _ = try await FormBrowser().submit(page, extraFields: ["user_code": authorization.userCode])
        harness.clock.advance(by: authorization.interval)
        let result = try await waiting.value
        #expect(result.account?.displayIdentifier == "ada@example.com")
        #expect(result.tokens.accessToken != nil)
    }

    @Test func deniedDeviceAuthorizationIsTyped() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let authorization = try await harness.client.startDeviceAuthorization()
        let waiting = Task { try await harness.client.waitForDeviceAuthorization(authorization) }
        var browser = FormBrowser()
        browser.decision = "deny"
        _ = try await browser.submit(
            authorization.verificationURIComplete ?? authorization.verificationURI,
            extraFields: ["user_code": authorization.userCode]
        )
        #expect(await harness.clock.waitForSleepers(1))
        harness.clock.advance(by: authorization.interval)
        await #expect(throws: OAuthError.accessDenied) { try await waiting.value }
    }

    @Test func expiredDeviceCodeIsTyped() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let authorization = try await harness.client.startDeviceAuthorization()
        let waiting = Task { try await harness.client.waitForDeviceAuthorization(authorization) }
        #expect(await harness.clock.waitForSleepers(1))
        harness.clock.advance(by: .seconds(3600))
        await #expect(throws: OAuthError.deviceCodeExpired) { try await waiting.value }
    }
}
