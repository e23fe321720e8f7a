import Foundation
import Testing
import Tether
import TetherTesting

struct SessionRefreshTests {
    @Test func freshTokenIsReturnedWithoutRefreshing() async throws {
        let harness = SessionHarness()
        let stored = try await harness.signIn()
        let token = try await harness.session.validAccessToken()
        #expect(token == stored.tokens.accessToken)
        #expect(try harness.issuer.counters().refreshes == 0)
    }

    @Test func thousandConcurrentCallersOnAnExpiredTokenShareOneRefresh() async throws {
        let harness = SessionHarness()
        let stale = try await harness.signIn()
        harness.clock.advance(by: .seconds(3600))
        harness.issuer.holdRefreshes()
        let tokens = try await withThrowingTaskGroup(of: AccessToken.self) { group in
            for _ in 0..<1_000 {
                group.addTask { try await harness.session.validAccessToken() }
            }
            for _ in 0..<10_000 { await Task.yield() }
            harness.issuer.releaseRefreshes()
            var tokens: [AccessToken] = []
            for try await token in group { tokens.append(token) }
            return tokens
        }
        #expect(tokens.count == 1_000)
        #expect(Set(tokens).count == 1)
        #expect(tokens.first != stale.tokens.accessToken)
        #expect(try harness.issuer.counters().refreshes == 1)
        #expect(try harness.issuer.counters().reuseDetections == 0)
        #expect(try harness.issuer.accepts(try #require(tokens.first)))
    }

    @Test func rotatedRefreshTokenIsStoredBeforeAnyCallerGetsTheNewAccessToken() async throws {
        let harness = SessionHarness()
        let stale = try await harness.signIn()
        harness.clock.advance(by: .seconds(3600))
        let handedOut = LockedBox(false)
        let storedWhileNotHandedOut = LockedBox<Connection?>(nil)
        harness.store.onWrite { written in
            if !handedOut.value { storedWhileNotHandedOut.mutate { $0 = written } }
        }
        let token = try await harness.session.validAccessToken()
        handedOut.mutate { $0 = true }
        let written = try #require(storedWhileNotHandedOut.value)
        #expect(written.tokens.accessToken == token)
        #expect(written.tokens.refreshToken != stale.tokens.refreshToken)
        let reread = try #require(try await harness.store.read("dev"))
        #expect(reread.tokens.refreshToken == written.tokens.refreshToken)
    }

    @Test func refreshResponseWithoutRefreshTokenKeepsTheOldOne() async throws {
        let harness = SessionHarness(rotates: false)
        let stale = try await harness.signIn()
        harness.clock.advance(by: .seconds(3600))
        _ = try await harness.session.validAccessToken()
        let stored = try #require(try await harness.store.read("dev"))
        #expect(stored.tokens.refreshToken == stale.tokens.refreshToken)
        #expect(stored.tokens.accessToken != stale.tokens.accessToken)
    }

    @Test func leewayIsScaledDownForShortLivedTokens() async throws {
        let harness = SessionHarness(lifetime: .seconds(10))
        try await harness.signIn()
        // 10 s token: leeway = min(5 min, 25 % of 10 s) = 2.5 s.
        for _ in 0..<7 {
            _ = try await harness.session.validAccessToken()
            harness.clock.advance(by: .seconds(1))
        }
        #expect(try harness.issuer.counters().refreshes == 0)
        harness.clock.advance(by: .milliseconds(600))  // t = 7.6 s, inside the leeway
        _ = try await harness.session.validAccessToken()
        #expect(try harness.issuer.counters().refreshes == 1)
    }

    @Test func hourLongTokenIsRefreshedFiveMinutesEarly() async throws {
        let harness = SessionHarness()
        try await harness.signIn()
        harness.clock.advance(by: .seconds(3600 - 301))
        _ = try await harness.session.validAccessToken()
        #expect(try harness.issuer.counters().refreshes == 0)
        harness.clock.advance(by: .seconds(2))
        _ = try await harness.session.validAccessToken()
        #expect(try harness.issuer.counters().refreshes == 1)
    }

