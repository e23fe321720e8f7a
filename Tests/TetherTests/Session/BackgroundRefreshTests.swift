import Foundation
import Testing
import Tether
import TetherTesting

/// A background run (an iOS app-refresh task, `tether calendar sync`) over real sessions, on a manual clock.
struct BackgroundRefreshTests {
    @Test func aFreshConnectionSendsNothingAndTheNextRunIsItsExpiryLessTheLead() async throws {
        let harness = SessionHarness()
        try await harness.signIn()
        let start = harness.clock.date
        let report = await BackgroundRefresh(
            sessions: [harness.session],
            clock: harness.clock,
            dateSource: harness.clock.dateSource
        )
        .run(budget: .seconds(30))
        #expect(report.outcomes == ["dev": .fresh])
        #expect(try harness.issuer.counters().refreshes == 0)
        #expect(report.succeeded)
        // A one-hour token, a 30-minute lead.
        #expect(report.nextRun == start.addingTimeInterval(1800))
    }

    @Test func aConnectionEndingWithinTheLeadIsRefreshedOnce() async throws {
        let harness = SessionHarness()
        let first = try await harness.signIn()
        harness.clock.advance(by: .seconds(45 * 60))
        let refresh = BackgroundRefresh(
            sessions: [harness.session],
            clock: harness.clock,
            dateSource: harness.clock.dateSource
        )
        let report = await refresh.run(budget: .seconds(30))
        #expect(report.outcomes == ["dev": .refreshed])
        #expect(try harness.issuer.counters().refreshes == 1)
        let stored = try #require(try await harness.store.read("dev"))
        #expect(stored.tokens.accessToken != first.tokens.accessToken)
        #expect(try harness.issuer.accepts(try #require(stored.tokens.accessToken)))
        #expect(report.nextRun == harness.clock.date.addingTimeInterval(1800))
        // A second run right after finds it fresh.
        #expect(await refresh.run(budget: .seconds(30)).outcomes == ["dev": .fresh])
        #expect(try harness.issuer.counters().refreshes == 1)
    }

    @Test func theRunJoinsTheRefreshOfTheAppsOwnCallers() async throws {
        let harness = SessionHarness()
        try await harness.signIn()
        harness.clock.advance(by: .seconds(3600))
        harness.issuer.holdRefreshes()
        let caller = Task { try await harness.session.validAccessToken() }
        let run = Task {
            await BackgroundRefresh(
                sessions: [harness.session],
                clock: harness.clock,
                dateSource: harness.clock.dateSource
            )
            .run(budget: .seconds(30))
        }
        for _ in 0..<10_000 { await Task.yield() }
        harness.issuer.releaseRefreshes()
        let token = try await caller.value
        #expect(await run.value.outcomes == ["dev": .refreshed])
        #expect(try harness.issuer.counters().refreshes == 1)
        #expect(try harness.issuer.counters().reuseDetections == 0)
        #expect(try harness.issuer.accepts(token))
    }

    @Test func aRevokedGrantIsReportedAsNeedingSignInAndTheRunGoesOn() async throws {
        let harness = SessionHarness()
        try await harness.signIn()
        let other = harness.session(id: "other")
        try await other.signIn(
            account: SessionHarness.account,
            tokens: harness.issuer.signInTokens(subject: "user-2")
        )
        try harness.issuer.revokeAllGrants()
        try await other.signIn(
            account: SessionHarness.account,
            tokens: harness.issuer.signInTokens(subject: "user-2")
        )
        harness.clock.advance(by: .seconds(3600))
        let report = await BackgroundRefresh(
            sessions: [harness.session, other],
            clock: harness.clock,
            dateSource: harness.clock.dateSource
        ).run(budget: .seconds(30))
        guard case .needsSignIn = report.outcomes["dev"] else {
            Issue.record("a revoked grant gave \(String(describing: report.outcomes["dev"]))")
            return
        }
        #expect(report.outcomes["other"] == .refreshed)
        #expect(!report.succeeded)
        // Needing sign-in does not bring the next run forward; only failures and connections not reached do.
        #expect(report.nextRun == harness.clock.date.addingTimeInterval(1800))
    }

    @Test func connectionsAreTakenSoonestEndingFirstAndTheBudgetStopsNewRefreshes() async throws {
        let harness = SessionHarness()
        try await harness.signIn()
        harness.clock.advance(by: .seconds(600))
        let later = harness.session(id: "later")
        try await later.signIn(account: SessionHarness.account, tokens: harness.issuer.signInTokens(subject: "user-2"))
        harness.clock.advance(by: .seconds(3600 - 600))  // "dev" has ended, "later" ends in 10 minutes
        harness.issuer.holdRefreshes()
        let refresh = BackgroundRefresh(
            sessions: [later, harness.session],
            configuration: .init(reserve: .seconds(5)),
            clock: harness.clock,
            dateSource: harness.clock.dateSource
        )
        let run = Task { await refresh.run(budget: .seconds(25)) }
        // The run waits for "dev"'s refresh, at most the budget less the reserve.
        #expect(await harness.clock.waitForSleepers(1))
        harness.clock.advance(by: .seconds(20))
        let report = await run.value
        #expect(report.order == ["dev", "later"])
        #expect(report.outcomes == ["dev": .notReached, "later": .notReached])
        #expect(!report.wasCancelled)
        #expect(report.nextRun == harness.clock.date.addingTimeInterval(15 * 60))
        // The refresh already sent is finished by the session and stored.
        harness.issuer.releaseRefreshes()
        try await harness.session.finishRefreshesInFlight()
        #expect(try harness.issuer.counters().refreshes == 1)
        let stored = try #require(try await harness.store.read("dev"))
        #expect(try harness.issuer.accepts(try #require(stored.tokens.accessToken)))
    }

    @Test func cancellingTheRunStopsItsWaitButNotTheRefresh() async throws {
        let harness = SessionHarness()
        try await harness.signIn()
        harness.clock.advance(by: .seconds(3600))
        harness.issuer.holdRefreshes()
        let run = Task {
            await BackgroundRefresh(
                sessions: [harness.session],
                clock: harness.clock,
                dateSource: harness.clock.dateSource
            )
            .run(budget: .seconds(30))
        }
        #expect(await harness.clock.waitForSleepers(1))
        run.cancel()  // what the system's expiration handler does
        let report = await run.value
        #expect(report.outcomes == ["dev": .notReached])
        #expect(report.wasCancelled)
        #expect(!report.succeeded)
        harness.issuer.releaseRefreshes()
        try await harness.session.finishRefreshesInFlight()
        #expect(try harness.issuer.counters().refreshes == 1)
        let stored = try #require(try await harness.store.read("dev"))
        #expect(try harness.issuer.accepts(try #require(stored.tokens.accessToken)))
    }

    @Test func nothingStoredIsNotConnectedAndTheNextRunIsTheLongestWait() async throws {
        let harness = SessionHarness()
        let report = await BackgroundRefresh(
            sessions: [harness.session],
            clock: harness.clock,
            dateSource: harness.clock.dateSource
        )
        .run(budget: .seconds(30))
        #expect(report.outcomes == ["dev": .notConnected])
        #expect(report.succeeded)
        #expect(report.nextRun == harness.clock.date.addingTimeInterval(4 * 3600))
    }
}

extension SessionHarness {
    /// A session of another connection on the same store, issuer and clock.
    func session(id: ConnectionID) -> Session {
        Session(
            id: id,
            store: store,
            refresher: issuer,
            revoker: issuer,
            configuration: Session.Configuration(retry: .init(jitter: 0)),
            clock: clock,
            dateSource: clock.dateSource
        )
    }
}
