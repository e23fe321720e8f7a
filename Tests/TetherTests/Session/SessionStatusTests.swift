import Foundation
import Logging
import Testing
import Tether
import TetherTesting

struct SessionStatusTests {
    @Test func restoreWithAValidTokenReportsRestoringThenConnected() async throws {
        let harness = SessionHarness()
        try await harness.seed(try harness.issuer.signInTokens(subject: "user-1"))
        let recorder = await StatusRecorder(harness.session)
        let status = await harness.session.restore()
        #expect(status.kind == .connected)
        #expect(transitions(await recorder.settled()) == [.restoring, .connected])
        #expect(try harness.issuer.counters().refreshes == 0)
    }

    @Test func restoreWithMissingAccessTokenButRefreshTokenRefreshesSilently() async throws {
        // The "Connected but dead" case: the record survived, the access token did not.
        let harness = SessionHarness()
        var tokens = try harness.issuer.signInTokens(subject: "user-1")
        tokens.accessToken = nil
        tokens.expiresAt = nil
        try await harness.seed(tokens)
        let recorder = await StatusRecorder(harness.session)
        let status = await harness.session.restore()
        #expect(status.kind == .connected)
        #expect(transitions(await recorder.settled()) == [.restoring, .refreshing, .connected])
        #expect(try harness.issuer.counters().refreshes == 1)
        let stored = try #require(try await harness.store.read("dev"))
        #expect(stored.tokens.accessToken != nil)
    }

    @Test func restoreWithNoRecordIsNotConnected() async throws {
        let harness = SessionHarness()
        #expect(await harness.session.restore() == .notConnected)
        await #expect(throws: SessionError.notConnected) { try await harness.session.validAccessToken() }
    }

    @Test func restoreReturnsWithinItsBudgetAndTheRefreshFinishesLater() async throws {
        let harness = SessionHarness()
        try await harness.seed(try harness.issuer.signInTokens(subject: "user-1"))
        harness.clock.advance(by: .seconds(3600))
        harness.issuer.holdRefreshes()
        let restore = Task { await harness.session.restore() }
        #expect(await harness.clock.waitForSleepers(1))
        harness.clock.advance(by: .seconds(2))
        #expect(await restore.value.kind == .refreshing)
        let recorder = await StatusRecorder(harness.session)
        harness.issuer.releaseRefreshes()
        #expect(await recorder.waitFor(.connected))
        #expect(try harness.issuer.counters().refreshes == 1)
    }

    @Test func offlineThenRecovery() async throws {
        let harness = SessionHarness()
        try await harness.signIn()
        harness.clock.advance(by: .seconds(3600))
        harness.issuer.failNextRefreshes(with: Array(repeating: .transient("HTTP 503 from the provider"), count: 3))
        let recorder = await StatusRecorder(harness.session)
        let call = Task { try await harness.session.validAccessToken() }
        // Attempts 1–3 fail; backoff 0.5 s, then 1 s, slept on the manual clock.
        #expect(await harness.clock.waitForSleepers(1))
        harness.clock.advance(by: .milliseconds(500))
        #expect(await harness.clock.waitForSleepers(1))
        harness.clock.advance(by: .seconds(1))
        await #expect(throws: SessionError.offline) { try await call.value }
        let offline = await harness.session.status
        guard case .offline(let account, let nextAttempt, let lastError) = offline else {
            Issue.record("expected offline, got \(offline)")
            return
        }
        #expect(account == SessionHarness.account)
        #expect(nextAttempt != nil)
        #expect(lastError.message == "HTTP 503 from the provider")
        // The record is untouched: the session survives the outage.
        #expect(try await harness.store.read("dev")?.tokens.refreshToken != nil)
        // The provider answers again: the next call recovers.
        harness.clock.advance(by: .seconds(5))
        _ = try await harness.session.validAccessToken()
        #expect(await harness.session.status.kind == .connected)
        #expect(transitions(await recorder.settled()) == [.connected, .refreshing, .offline, .refreshing, .connected])
    }

    @Test func transientFailureWithAnUnexpiredTokenStillHandsItOut() async throws {
        let harness = SessionHarness()
        let stored = try await harness.signIn()
        harness.clock.advance(by: .seconds(3500))  // inside the 5-minute leeway, not expired
        harness.issuer.failNextRefreshes(with: [.transient("timeout", retryAfter: .seconds(120))])
        let token = try await harness.session.validAccessToken()
        #expect(token == stored.tokens.accessToken)
        #expect(await harness.session.status.kind == .offline)
        // Within the provider's Retry-After, no further attempts are made.
        _ = try await harness.session.validAccessToken()
        #expect(try harness.issuer.counters().failedRefreshes == 1)
    }

    @Test func revokedGrantNeedsSignInKeepsTheAccountHintAndRemovesTokens() async throws {
        let harness = SessionHarness()
        try await harness.signIn(metadata: ["calendar": "primary"])
        try harness.issuer.revokeAllGrants()
        harness.clock.advance(by: .seconds(3600))
        let recorder = await StatusRecorder(harness.session)
        do {
            _ = try await harness.session.validAccessToken()
            Issue.record("expected needsSignIn")
        } catch let error as SessionError {
            #expect(error == .needsSignIn)
            #expect(error.signInReason == .grantRevoked)
            #expect(error.accountHint == SessionHarness.account)
            #expect(error.requiresReauthentication)
        }
        #expect(
            await harness.session.status == .needsSignIn(reason: .grantRevoked, accountHint: SessionHarness.account)
        )
        #expect(transitions(await recorder.settled()) == [.connected, .refreshing, .needsSignIn])
        let stored = try #require(try await harness.store.read("dev"))
        #expect(stored.tokens.accessToken == nil && stored.tokens.refreshToken == nil)
        #expect(stored.account == SessionHarness.account)
        #expect(stored.metadata == ["calendar": "primary"])