    @Test func minimumLifetimeForcesAnEarlierRefresh() async throws {
        let harness = SessionHarness()
        try await harness.signIn()
        harness.clock.advance(by: .seconds(1800))
        _ = try await harness.session.validAccessToken(minimumLifetime: .seconds(2400))
        #expect(try harness.issuer.counters().refreshes == 1)
    }

    @Test func tokenWithoutExpiryIsUsedUntilForcedRefresh() async throws {
        let harness = SessionHarness()
        let tokens = TokenSet(
            TokenResponse(accessToken: AccessToken("at_no_expiry"), refreshToken: nil, expiresIn: nil),
            receivedAt: harness.clock.date
        )
        #expect(tokens.expiresAt == nil)
        try await harness.seed(tokens)
        harness.clock.advance(by: .seconds(86_400 * 30))
        #expect(try await harness.session.validAccessToken() == AccessToken("at_no_expiry"))
        #expect(await harness.session.status.kind == .connected)
    }

    @Test func forceRefreshRefreshesAValidTokenOnceForConcurrentCallers() async throws {
        let harness = SessionHarness()
        let stored = try await harness.signIn()
        let rejected = try #require(stored.tokens.accessToken)
        let tokens = try await withThrowingTaskGroup(of: AccessToken.self) { group in
            for _ in 0..<50 { group.addTask { try await harness.session.forceRefresh(rejecting: rejected) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(tokens).count == 1)
        #expect(tokens.first != rejected)
        #expect(try harness.issuer.counters().refreshes == 1)
        // A later 401 for the token already replaced does not refresh again.
        _ = try await harness.session.forceRefresh(rejecting: rejected)
        #expect(try harness.issuer.counters().refreshes == 1)
    }

    @Test func forceRefreshDoesNotHandOutAReplacementThatIsAlreadyStale() async throws {
        let harness = SessionHarness()
        let stored = try await harness.signIn()
        let first = try #require(stored.tokens.accessToken)
        let second = try await harness.session.forceRefresh(rejecting: first)
        #expect(try harness.issuer.counters().refreshes == 1)
        // A late 401 for the first token, when the second is inside the leeway but not yet expired: the retry
        // must not carry the second token, which `validAccessToken()` itself would refresh.
        let lifetime = try #require(try await harness.session.connection()?.tokens.lifetime)
        harness.clock.advance(by: lifetime - .seconds(1))
        let third = try await harness.session.forceRefresh(rejecting: first)
        #expect(third != second)
        #expect(try harness.issuer.counters().refreshes == 2)
        #expect(try await harness.session.validAccessToken() == third)
        #expect(try harness.issuer.counters().refreshes == 2)
    }

    @Test func cancelledWaiterDoesNotCancelTheSharedRefresh() async throws {
        let harness = SessionHarness()
        let (waiter, recorder) = try await harness.callerWaitingOnAHeldRefresh()
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        harness.issuer.releaseRefreshes()
        #expect(await recorder.waitFor(.connected))
        let token = try await harness.session.validAccessToken()
        #expect(try harness.issuer.counters().refreshes == 1)
        let stored = try #require(try await harness.store.read("dev"))
        #expect(stored.tokens.accessToken == token)
    }

    @Test func twoSessionsSharingAStoreNeverReuseARotatedRefreshToken() async throws {
        let harness = SessionHarness()
        try await harness.signIn()
        let other = harness.sibling()
        _ = try await other.validAccessToken()  // both sessions now hold the same record in memory
        harness.clock.advance(by: .seconds(3600))
        async let first = harness.session.validAccessToken()
        async let second = other.validAccessToken()
        let (a, b) = try await (first, second)
        #expect(a == b)
        #expect(try harness.issuer.counters().refreshes == 1)
        #expect(try harness.issuer.counters().reuseDetections == 0)
    }
}
