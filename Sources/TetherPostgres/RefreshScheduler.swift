import Foundation
public import Logging
public import Metrics
public import ServiceLifecycle
public import Tether

/// A swift-service-lifecycle `Service` that refreshes the connections of a ``PostgresStore`` whose access tokens
/// are about to expire, before anyone asks for them.
///
/// Run one in every worker, on as many machines as you like. Each round claims a batch of due connections
/// (`FOR UPDATE SKIP LOCKED`; a claimed row is not handed out again until its claim lapses), so workers share the
/// load instead of racing; each connection is then refreshed through a ``Tether/Session`` — the store's refresh
/// lease, a re-read of the record under it, one refresh per expiry — exactly as an application's own session
/// would, so a scheduler and the applications reading the same store never refresh one grant twice.
///
/// - A connection is due when its access token expires within the leeway of
///   ``Configuration/session``, at most ``Tether/Session/Configuration/maximumLeewayFraction`` of the token's
///   lifetime, as a session judges it.
/// - Each provider (``Tether/Account/providerID``) has a token bucket (``Configuration/rateLimits``); a
///   transient failure with `Retry-After` pauses the provider's refreshes in this worker until then.
/// - A refresh the provider refuses (the grant ended) removes the tokens as a session does, and marks the
///   connection: ``PostgresStore/connectionsNeedingSignIn()`` lists it, and it is not retried until the user signs
///   in again. Nothing is deleted.
/// - Other failures leave the claim to lapse (``Configuration/claimDuration``), which paces the next attempt.
/// - On graceful shutdown, a round in progress finishes the refreshes it started and claims nothing new.
/// - With a ``RefreshSchedulerDelegate`` (such as a ``WebhookNotifier``), it reports a grant that ended, a
///   connection that works again (the user signed in, or a refresh that had failed succeeded) and, once the store
///   keeps when grants end, a grant about to end: see ``Event``. Each round then also lists the connections
///   needing sign-in, to notice those another worker or an application marked, and those signed in again.
///
/// Metrics (swift-metrics): `tether_scheduler_refreshes_total` (dimension `provider`),
/// `tether_scheduler_failures_total` (dimensions `provider` and `class`: `needs_sign_in`, `transient`,
/// `storage`, `configuration`), `tether_scheduler_refresh_lateness_seconds` (a recorder: the time of the refresh
/// minus the moment the token became due; negative is early), `tether_scheduler_lease_contention_total` (claimed
/// connections another worker or application had refreshed, or whose lease it held), and
/// `tether_scheduler_rate_limited_total`.
///
/// ```swift
/// let scheduler = RefreshScheduler(store: store, refreshers: ["google": googleClient])
/// let group = ServiceGroup(services: [client, scheduler], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
public struct RefreshScheduler: Service {
    /// How a scheduler paces itself.
    public struct Configuration: Sendable {
        /// The sessions' configuration: its leeway decides when a token is due, its retry policy how a refresh
        /// is retried, its lease timeout how long to wait for another holder.
        public var session: Session.Configuration
        /// The most connections one round claims.
        public var batchSize: Int
        /// The most refreshes one worker runs at once.
        public var concurrency: Int
        /// The pause between rounds that found less than a full batch.
        public var roundInterval: Duration
        /// The share of ``roundInterval`` by which a pause varies at random, 0 to 1, so that workers started
        /// together do not query together.
        public var jitter: Double
        /// How long a claim keeps a connection from other workers; a refresh that failed is tried again after it.
        public var claimDuration: Duration
        /// Rate limits per provider identifier (``Tether/Account/providerID``).
        public var rateLimits: [String: RateLimit]
        /// The rate limit of providers not in ``rateLimits``; `nil` for none.
        public var defaultRateLimit: RateLimit?

        /// Creates a configuration.
        /// - Parameters:
        ///   - session: The sessions' leeway, retries and lease timeout.
        ///   - batchSize: The most connections a round claims (at least 1).
        ///   - concurrency: The most refreshes at once (at least 1).
        ///   - roundInterval: The pause between rounds.
        ///   - jitter: How much a pause varies, as a share of `roundInterval`.
        ///   - claimDuration: How long a claim lasts.
        ///   - rateLimits: Rate limits per provider.
        ///   - defaultRateLimit: The rate limit of other providers.
        public init(
            session: Session.Configuration = Session.Configuration(),
            batchSize: Int = 50,
            concurrency: Int = 8,
            roundInterval: Duration = .seconds(5),
            jitter: Double = 0.5,
            claimDuration: Duration = .seconds(120),
            rateLimits: [String: RateLimit] = [:],
            defaultRateLimit: RateLimit? = nil
        ) {
            self.session = session
            self.batchSize = max(1, batchSize)
            self.concurrency = max(1, concurrency)
            self.roundInterval = roundInterval
            self.jitter = min(max(jitter, 0), 1)
            self.claimDuration = claimDuration
            self.rateLimits = rateLimits
            self.defaultRateLimit = defaultRateLimit
        }
    }

