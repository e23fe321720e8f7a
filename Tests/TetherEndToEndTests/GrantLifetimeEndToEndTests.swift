import Foundation
import ProviderTestSupport
import SignInTestSupport
import Testing
import Tether
import TetherDevProvider
import TetherOAuth
import TetherTesting

/// Grant ends and keep-alive over the development provider, whose clock is the session's: the provider refuses a
/// refresh token unused past its inactivity limit, or older than its lifetime, as Microsoft, Google and GitHub do.
@Suite(.timeLimit(.minutes(3)))
struct GrantLifetimeEndToEndTests {
    static let day: Duration = .seconds(86_400)

    /// A provider that ends refresh tokens unused for 90 days, with access tokens that outlive that (so that only a
    /// keep-alive refreshes), and a session that knows Microsoft's rule.
    static func idleHarness(
        _ configure: @escaping (inout DevProvider.Configuration) -> Void = { _ in }
    ) async throws -> ProviderHarness {
        try await ProviderHarness.start {
            $0.dialect = .microsoft
            $0.refreshTokenInactivityLimit = day * 90
            $0.accessTokenLifetime = day * 200
            configure(&$0)
        }
    }

    static func signedIn(_ harness: ProviderHarness, rules: GrantLifetime?) async throws -> Session {
        let result = try await harness.client.signIn(using: FormBrowser().presenter())
        var configuration = Session.Configuration(retry: Backoff(jitter: 0))
        configuration.grantLifetime = rules
        let session = Session(
            id: "work",
            store: MemoryStore(clock: harness.clock),
            refresher: harness.client,
            revoker: harness.client,
            configuration: configuration,
            clock: harness.clock,
            dateSource: harness.clock.dateSource,
            logger: ProviderHarness.silent
        )
        try await session.signIn(account: try #require(result.account), tokens: result.tokens)
        return session
    }

    @Test func theProviderEndsAnIdleGrantAtItsInactivityDeadline() async throws {
        let harness = try await Self.idleHarness()
        defer { Task { await harness.stop() } }
        let session = try await Self.signedIn(harness, rules: .microsoft)
        harness.clock.advance(by: Self.day * 91)
        await #expect(throws: SessionError.needsSignIn) { try await session.forceRefresh() }
    }

    @Test func keepAliveRefreshesAnIdleGrantBeforeItsInactivityDeadline() async throws {
        let harness = try await Self.idleHarness()
        defer { Task { await harness.stop() } }
        let session = try await Self.signedIn(harness, rules: .microsoft)
        let signedInAt = harness.clock.date

        // Far from the deadline: nothing is sent.
        harness.clock.advance(by: Self.day * 30)
        #expect(try await session.keepAlive(margin: Self.day * 7) == false)
        #expect(await harness.counters()[.refreshes] == 0)

        // Within the margin: one refresh, and the deadline moves 90 days past it.
        harness.clock.advance(by: Self.day * 55)
        let before = try #require(await session.grantEnd)
        #expect(before.kind == .inactivity)
        #expect(before.date == signedInAt.addingTimeInterval(90 * 86_400))
        #expect(before.note == "unused for 85 days: Microsoft ends it after 90")
        #expect(try await session.keepAlive(margin: Self.day * 7))
        #expect(await harness.counters()[.refreshes] == 1)
        let after = try #require(await session.grantEnd)
        #expect(after.date == harness.clock.date.addingTimeInterval(90 * 86_400))
        #expect(after.lastUsed == harness.clock.date)

        // Past the first deadline, the grant lives: the provider counts from the refresh too.
        harness.clock.advance(by: Self.day * 85)
        #expect(try await session.keepAlive(margin: Self.day * 7))
        #expect(await harness.counters()[.refreshes] == 2)
        #expect(await session.status.isConnected)
    }

    /// Google does not rotate: the provider counts the same refresh token's last use, and so does the session.
    @Test func keepAliveKeepsANonRotatingGrantAlive() async throws {
        let harness = try await Self.idleHarness { $0.dialect = .google }
        defer { Task { await harness.stop() } }
        let rules = GrantLifetime(provider: "Google", inactivityLimit: Self.day * 90)
        let session = try await Self.signedIn(harness, rules: rules)
        harness.clock.advance(by: Self.day * 85)
        #expect(try await session.keepAlive(margin: Self.day * 7))
        harness.clock.advance(by: Self.day * 85)
        #expect(try await session.keepAlive(margin: Self.day * 7))
        #expect(await harness.counters()[.refreshes] == 2)
        #expect(await harness.counters()[.rotations] == 0)
    }

    @Test func keepAliveNeverTouchesAnAbsoluteEnd() async throws {
        let harness = try await ProviderHarness.start {
            $0.refreshTokenLifetime = Self.day * 7
            $0.announcesRefreshTokenLifetime = true
            $0.accessTokenLifetime = Self.day * 30
        }
        defer { Task { await harness.stop() } }
        let session = try await Self.signedIn(harness, rules: nil)
        let signedInAt = harness.clock.date
        let end = try #require(await session.grantEnd)
        #expect(end.kind == .absolute)
        #expect(end.date == signedInAt.addingTimeInterval(7 * 86_400))
        #expect(end.note == "The provider gave the refresh token 7 days")

        harness.clock.advance(by: Self.day * 6)
        #expect(try await session.keepAlive(margin: Self.day * 30) == false)
        harness.clock.advance(by: Self.day * 2)
        #expect(try await session.keepAlive(margin: Self.day * 30) == false)
        #expect(await harness.counters()[.refreshes] == 0)
        // The end was real: the provider refuses the refresh token now.
        await #expect(throws: SessionError.needsSignIn) { try await session.forceRefresh() }
    }

    /// An app in Google's Testing status: the 7 days come before the 6 months of disuse, and no refresh helps.
    @Test func anAbsoluteEndBeforeAnInactivityDeadlineIsNotKeptAway() async throws {
        let harness = try await Self.idleHarness { $0.dialect = .google }
        defer { Task { await harness.stop() } }
        let session = try await Self.signedIn(harness, rules: .googleTesting)
        harness.clock.advance(by: Self.day * 5)
        let end = try #require(await session.grantEnd)
        #expect(end.kind == .absolute)
        #expect(end.isSoon)
        #expect(try await session.keepAlive(margin: Self.day * 200) == false)
        #expect(await harness.counters()[.refreshes] == 0)
    }

    @Test func aGrantPastItsThresholdExpiresSoon() async throws {
        let harness = try await Self.idleHarness()
        defer { Task { await harness.stop() } }
        let session = try await Self.signedIn(harness, rules: .microsoft)
        harness.clock.advance(by: Self.day * 70)
        #expect(try #require(await session.grantEnd).isSoon == false)
        harness.clock.advance(by: Self.day * 7)
        let end = try #require(await session.grantEnd)
        #expect(end.isSoon)
        #expect(await session.status.isConnected)
    }

    @Test func aBackgroundRunKeepsIdleGrantsAliveOnlyWhenAskedTo() async throws {
        let harness = try await Self.idleHarness()
        defer { Task { await harness.stop() } }
        let session = try await Self.signedIn(harness, rules: .microsoft)
        harness.clock.advance(by: Self.day * 85)

        let plain = BackgroundRefresh(sessions: [session], clock: harness.clock, dateSource: harness.clock.dateSource)
        let untouched = await plain.run(budget: .seconds(25))
        #expect(untouched.outcomes["work"] == .fresh)
        #expect(await harness.counters()[.refreshes] == 0)

        var configuration = BackgroundRefresh.Configuration()
        configuration.keepAliveMargin = Self.day * 7
        let keeping = BackgroundRefresh(
            sessions: [session],
            configuration: configuration,
            clock: harness.clock,
            dateSource: harness.clock.dateSource
        )
        let report = await keeping.run(budget: .seconds(25))
        #expect(report.outcomes["work"] == .refreshed)
        #expect(await harness.counters()[.refreshes] == 1)
        // The next run is due within the maximum interval; the new deadline is 90 days away.
        #expect(report.nextRun <= harness.clock.date.addingTimeInterval(4 * 3600))
        let again = await keeping.run(budget: .seconds(25))
        #expect(again.outcomes["work"] == .fresh)
        #expect(await harness.counters()[.refreshes] == 1)
    }
}