        // A new launch still knows: needs sign-in, with the hint — and its callers are told the reason its status
        // gives, not that the sign-in merely expired.
        let relaunched = harness.sibling()
        #expect(await relaunched.restore().kind == .needsSignIn)
        #expect(await relaunched.status.account == SessionHarness.account)
        #expect(
            await relaunched.status == .needsSignIn(reason: .grantRevoked, accountHint: SessionHarness.account)
        )
        let caller = harness.sibling()
        do {
            _ = try await caller.validAccessToken()
            Issue.record("expected needsSignIn")
        } catch let error as SessionError {
            #expect(error.signInReason == .grantRevoked)
            #expect(error.message == SignInReason.grantRevoked.message)
        }

        // Signing in again with the same account keeps the user's metadata.
        let again = try await harness.signIn()
        #expect(again.metadata == ["calendar": "primary"])
        #expect(await harness.session.status.kind == .connected)
    }

    @Test func configurationFailureIsMisconfigured() async throws {
        let harness = SessionHarness()
        try await harness.signIn()
        harness.clock.advance(by: .seconds(3600))
        harness.issuer.failNextRefreshes(with: [.configuration("invalid_client: the client id is unknown")])
        await #expect(throws: SessionError.misconfigured) { try await harness.session.validAccessToken() }
        #expect(await harness.session.status == .misconfigured(problem: "invalid_client: the client id is unknown"))
        #expect(try await harness.store.read("dev")?.tokens.refreshToken != nil)
    }

    @Test func lockedStoreIsStorageUnavailableNeverSignedOut() async throws {
        let harness = SessionHarness()
        try await harness.seed(try harness.issuer.signInTokens(subject: "user-1"))
        harness.store.failReads(with: .unavailable)
        let status = await harness.session.restore()
        #expect(status.kind == .storageUnavailable)
        await #expect(throws: SessionError.storageUnavailable) { try await harness.session.validAccessToken() }
        #expect(harness.store.callCounts.deletes == 0)
        // Protected data becomes available: restore again.
        harness.store.failReads(with: nil)
        #expect(await harness.session.restore().kind == .connected)
    }

    @Test func signOutDeletesRevokesAndIsIdempotent() async throws {
        let harness = SessionHarness()
        try await harness.signIn()
        let recorder = await StatusRecorder(harness.session)
        try await harness.session.signOut()
        #expect(try await harness.store.read("dev") == nil)
        #expect(try harness.issuer.counters().revocations == 1)
        #expect(await harness.session.status == .notConnected)
        try await harness.session.signOut()
        #expect(try harness.issuer.counters().revocations == 1)
        #expect(transitions(await recorder.settled()) == [.connected, .notConnected])
        await #expect(throws: SessionError.notConnected) { try await harness.session.validAccessToken() }
    }

    @Test func signOutTouchesNoOtherConnection() async throws {
        let harness = SessionHarness()
        try await harness.signIn()
        let other = Connection(
            id: "other",
            account: Account(providerID: "dev", subject: "user-2"),
            tokens: try harness.issuer.signInTokens(subject: "user-2"),
            metadata: ["keep": "me"]
        )
        try await harness.store.write(other)
        try await harness.session.signOut()
        #expect(try await harness.store.list() == ["other"])
        #expect(try await harness.store.read("other")?.metadata == ["keep": "me"])
    }

    @Test func signOutSucceedsWhenRevocationFails() async throws {
        let store = MemoryStore()
        let stub = StubRefresher(
            refresh: { _ in throw RefreshError.transient("unused") },
            revoke: { _, _ in throw URLError(.notConnectedToInternet) }
        )
        let session = Session(
            id: "dev",
            store: store,
            refresher: stub,
            revoker: stub,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        try await session.signIn(
            account: SessionHarness.account,
            tokens: TokenSet(
                accessToken: AccessToken("a"),
                refreshToken: RefreshToken("r"),
                receivedAt: Date(timeIntervalSince1970: 0),
                expiresAt: nil
            )
        )
        try await session.signOut()
        #expect(try await store.read("dev") == nil)
    }

    @Test func tokenWithoutRefreshTokenTurnsIntoNeedsSignInWhenItExpires() async throws {
        let harness = SessionHarness()
        var tokens = try harness.issuer.signInTokens(subject: "user-1")
        tokens.refreshToken = nil
        try await harness.seed(tokens)
        let recorder = await StatusRecorder(harness.session)
        #expect(await harness.session.restore().kind == .connected)
        #expect(await harness.clock.waitForSleepers(1))
        harness.clock.advance(by: .seconds(3600))
        #expect(await recorder.waitFor(.needsSignIn))
        #expect(
            await harness.session.status == .needsSignIn(reason: .sessionExpired, accountHint: SessionHarness.account)
        )
        await #expect(throws: SessionError.needsSignIn) { try await harness.session.validAccessToken() }
    }

    @Test func metadataUpdatesKeepTheTokens() async throws {
        let harness = SessionHarness()
        let signedIn = try await harness.signIn()
        let updated = try await harness.session.updateMetadata { $0["lastSync"] = "2026-11-22T00:00:00Z" }
        #expect(updated.tokens == signedIn.tokens)
        #expect(updated.version == signedIn.version + 1)
        #expect(updated.metadata["lastSync"] == "2026-11-22T00:00:00Z")
    }
}
