import Foundation
import Logging
import Metrics
import MetricsTestKit
import PostgresNIO
import ProviderTestSupport
import ServiceLifecycle
import Testing
import Tether
import TetherDevProvider
import TetherPostgres
import TetherTesting

/// `RefreshScheduler` against a real PostgreSQL server (`Scripts/start-postgres.sh`) and the development provider
/// on 127.0.0.1, with short access tokens, refresh-token rotation and reuse detection.
@Suite(.enabled(if: PostgresTestDatabase.isEnabled, PostgresTestDatabase.skipMessage))
struct RefreshSchedulerTests {
    typealias Database = PostgresTestDatabase

    /// Access tokens last a minute; with the default leeway (at most a quarter of the lifetime) they are due
    /// 15 seconds before expiry.
    static let lifetime = Duration.seconds(60)
    /// How far to move the clock so that every token issued at the last step is due, and none issued after.
    static let step = Duration.seconds(50)

    static func startProvider() async throws -> ProviderHarness {
        try await ProviderHarness.start { configuration in
            configuration.accessTokenLifetime = lifetime
            configuration.refreshTokenRotation = true
            configuration.reuseDetection = true
            configuration.reuseGracePeriod = .zero
        }
    }

    /// A connection holding a fresh grant of `username` at the provider.
    static func seed(
        _ id: ConnectionID,
        username: String = "ada",
        harness: ProviderHarness,
        store: PostgresStore,
        expecting precondition: WritePrecondition = .absent
    ) async throws {
        let issued = try await harness.running.admin.issueTokens(username: username)
        let now = harness.clock.date
        let connection = Connection(
            id: id,
            account: Account(providerID: "dev", subject: username),
            tokens: TokenSet(
                accessToken: AccessToken(issued.accessToken),
                refreshToken: issued.refreshToken.map { RefreshToken($0) },
                receivedAt: now,
                expiresAt: now.addingTimeInterval(TimeInterval(issued.expiresIn))
            )
        )
        _ = try await store.write(connection, expecting: precondition)
    }

    static func scheduler(
        _ store: PostgresStore,
        harness: ProviderHarness,
        refresher: (any TokenRefresher)? = nil,
        configuration: RefreshScheduler.Configuration = .init(
            session: Session.Configuration(retry: Backoff(maximumAttempts: 1, jitter: 0)),
            batchSize: 10,
            concurrency: 4
        ),
        clock: (any Clock<Duration>)? = nil,
        metrics: TestMetrics? = nil
    ) -> RefreshScheduler {
        RefreshScheduler(
            store: store,
            refreshers: ["dev": refresher ?? harness.client],
            configuration: configuration,
            clock: clock ?? harness.clock,
            dateSource: harness.clock.dateSource,
            metricsFactory: metrics,
            logger: ProviderHarness.silent
        )
    }

    /// Runs rounds until one claims nothing; returns the rounds' totals.
    static func drain(_ scheduler: RefreshScheduler) async -> RefreshScheduler.Round {
        var total = RefreshScheduler.Round()
        while true {
            let round = await scheduler.runRound()
            guard round.claimed > 0 else { return total }
            total.claimed += round.claimed
            total.refreshed += round.refreshed
            total.contended += round.contended
            total.endedGrants += round.endedGrants
            total.failed += round.failed
            total.skipped += round.skipped
        }
    }

