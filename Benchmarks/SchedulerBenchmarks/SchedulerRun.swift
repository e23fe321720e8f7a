import Foundation
import PostgresNIO
import ServiceLifecycle
import Tether
import TetherAsyncHTTPClient
import TetherDevProvider
import TetherOAuth
import TetherPostgres

/// The benchmark's wall clock: the system's, except that it stands still while connections are seeded, so that
/// the due times written during seeding start when the workers start. The provider, the OAuth clients and the
/// schedulers all read it.
final class BenchmarkTime: Sendable {
    private let offset = LockedState<TimeInterval>(0)

    var now: Date {
        let offset = self.offset.withLock { $0 }
        return Date().addingTimeInterval(-offset)
    }

    var dateSource: DateSource { DateSource { [self] in now } }

    /// Sets the clock back to `moment`, from which it runs on.
    func resume(at moment: Date) {
        offset.withLock { offset in offset += Date().addingTimeInterval(-offset).timeIntervalSince(moment) }
    }
}

/// One K: seed N connections in a fresh tenant, then K schedulers (each its own pool, OAuth client and transport,
/// all in this process) keep them fresh until every connection was refreshed once or the time limit passes.
struct SchedulerRun {
    let options: Options
    let workers: Int
    let database: PostgresClient.Configuration
    let provider: RunningDevProvider
    let discovered: ProviderConfiguration
    let time: BenchmarkTime

    struct Result {
        var workers: Int
        var seedSeconds: Double
        var runSeconds: Double
        var stoppedBy: String
        var providerRefreshes: Int
        var providerRefreshFailures: Int
        var reuseDetections: Int
        var refreshesSent: Int
        var distinctExpiries: Int
        var connectionsRefreshed: Int
        var schedulerRefreshes: Int64
        var schedulerFailures: Int64
        var contention: Int64
        var lateness: [Double]
        var leeway: Double
        var transactions: Int64
        var processCPU: Double
        var serverCPU: Double
        var loadAtEnd: String

        var doubleRefreshes: Int { refreshesSent - distinctExpiries }
        var rate: Double { Double(providerRefreshes) / runSeconds }
        var perRefresh: Double { max(1, Double(providerRefreshes)) }
        /// Refreshes that happened after the token had expired (lateness above the leeway).
        var afterExpiry: Int { lateness.filter { $0 > leeway }.count }

        static func table(_ results: [Result], options: Options) -> String {
            var lines = [
                "| K | connections refreshed | run time | refreshes/s | lateness p50 | lateness p99 "
                    + "| DB transactions per refresh | double refreshes | reuse detections |",
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
            ]
            for result in results {
                let cells = [
                    "\(result.workers)",
                    "\(Statistics.count(result.connectionsRefreshed)) of \(Statistics.count(options.connections))",
                    String(format: "%.0f s", result.runSeconds),
                    String(format: "%.1f", result.rate),
                    Statistics.time(Statistics.percentile(result.lateness, 0.5)),
                    Statistics.time(Statistics.percentile(result.lateness, 0.99)),
                    String(format: "%.2f", Double(result.transactions) / result.perRefresh),
                    "\(result.doubleRefreshes)",
                    "\(result.reuseDetections)",
                ]
                lines.append("| " + cells.joined(separator: " | ") + " |")
            }
            return lines.joined(separator: "\n")
        }

        static func detailTable(_ results: [Result]) -> String {
            var lines = [
                "| K | seeding | stopped by | refreshes (provider / sent / scheduler) | failures | lease contention "
                    + "| lateness max | refreshed after expiry | CPU per refresh: this process / PostgreSQL "
                    + "| load average at end |",
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
            ]
            for result in results {
                let cells = [
                    "\(result.workers)",
                    String(format: "%.0f s", result.seedSeconds),
                    result.stoppedBy,
                    "\(Statistics.count(result.providerRefreshes)) / \(Statistics.count(result.refreshesSent)) / "
                        + Statistics.count(Int(result.schedulerRefreshes)),
                    "\(result.schedulerFailures) (provider: \(result.providerRefreshFailures))",
                    "\(result.contention)",
                    Statistics.time(result.lateness.max() ?? .nan),
                    "\(result.afterExpiry)",
                    Statistics.time(result.processCPU / result.perRefresh) + " / "
                        + Statistics.time(result.serverCPU / result.perRefresh),
                    result.loadAtEnd,
                ]
                lines.append("| " + cells.joined(separator: " | ") + " |")
            }
            return lines.joined(separator: "\n")
        }
    }