    /// A token bucket: ``burst`` refreshes at once, refilled at ``refreshesPerSecond``.
    public struct RateLimit: Sendable, Hashable {
        /// The sustained rate.
        public var refreshesPerSecond: Double
        /// The most refreshes in a burst.
        public var burst: Int

        /// Creates a rate limit.
        /// - Parameters:
        ///   - refreshesPerSecond: The sustained rate (above 0).
        ///   - burst: The bucket's size (at least 1).
        public init(refreshesPerSecond: Double, burst: Int = 1) {
            self.refreshesPerSecond = max(refreshesPerSecond, .leastNonzeroMagnitude)
            self.burst = max(1, burst)
        }
    }

    /// What one round did; for tests and diagnostics.
    package struct Round: Sendable, Hashable {
        /// Connections claimed.
        package var claimed = 0
        /// Connections this worker refreshed.
        package var refreshed = 0
        /// Connections someone else had refreshed, or whose lease someone else held.
        package var contended = 0
        /// Connections marked as needing sign-in.
        package var endedGrants = 0
        /// Refreshes that failed otherwise.
        package var failed = 0
        /// Connections given back unrefreshed (rate limit, `Retry-After`, shutdown, unknown provider).
        package var skipped = 0

        /// A round that did nothing.
        package init() {}

        /// A round that claimed `claimed` connections.
        init(claimed: Int) { self.claimed = claimed }
    }

    let store: PostgresStore
    let refresher: @Sendable (Account) -> (any TokenRefresher)?
    let configuration: Configuration
    let clock: any Clock<Duration>
    let dateSource: DateSource
    let logger: Logger
    let metrics: SchedulerMetrics
    let limiter: ProviderLimiter
    let delegate: (any RefreshSchedulerDelegate)?
    let tracker = EventTracker()

    /// Creates a scheduler that refreshes connections of the providers in `refreshers` and leaves the others.
    /// - Parameters:
    ///   - store: The store whose tenant's connections it refreshes.
    ///   - refreshers: The refresher (an OAuth client) per provider identifier (``Tether/Account/providerID``).
    ///   - configuration: Batch, pace, rate limits and the sessions' configuration.
    ///   - clock: The clock of pauses, rate limits and the sessions' retries.
    ///   - dateSource: The wall clock that decides which tokens are due.
    ///   - metricsFactory: Where metrics go; `nil` for the process's `MetricsSystem`.
    ///   - delegate: Receives the connections' changes of state; `nil` for none.
    ///   - logger: Where it logs (never a secret); the task's logger (`Logger.current`) by default.
    public init(
        store: PostgresStore,
        refreshers: [String: any TokenRefresher],
        configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock(),
        dateSource: DateSource = .system,
        metricsFactory: (any MetricsFactory)? = nil,
        delegate: (any RefreshSchedulerDelegate)? = nil,
        logger: Logger = .current
    ) {
        self.init(
            store: store,
            refresher: { refreshers[$0.providerID] },
            configuration: configuration,
            clock: clock,
            dateSource: dateSource,
            metricsFactory: metricsFactory,
            delegate: delegate,
            logger: logger
        )
    }

    /// Creates a scheduler that refreshes every connection of the store's tenant through one refresher.
    /// - Parameters:
    ///   - store: The store whose tenant's connections it refreshes.
    ///   - refresher: The refresher (an OAuth client).
    ///   - configuration: Batch, pace, rate limits and the sessions' configuration.
    ///   - clock: The clock of pauses, rate limits and the sessions' retries.
    ///   - dateSource: The wall clock that decides which tokens are due.
    ///   - metricsFactory: Where metrics go; `nil` for the process's `MetricsSystem`.
    ///   - delegate: Receives the connections' changes of state; `nil` for none.
    ///   - logger: Where it logs (never a secret); the task's logger (`Logger.current`) by default.
    public init(
        store: PostgresStore,
        refresher: any TokenRefresher,
        configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock(),
        dateSource: DateSource = .system,
        metricsFactory: (any MetricsFactory)? = nil,
        delegate: (any RefreshSchedulerDelegate)? = nil,
        logger: Logger = .current
    ) {
        self.init(
            store: store,
            refresher: { _ in refresher },
            configuration: configuration,
            clock: clock,
            dateSource: dateSource,
            metricsFactory: metricsFactory,
            delegate: delegate,
            logger: logger
        )
    }