    /// With statistics taken before a tenant's rows were written (as after a tenant's first busy minutes), the claim
    /// still chooses and locks its rows once: `LockRows` runs one loop and the claim takes exactly its limit. As a
    /// joined subquery it ran once per row of the tenant (20,000 loops, close to a minute in the benchmark) and
    /// claimed more rows than its limit.
    @Test func theClaimChoosesItsRowsOnceWhateverTheStatistics() async throws {
        let tenant = Database.uniqueTenant()
        let others = tenant + "-others"
        try await Database.withStore(tenant: tenant, key: .generate()) { store, client in
            // The schema exists once the store has run a statement.
            _ = try await store.list()
            let insert = { (name: String, count: Int) async throws in
                try await client.query(
                    """
                    INSERT INTO tether_credentials
                        (tenant, connection_id, version, key_id, record, access_received_at, access_expires_at)
                    SELECT \(name), 'c' || g, 1, 'unused', '\\x00'::bytea, now() - interval '10 minutes',
                        now() + (g % 600) * interval '1 second'
                    FROM generate_series(1, \(count)) AS g
                    """,
                    logger: Database.quietLogger
                )
            }
            defer {
                Task {
                    _ = try? await client.query(
                        "DELETE FROM tether_credentials WHERE tenant IN (\(tenant), \(others))",
                        logger: Database.quietLogger
                    )
                }
            }
            _ = try await insert(others, 20_000)
            _ = try await client.query("ANALYZE tether_credentials", logger: Database.quietLogger)
            _ = try await insert(tenant, 20_000)

            let statement = PostgresStore.claimStatement(
                tenant: tenant,
                now: Date(),
                leewaySeconds: 300,
                leewayFraction: 0.25,
                limit: 50,
                claimSeconds: 120
            )
            let plan: String = try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: Database.quietLogger)
                defer { Task { _ = try? await connection.query("ROLLBACK", logger: Database.quietLogger) } }
                let rows = try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) " + statement.sql,
                        binds: statement.binds
                    ),
                    logger: Database.quietLogger
                )
                var text = ""
                for try await line in rows.decode(String.self) { text += line }
                return text
            }
            let lockRows = try #require(Self.planNodes(in: plan).first { $0["Node Type"] as? String == "LockRows" })
            #expect(lockRows["Actual Loops"] as? Int == 1, "\(plan)")
            #expect(lockRows["Actual Rows"] as? Int == 50, "\(plan)")
            let claimed = try await store.claimDueConnections(
                at: Date(),
                leeway: .seconds(300),
                leewayFraction: 0.25,
                limit: 50,
                claim: .seconds(120)
            )
            #expect(claimed.count == 50)
            #expect(Set(claimed.map(\.id)).count == 50)
        }
    }

    /// Every node of an `EXPLAIN (FORMAT JSON)` plan.
    static func planNodes(in json: String) throws -> [[String: Any]] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        var nodes: [[String: Any]] = []
        var pending = document.compactMap { $0["Plan"] as? [String: Any] }
        while let node = pending.popLast() {
            nodes.append(node)
            pending += (node["Plans"] as? [[String: Any]]) ?? []
        }
        return nodes
    }

    @Test func threeWorkersRefreshEveryConnectionOncePerExpiry() async throws {
        let harness = try await Self.startProvider()
        defer { Task { await harness.stop() } }
        let tenant = Database.uniqueTenant()
        let key = VaultKey.generate()
        let count = 50
        let metrics = TestMetrics()
        try await Database.withStore(tenant: tenant, key: key) { first, _ in
            try await Database.withStore(tenant: tenant, key: key) { second, _ in
                try await Database.withStore(tenant: tenant, key: key) { third, _ in
                    for index in 0..<count {
                        try await Self.seed(ConnectionID("conn-\(index)"), harness: harness, store: first)
                    }
                    let schedulers = [first, second, third].map {
                        Self.scheduler($0, harness: harness, metrics: metrics)
                    }
                    // Nothing is due yet.
                    #expect(await schedulers[0].runRound().claimed == 0)

                    for expiry in 1...2 {
                        harness.clock.advance(by: Self.step)
                        let rounds = await withTaskGroup(of: RefreshScheduler.Round.self) { group in
                            for scheduler in schedulers { group.addTask { await Self.drain(scheduler) } }
                            return await group.reduce(into: []) { $0.append($1) }
                        }
                        let counters = await harness.counters()
                        #expect(counters[.refreshes] == count * expiry)
                        #expect(counters[.reuseDetections] == 0)
                        #expect(rounds.map(\.refreshed).reduce(0, +) == count)
                        #expect(rounds.map(\.failed).reduce(0, +) == 0)
                        #expect(rounds.map(\.endedGrants).reduce(0, +) == 0)
                        for index in 0..<count {
                            let record = try #require(try await first.read(ConnectionID("conn-\(index)")))
                            let expiresAt = try #require(record.tokens.expiresAt)
                            #expect(expiresAt > harness.clock.date.addingTimeInterval(30))
                        }
                    }
                    #expect(metrics.counterTotal(label: "tether_scheduler_refreshes_total") == Int64(2 * count))
                    #expect(metrics.counterTotal(label: "tether_scheduler_failures_total") == 0)
                    let lateness = try metrics.expectRecorder("tether_scheduler_refresh_lateness_seconds")
                    #expect(lateness.values.count == 2 * count)
                    // Refreshed after it became due (the clock jumped past that), and before the token expired.
                    #expect(lateness.values.allSatisfy { $0 >= 0 && $0 < 15 })
                    #expect(try await first.connectionsNeedingSignIn().isEmpty)
                }
            }
        }
    }

    @Test func refusedGrantIsMarkedAndNotRetried() async throws {
        let harness = try await Self.startProvider()
        defer { Task { await harness.stop() } }
        let metrics = TestMetrics()
        try await Database.withStore(tenant: Database.uniqueTenant(), key: .generate()) { store, _ in
            try await Self.seed("kept", username: "ada", harness: harness, store: store)
            try await Self.seed("ended", username: "grace", harness: harness, store: store)
            await harness.running.admin.revokeGrants(ofUser: "grace")
            let scheduler = Self.scheduler(store, harness: harness, metrics: metrics)

            harness.clock.advance(by: Self.step)
            let first = await Self.drain(scheduler)
            #expect(first.refreshed == 1)
            #expect(first.endedGrants == 1)
            let needing = try await store.connectionsNeedingSignIn()
            #expect(needing.map(\.id) == ["ended"])
            #expect(needing.first?.reason == SignInReason.grantRevoked.code)
            // Kept, without tokens, as a hint for signing in again.
            let ended = try #require(try await store.read("ended"))
            #expect(ended.account.subject == "grace")
            #expect(ended.tokens.refreshToken == nil)
            #expect(
                metrics.counterTotal(
                    label: "tether_scheduler_failures_total",
                    dimensions: [("provider", "dev"), ("class", "needs_sign_in")]
                ) == 1
            )

            // The next expiry: only the live grant goes to the provider.
            let before = await harness.counters().requests(to: .token)
            harness.clock.advance(by: Self.step)
            let second = await Self.drain(scheduler)
            #expect(second.claimed == 1)
            #expect(second.refreshed == 1)
            #expect(await harness.counters().requests(to: .token) == before + 1)

            // Signing in again (a record with a refresh token written over it) clears the mark.
            try await Self.seed("ended", username: "grace", harness: harness, store: store, expecting: .any)
            #expect(try await store.connectionsNeedingSignIn().isEmpty)
        }
    }

    @Test func retryAfterPausesTheProvider() async throws {
        let harness = try await Self.startProvider()
        defer { Task { await harness.stop() } }
        let metrics = TestMetrics()
        try await Database.withStore(tenant: Database.uniqueTenant(), key: .generate()) { store, _ in
            for index in 0..<3 {
                try await Self.seed(ConnectionID("conn-\(index)"), harness: harness, store: store)
            }
            await harness.running.admin.rateLimitNext(1, requestsTo: .token, retryAfterSeconds: 30)
            let scheduler = Self.scheduler(
                store,
                harness: harness,
                configuration: .init(
                    session: Session.Configuration(retry: Backoff(maximumAttempts: 1, jitter: 0)),
                    batchSize: 10,
                    concurrency: 1
                ),
                metrics: metrics
            )
            harness.clock.advance(by: Self.step)
            let round = await scheduler.runRound()
            #expect(round.claimed == 3)
            #expect(round.failed == 1)
            #expect(round.skipped == 2)
            #expect(await harness.counters().requests(to: .token) == 1)
            #expect(metrics.counterTotal(label: "tether_scheduler_rate_limited_total") == 2)

            // The two given back are claimable at once, but the provider stays paused until Retry-After passes.
            #expect(await scheduler.runRound().skipped == 2)
            #expect(await harness.counters().requests(to: .token) == 1)
            harness.clock.advance(by: .seconds(31))
            let resumed = await scheduler.runRound()
            #expect(resumed.refreshed == 2)
            #expect(await harness.counters()[.reuseDetections] == 0)
        }
    }

    @Test func overlappingClaimsStillRefreshOnce() async throws {
        let harness = try await Self.startProvider()
        defer { Task { await harness.stop() } }
        let tenant = Database.uniqueTenant()
        let key = VaultKey.generate()
        let metrics = TestMetrics()
        try await Database.withStore(tenant: tenant, key: key) { first, client in
            try await Database.withStore(tenant: tenant, key: key) { second, _ in
                try await Self.seed("shared", harness: harness, store: first)
                let gate = GatedRefresher(harness.client)
                let holder = Self.scheduler(first, harness: harness, refresher: gate, metrics: metrics)
                let latecomer = Self.scheduler(second, harness: harness, metrics: metrics)
                harness.clock.advance(by: Self.step)
                async let held = holder.runRound()
                await gate.waitForStarts(1)
                // The holder's refresh is at the provider, under the lease; its claim lapses (released here), and
                // another worker claims the connection.
                try await first.releaseClaims(["shared"])
                async let late = latecomer.runRound()
                try await Self.waitUntilClaimed("shared", tenant: tenant, client: client)
                await gate.open()
                let (heldRound, lateRound) = await (held, late)
                #expect(heldRound.refreshed == 1)
                #expect(lateRound.claimed == 1)
                #expect(lateRound.contended == 1)
                let counters = await harness.counters()
                #expect(counters[.refreshes] == 1)
                #expect(counters[.reuseDetections] == 0)
                #expect(metrics.counterTotal(label: "tether_scheduler_lease_contention_total") == 1)
                #expect(metrics.counterTotal(label: "tether_scheduler_refreshes_total") == 1)
            }
        }
    }

    /// Returns once a worker holds a claim on `id`.
    static func waitUntilClaimed(_ id: ConnectionID, tenant: String, client: PostgresClient) async throws {
        while true {
            let rows = try await client.query(
                """
                SELECT count(*) FROM tether_credentials
                WHERE tenant = \(tenant) AND connection_id = \(id.rawValue) AND claimed_until IS NOT NULL
                """
            )
            for try await claimed in rows.decode(Int64.self) where claimed > 0 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test func gracefulShutdownFinishesRefreshesInFlightAndClaimsNothingNew() async throws {
        let harness = try await Self.startProvider()
        defer { Task { await harness.stop() } }
        try await Database.withStore(tenant: Database.uniqueTenant(), key: .generate()) { store, _ in
            for index in 0..<4 {
                try await Self.seed(ConnectionID("conn-\(index)"), harness: harness, store: store)
            }
            let gate = GatedRefresher(harness.client)
            let scheduler = Self.scheduler(
                store,
                harness: harness,
                refresher: gate,
                configuration: .init(batchSize: 2, concurrency: 2, roundInterval: .milliseconds(100)),
                clock: ContinuousClock()
            )
            harness.clock.advance(by: Self.step)
            let group = ServiceGroup(
                configuration: .init(services: [scheduler], logger: ProviderHarness.silent)
            )
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                await gate.waitForStarts(2)
                await group.triggerGracefulShutdown()
                await gate.open()
                try await tasks.waitForAll()
            }
            // Both refreshes in flight reached the provider and the store; the other two were not claimed.
            #expect(await harness.counters()[.refreshes] == 2)
            let refreshed = try await (0..<4).asyncFilter { index in
                let record = try #require(try await store.read(ConnectionID("conn-\(index)")))
                return try #require(record.tokens.expiresAt) > harness.clock.date.addingTimeInterval(30)
            }
            #expect(refreshed.count == 2)
            let next = await Self.scheduler(store, harness: harness).runRound()
            #expect(next.claimed == 2)
            #expect(next.refreshed == 2)
            #expect(await harness.counters()[.reuseDetections] == 0)
        }
    }
}