    func run() async throws -> Result {
        let tenant = "bench-k\(workers)-\(UUID().uuidString)"
        let key = VaultKey.generate()
        say("K = \(workers): seeding \(Statistics.count(options.connections)) connections in tenant \(tenant)")
        let reference = time.now
        let seedSeconds = try await seed(tenant: tenant, key: key, reference: reference)
        say(
            String(
                format: "K = %d: seeded in %.1f s (%.0f connections/s); starting %d worker(s)",
                workers,
                seedSeconds,
                Double(options.connections) / seedSeconds,
                workers
            )
        )
        return try await PostgresProbe.withClient(database) { monitor in
            try await measure(
                tenant: tenant,
                key: key,
                reference: reference,
                seedSeconds: seedSeconds,
                monitor: monitor
            )
        }
    }

    /// Writes N sealed records with real grants from the provider, in batches, from concurrent tasks. Record `i`
    /// becomes due at `reference + W·(i + ½)/N`: its token was received W before that and lives L.
    func seed(tenant: String, key: VaultKey, reference: Date) async throws -> Double {
        let count = options.connections
        let window = options.window
        let lifetime = TimeInterval(options.lifetime)
        let tasks = options.seedConcurrency
        let scopes = options.scopes
        let provider = self.provider
        let clock = ContinuousClock()
        let start = clock.now
        let next = LockedState(0)
        let batch = 250
        try await PostgresProbe.withClient(database, maximumConnections: tasks) { pool in
            let store = try PostgresStore(
                client: pool,
                configuration: .init(tenant: tenant, key: key),
                logger: SchedulerBenchmarks.silent
            )
            try await store.migrate()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<tasks {
                    group.addTask {
                        while true {
                            let first = next.withLock { value in
                                defer { value += batch }
                                return value
                            }
                            guard first < count else { return }
                            for index in first..<min(first + batch, count) {
                                let username = index.isMultiple(of: 2) ? "ada" : "grace"
                                let issued = try await provider.admin.issueTokens(username: username, scopes: scopes)
                                let due = reference.addingTimeInterval(window * (Double(index) + 0.5) / Double(count))
                                let received = due.addingTimeInterval(-window)
                                let connection = Connection(
                                    id: Self.connectionID(index),
                                    account: Account(providerID: "dev", subject: username),
                                    tokens: TokenSet(
                                        accessToken: AccessToken(issued.accessToken),
                                        refreshToken: issued.refreshToken.map { RefreshToken($0) },
                                        receivedAt: received,
                                        expiresAt: received.addingTimeInterval(lifetime)
                                    )
                                )
                                _ = try await store.write(connection, expecting: .absent)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            // Fresh statistics that know the new tenant, as a table in service has. With statistics from before
            // the tenant's rows were written, the planner may put the claim's `FOR UPDATE SKIP LOCKED` subquery on
            // the inner side of a nested loop over the tenant's rows, re-running it for each (docs/benchmarks.md).
            _ = try await pool.query("ANALYZE tether_credentials", logger: SchedulerBenchmarks.silent)
        }
        return Statistics.seconds(start.duration(to: clock.now))
    }

    static func connectionID(_ index: Int) -> ConnectionID { ConnectionID("conn-\(index)") }

    func measure(
        tenant: String,
        key: VaultKey,
        reference: Date,
        seedSeconds: Double,
        monitor: PostgresClient
    ) async throws -> Result {
        let silent = SchedulerBenchmarks.silent
        var poolConfiguration = database
        poolConfiguration.options.keepAliveBehavior = nil
        poolConfiguration.options.maximumConnections = options.concurrency + 4
        let pools = (0..<workers).map { _ in
            PostgresClient(configuration: poolConfiguration, backgroundLogger: silent)
        }
        let transports = (0..<workers).map { _ in AsyncHTTPClientTransport() }
        let log = RefreshLog()
        let metrics = CollectingMetrics()
        let dateSource = time.dateSource
        let options = self.options
        let discovered = self.discovered
        let provider = self.provider
        let workers = self.workers

        let outcome = try await withThrowingTaskGroup(of: Void.self) { group in
            for pool in pools { group.addTask { await pool.run() } }
            defer { group.cancelAll() }
            let stores = try pools.map { pool in
                try PostgresStore(client: pool, configuration: .init(tenant: tenant, key: key), logger: silent)
            }
            for store in stores { try await store.migrate() }
            let schedulers = try zip(stores, transports).map { store, transport in
                let client = try OAuthClient(
                    configuration: discovered,
                    transport: transport,
                    dateSource: dateSource,
                    logger: silent
                )
                return RefreshScheduler(
                    store: store,
                    refresher: RecordingRefresher(inner: client, log: log),
                    configuration: .init(
                        session: options.session,
                        batchSize: options.batchSize,
                        concurrency: options.concurrency
                    ),
                    dateSource: dateSource,
                    metricsFactory: metrics,
                    logger: silent
                )
            }
            let before = try await PostgresProbe.snapshot(monitor)
            let counters = await provider.admin.counters()
            let cpu = processCPUSeconds()
            let services = ServiceGroup(configuration: .init(services: schedulers, logger: silent))
            let clock = ContinuousClock()
            // The clock resumes at the reference the due times were written from.
            time.resume(at: reference)
            let start = clock.now
            async let running: Void = services.run()

            var stoppedBy = "time limit"
            var reported = (seconds: 0.0, sent: 0)
            while true {
                try await Task.sleep(for: .seconds(1))
                let elapsed = Statistics.seconds(start.duration(to: clock.now))
                let counts = log.counts
                if counts.connections >= options.connections {
                    stoppedBy = "every connection refreshed once"
                    break
                }
                if elapsed >= options.limit { break }
                if elapsed - reported.seconds >= 30 {
                    let rate = Double(counts.calls - reported.sent) / (elapsed - reported.seconds)
                    say(
                        String(
                            format: "K = %d: %4.0f s, %@ refreshes sent (%@ connections), %.1f/s lately, load %@",
                            workers,
                            elapsed,
                            Statistics.count(counts.calls),
                            Statistics.count(counts.connections),
                            rate,
                            loadAverage()
                        )
                    )
                    reported = (elapsed, counts.calls)
                }
            }
            // Graceful shutdown: refreshes in flight finish, nothing more is claimed.
            await services.triggerGracefulShutdown()
            try await running
            let runSeconds = Statistics.seconds(start.duration(to: clock.now))
            let after = await provider.admin.counters()
            return (
                before: before,
                counters: counters,
                after: after,
                cpu: processCPUSeconds() - cpu,
                runSeconds: runSeconds,
                stoppedBy: stoppedBy
            )
        }
        // The pools are closed: their backends have reported their counters.
        for transport in transports { try await transport.shutdown() }
        try await Task.sleep(for: .milliseconds(500))
        let end = try await PostgresProbe.snapshot(monitor)
        let counts = log.counts
        let result = Result(
            workers: workers,
            seedSeconds: seedSeconds,
            runSeconds: outcome.runSeconds,
            stoppedBy: outcome.stoppedBy,
            providerRefreshes: outcome.after[.refreshes] - outcome.counters[.refreshes],
            providerRefreshFailures: outcome.after[.refreshFailures] - outcome.counters[.refreshFailures],
            reuseDetections: outcome.after[.reuseDetections] - outcome.counters[.reuseDetections],
            refreshesSent: counts.calls,
            distinctExpiries: counts.expiries,
            connectionsRefreshed: counts.connections,
            schedulerRefreshes: metrics.total("tether_scheduler_refreshes_total"),
            schedulerFailures: metrics.total("tether_scheduler_failures_total"),
            contention: metrics.total("tether_scheduler_lease_contention_total"),
            lateness: metrics.values("tether_scheduler_refresh_lateness_seconds"),
            leeway: options.leeway,
            transactions: end.transactions - outcome.before.transactions,
            processCPU: outcome.cpu,
            serverCPU: end.serverCPU - outcome.before.serverCPU,
            loadAtEnd: loadAverage()
        )
        say(
            String(
                format: "K = %d: %@ after %.0f s; %@ refreshes, %.1f/s, lateness p50 %@ p99 %@, %@ doubles, %@ reuse",
                workers,
                result.stoppedBy,
                result.runSeconds,
                Statistics.count(result.providerRefreshes),
                result.rate,
                Statistics.time(Statistics.percentile(result.lateness, 0.5)),
                Statistics.time(Statistics.percentile(result.lateness, 0.99)),
                "\(result.doubleRefreshes)",
                "\(result.reuseDetections)"
            )
        )
        return result
    }
}