    /// The initializer both public ones call: `refresher` picks the refresher for a connection's account.
    private init(
        store: PostgresStore,
        refresher: @escaping @Sendable (Account) -> (any TokenRefresher)?,
        configuration: Configuration,
        clock: any Clock<Duration>,
        dateSource: DateSource,
        metricsFactory: (any MetricsFactory)?,
        delegate: (any RefreshSchedulerDelegate)?,
        logger: Logger
    ) {
        self.store = store
        self.refresher = refresher
        self.configuration = configuration
        self.clock = clock
        self.dateSource = dateSource
        self.logger = logger
        self.metrics = SchedulerMetrics(factory: metricsFactory ?? MetricsSystem.factory)
        self.limiter = ProviderLimiter(clock: clock, configuration: configuration)
        self.delegate = delegate
    }

    /// Runs rounds until graceful shutdown or cancellation. A round in progress at graceful shutdown finishes the
    /// refreshes it started and claims nothing more; then `run()` returns.
    public func run() async throws {
        logger.info("Refresh scheduler started", metadata: ["tenant": "\(store.tenant)"])
        var random = SystemRandomNumberGenerator()
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            let round = await runRound()
            if round.claimed >= configuration.batchSize { continue }
            let pause = Self.pause(configuration, using: &random)
            let clock = self.clock
            do {
                try await cancelWhenGracefulShutdown { try await clock.sleep(for: pause) }
            } catch {
                break
            }
        }
        logger.info("Refresh scheduler stopped", metadata: ["tenant": "\(store.tenant)"])
    }

    /// The pause before the next round: the interval, varied by the jitter.
    static func pause(_ configuration: Configuration, using random: inout some RandomNumberGenerator) -> Duration {
        let spread = configuration.jitter
        let factor = spread > 0 ? Double.random(in: (1 - spread)...(1 + spread), using: &random) : 1
        return configuration.roundInterval * factor
    }

    /// One round: claims due connections and refreshes them, at most ``Configuration/concurrency`` at once.
    /// Returns when every refresh it started has finished; claims nothing once graceful shutdown began.
    @discardableResult
    package func runRound() async -> Round {
        guard !Task.isShuttingDownGracefully else { return Round() }
        await reportSignInChanges()
        let claimed: [(id: ConnectionID, expiresAt: Date)]
        do {
            claimed = try await store.claimDueConnections(
                at: dateSource.now,
                leeway: configuration.session.leeway,
                leewayFraction: configuration.session.maximumLeewayFraction,
                limit: configuration.batchSize,
                claim: configuration.claimDuration
            )
        } catch {
            metrics.failure(provider: "", class: .storage)
            logger.warning("Could not claim due connections", metadata: ["error": "\(error)"])
            return Round()
        }
        var round = Round(claimed: claimed.count)
        guard !claimed.isEmpty else { return round }
        logger.debug("Claimed due connections", metadata: ["count": "\(claimed.count)"])
        var unstarted = claimed.map(\.id)[...]
        var given: [ConnectionID] = []
        await withTaskGroup(of: (Outcome, ConnectionID).self) { group in
            var running = 0
            while true {
                while running < configuration.concurrency, let id = unstarted.popFirst() {
                    if Task.isShuttingDownGracefully {
                        given.append(id)
                        round.skipped += 1
                        continue
                    }
                    running += 1
                    group.addTask { (await refresh(id), id) }
                }
                guard let (outcome, id) = await group.next() else { break }
                running -= 1
                await noteOutcome(outcome, of: id)
                switch outcome {
                case .refreshed: round.refreshed += 1
                case .contended: round.contended += 1
                case .ended: round.endedGrants += 1
                case .failed: round.failed += 1
                case .skipped:
                    round.skipped += 1
                    given.append(id)
                }
            }
        }
        do {
            try await store.releaseClaims(given)
        } catch {
            logger.debug("Could not release claims; they lapse on their own", metadata: ["error": "\(error)"])
        }
        return round
    }

    enum Outcome: Sendable {
        case refreshed, contended, ended, failed, skipped
    }

    /// Refreshes one claimed connection through a session, if it is still due.
    func refresh(_ id: ConnectionID) async -> Outcome {
        var logger = self.logger
        logger[metadataKey: "connection"] = "\(id)"
        let record: Connection
        do {
            guard let found = try await store.read(id) else { return .skipped }
            record = found
        } catch {
            metrics.failure(provider: "", class: .storage)
            logger.warning("Could not read a due connection", metadata: ["error": "\(error)"])
            return .failed
        }
        let provider = record.account.providerID
        logger[metadataKey: "provider"] = "\(provider)"
        guard let refresher = refresher(record.account) else {
            logger.debug("No refresher for the connection's provider; leaving it")
            return .skipped
        }
        guard limiter.take(provider) else {
            metrics.rateLimited(provider: provider)
            logger.trace("Provider rate-limited or paused; giving the connection back")
            return .skipped
        }
        let session = Session(
            id: id,
            store: store,
            refresher: refresher,
            configuration: configuration.session,
            clock: clock,
            dateSource: dateSource,
            logger: logger
        )
        let dueAt = Self.dueDate(record.tokens, configuration: configuration.session)
        do {
            _ = try await session.validAccessToken()
        } catch let error as SessionError {
            return await handle(error, record: record, session: session, logger: logger)
        } catch {
            // Cancellation: the refresh itself runs on in the session.
            return .failed
        }
        if await session.counters.refreshes > 0 {
            metrics.refreshed(provider: provider, lateness: dueAt.map { dateSource.now.timeIntervalSince($0) })
            return .refreshed
        }
        // A session hands out a token that has not expired yet when the provider cannot be reached; its status
        // tells that apart from a token another worker refreshed.
        if case .offline(_, _, let lastError) = await session.status {
            return transientFailure(lastError, provider: provider, logger: logger)
        }
        metrics.contention()
        logger.debug("Another worker had refreshed the connection")
        return .contended
    }

    func handle(_ error: SessionError, record: Connection, session: Session, logger: Logger) async -> Outcome {
        let provider = record.account.providerID
        if error == .needsSignIn {
            let reason = error.signInReason?.code ?? RefreshSchedule.signInRequired
            metrics.failure(provider: provider, class: .needsSignIn)
            logger.info("The grant ended; marking the connection as needing sign-in", metadata: ["reason": "\(reason)"])
            do {
                // Mark the record the session left (tokens removed), not a newer sign-in.
                if let ended = try await store.read(record.id), ended.tokens.refreshToken == nil {
                    try await store.markNeedsSignIn(record.id, version: ended.version, reason: reason)
                    await reportNeedsSignIn(ended, reason: error.signInReason ?? Self.signInReason(code: reason))
                }
            } catch {
                logger.warning("Could not mark the connection", metadata: ["error": "\(error)"])
            }
            return .ended
        }
        if error == .offline {
            if let cause = error.cause as? CredentialStoreError, cause == .leaseTimeout {
                metrics.contention()
                logger.debug("Another worker held the refresh lease")
                return .contended
            }
            let cause = error.cause as? RefreshError ?? RefreshError.transient(error.message)
            return transientFailure(cause, provider: provider, logger: logger)
        }
        if error == .storageUnavailable {
            metrics.failure(provider: provider, class: .storage)
        } else {
            metrics.failure(provider: provider, class: .configuration)
        }
        logger.warning("Refresh failed", metadata: ["error": "\(error.message)"])
        return .failed
    }

    /// Counts a transient failure and, when the provider asked for it (`Retry-After`, RFC 9110 §10.2.3), pauses
    /// the provider's refreshes in this worker.
    func transientFailure(_ failure: RefreshError, provider: String, logger: Logger) -> Outcome {
        if let retryAfter = failure.retryAfter {
            limiter.pause(provider, for: retryAfter)
            logger.info(
                "Provider asked to retry later; pausing its refreshes",
                metadata: ["retry_after": "\(retryAfter)"]
            )
        }
        metrics.failure(provider: provider, class: .transient)
        logger.debug("Refresh failed: transient", metadata: ["error": "\(failure.message)"])
        return .failed
    }

    /// When a token becomes due: its expiry minus the effective leeway.
    static func dueDate(_ tokens: TokenSet, configuration: Session.Configuration) -> Date? {
        guard let expiresAt = tokens.expiresAt else { return nil }
        let leeway = configuration.effectiveLeeway(forLifetime: tokens.lifetime)
        return expiresAt.addingTimeInterval(-RefreshScheduler.seconds(leeway))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