/// Rate limits and `Retry-After` pauses on a manual clock (no database).
struct ProviderLimiterTests {
    @Test func bucketRefillsAtItsRateAndPauseHoldsUntilItEnds() {
        let clock = ManualClock(startDate: Date(timeIntervalSince1970: 0))
        let limiter = ProviderLimiter(
            clock: clock,
            configuration: .init(rateLimits: ["slow": .init(refreshesPerSecond: 1, burst: 2)])
        )
        #expect(limiter.take("slow"))
        #expect(limiter.take("slow"))
        #expect(!limiter.take("slow"))
        clock.advance(by: .seconds(1))
        #expect(limiter.take("slow"))
        #expect(!limiter.take("slow"))
        // Providers without a limit are not limited; a pause holds any provider.
        #expect((0..<100).allSatisfy { _ in limiter.take("fast") })
        limiter.pause("fast", for: .seconds(30))
        #expect(!limiter.take("fast"))
        clock.advance(by: .seconds(29))
        #expect(!limiter.take("fast"))
        clock.advance(by: .seconds(1))
        #expect(limiter.take("fast"))
    }
}

/// The development provider's client, holding every refresh until ``open()``.
final class GatedRefresher: TokenRefresher {
    private let inner: any TokenRefresher
    private let state = LockedState(GateState())

    private struct GateState {
        var isOpen = false
        var started = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
        var startWatchers: [(Int, CheckedContinuation<Void, Never>)] = []
    }

    init(_ inner: any TokenRefresher) { self.inner = inner }

    func refresh(_ request: RefreshRequest) async throws -> TokenResponse {
        await withCheckedContinuation { continuation in
            let resume = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.started += 1
                let started = state.started
                let ready = state.startWatchers.filter { $0.0 <= started }.map(\.1)
                state.startWatchers.removeAll { $0.0 <= started }
                if state.isOpen { return ready + [continuation] }
                state.waiting.append(continuation)
                return ready
            }
            for waiter in resume { waiter.resume() }
        }
        return try await inner.refresh(request)
    }

    /// Returns once `count` refreshes have started.
    func waitForStarts(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.started >= count { return true }
                state.startWatchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Lets every refresh, held or later, go on.
    func open() async {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

extension Sequence where Element: Sendable {
    func asyncFilter(_ predicate: (Element) async throws -> Bool) async rethrows -> [Element] {
        var kept: [Element] = []
        for element in self where try await predicate(element) { kept.append(element) }
        return kept
    }
}
