public import Foundation
public import Logging

/// One background run that keeps connections fresh within a time budget, and when the next run is due.
///
/// What runs it differs by platform: on iOS, tvOS and visionOS an `AppRefreshTask` (a `BGAppRefreshTask`, about
/// 30 seconds of budget); on Linux `tether calendar sync` from a systemd timer; on a server the
/// `RefreshScheduler` of `TetherPostgres`. The rules are the same:
/// - A connection whose access token ends within ``Configuration/lead`` is refreshed through its ``Session``, so
///   the run shares the session's single refresh with every other caller (and, through the store's lease, with
///   other processes). Connections are taken soonest-ending first.
/// - A connection that needs sign-in, is offline or cannot read its store is reported, never signed out.
/// - The run stops starting refreshes when the budget, less ``Configuration/reserve``, is spent, or when its
///   task is cancelled (the system expiring the background task). A refresh already sent is not abandoned: the
///   session finishes it and stores the answer.
/// - With ``Configuration/keepAliveMargin`` set (opt-in), a connection whose grant ends of disuse within the
///   margin (an inactivity deadline from ``Session/Configuration/grantLifetime``, such as Microsoft's 90 days) is
///   refreshed too, through ``Session/keepAlive(margin:)``. An absolute end (GitHub's `refresh_token_expires_in`)
///   is never the reason for a refresh: no refresh extends it.
/// - ``Report/nextRun`` is the earliest moment a connection will need a refresh again, kept between
///   ``Configuration/minimumInterval`` and ``Configuration/maximumInterval`` from the end of the run.
public struct BackgroundRefresh: Sendable {
    /// How far ahead a run looks and how often runs are due.
    public struct Configuration: Sendable, Hashable {
        /// A connection whose access token ends within this is refreshed. Default: 30 minutes.
        public var lead: Duration
        /// The next run is never asked for sooner than this after a run. Default: 15 minutes, as iOS rarely
        /// starts an app-refresh task more often.
        public var minimumInterval: Duration
        /// The next run is asked for no later than this, so that work that does not depend on expiry (such as a
        /// calendar sync) still happens. Default: 4 hours.
        public var maximumInterval: Duration
        /// The part of the budget kept for the work after the refreshes and for reporting completion to the
        /// system. Default: 5 seconds.
        public var reserve: Duration
        /// Refresh a grant whose inactivity deadline is within this, to keep it alive; `nil` (the default) keeps
        /// no grant alive. A few days is a good margin: longer than the time between two runs.
        public var keepAliveMargin: Duration? = nil

        /// Creates a configuration.
        /// - Parameters:
        ///   - lead: How far ahead of expiry connections are refreshed.
        ///   - minimumInterval: The shortest wait before the next run.
        ///   - maximumInterval: The longest wait before the next run.
        ///   - reserve: The budget kept back from refreshes.
        public init(
            lead: Duration = .seconds(30 * 60),
            minimumInterval: Duration = .seconds(15 * 60),
            maximumInterval: Duration = .seconds(4 * 3600),
            reserve: Duration = .seconds(5)
        ) {
            self.lead = lead
            self.minimumInterval = minimumInterval
            self.maximumInterval = max(minimumInterval, maximumInterval)
            self.reserve = reserve
        }
    }

    /// What a run did with one connection.
    public enum Outcome: Sendable, Hashable, CustomStringConvertible {
        /// The access token stays valid beyond the lead (or the provider did not say when it ends): nothing sent.
        case fresh
        /// Refreshed (by this run, or by a caller whose refresh the run joined).
        case refreshed
        /// Nothing is stored for the connection.
        case notConnected
        /// The user must sign in again; the reason, never a secret.
        case needsSignIn(String)
        /// Offline, the store unavailable, or another failure worth retrying later; the reason.
        case failed(String)
        /// Not reached: the budget was spent or the run was cancelled first.
        case notReached

        /// `fresh`, `refreshed`, `notConnected`, `needsSignIn(…)`, `failed(…)`, `notReached`.
        public var description: String {
            switch self {
            case .fresh: "fresh"
            case .refreshed: "refreshed"
            case .notConnected: "notConnected"
            case .needsSignIn(let reason): "needsSignIn(\(reason))"
            case .failed(let reason): "failed(\(reason))"
            case .notReached: "notReached"
            }
        }
    }

    /// What a run did, and when the next is due.
    public struct Report: Sendable, Hashable {
        /// Each connection's outcome, in the order the run took them.
        public var outcomes: [ConnectionID: Outcome]
        /// The order the run took the connections in (soonest-ending first).
        public var order: [ConnectionID]
        /// Whether the run was cancelled before it had gone through every connection.
        public var wasCancelled: Bool
        /// When the next run should start at the earliest.
        public var nextRun: Date

        /// Whether every connection was reached and none failed or needs sign-in: what a background task reports
        /// as success.
        public var succeeded: Bool {
            !wasCancelled
                && outcomes.values.allSatisfy { [.fresh, .refreshed, .notConnected].contains($0) }
        }
    }

    private let sessions: [Session]
    private let configuration: Configuration
    private let clock: any Clock<Duration>
    private let dateSource: DateSource
    private let logger: Logger

    /// Creates a run over `sessions`.
    /// - Parameters:
    ///   - sessions: The connections to keep fresh, one session each (the app's own sessions, so that the run
    ///     joins their refreshes).
    ///   - configuration: Lead, intervals and reserve.
    ///   - clock: The clock the budget is measured on.
    ///   - dateSource: The wall clock that expiry is compared with.
    ///   - logger: Receives one line per connection, without secrets.
    public init(
        sessions: [Session],
        configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock(),
        dateSource: DateSource = .system,
        logger: Logger = .current
    ) {
        self.sessions = sessions
        self.configuration = configuration
        self.clock = clock
        self.dateSource = dateSource
        self.logger = logger
    }

    /// Refreshes the connections that need it within `budget`.
    /// - Parameter budget: How long the run may take, including ``Configuration/reserve``.
    /// - Returns: What happened to each connection, and when the next run is due.
    public func run(budget: Duration) async -> Report {
        let clock: any Clock<Duration> = self.clock
        let elapsed = Session.stopwatch(on: clock)
        let available = budget - configuration.reserve
        var expiries: [ConnectionID: Date?] = [:]
        var outcomes: [ConnectionID: Outcome] = [:]
        var queue: [Entry] = []
        for session in sessions {
            do {
                guard let record = try await session.connection() else {
                    outcomes[session.id] = .notConnected
                    continue
                }
                let ends = record.tokens.accessToken == nil ? Date.distantPast : record.tokens.expiresAt
                queue.append(Entry(session: session, expiresAt: ends, keepAlive: await keepAliveDeadline(session)))
            } catch {
                outcomes[session.id] = Self.outcome(of: error)
            }
        }
        queue.sort { ($0.due ?? .distantFuture) < ($1.due ?? .distantFuture) }
        var wasCancelled = false
        for entry in queue {
            let session = entry.session
            if Task.isCancelled { wasCancelled = true }
            if wasCancelled || available - elapsed() <= .zero {
                outcomes[session.id] = .notReached
                expiries[session.id] = entry.due
                continue
            }
            let now = dateSource.now
            let expiring = entry.expiresAt.map { $0 <= now.addingTimeInterval(configuration.lead.timeInterval) }
            let idle = entry.keepAlive.map { $0 <= now }
            guard expiring == true || idle == true else {
                outcomes[session.id] = .fresh
                expiries[session.id] = entry.due
                continue
            }
            let outcome = await refresh(session, keepingAlive: expiring != true, within: available - elapsed())
            if outcome == .notReached { wasCancelled = Task.isCancelled }
            outcomes[session.id] = outcome
            if outcome == .refreshed {
                let tokens = try? await session.connection()?.tokens
                let next = await keepAliveDeadline(session)
                expiries[session.id] = [tokens?.expiresAt, next].compactMap { $0 }.min()
            } else {
                expiries[session.id] = entry.due
            }
            logger.debug("Background refresh", metadata: ["connection": "\(session.id)", "outcome": "\(outcome)"])
        }
        return Report(
            outcomes: outcomes,
            order: queue.map(\.session.id),
            wasCancelled: wasCancelled,
            nextRun: nextRun(expiries: expiries, outcomes: outcomes)
        )
    }

    /// One connection of a run: when its access token ends and when a keep-alive becomes due.
    private struct Entry {
        let session: Session
        let expiresAt: Date?
        /// When the inactivity deadline less the keep-alive margin comes; `nil` without a margin or a deadline.
        let keepAlive: Date?

        /// The earlier of the two, counted as the expiry the next run is planned around (less the lead).
        var due: Date? { [expiresAt, keepAlive].compactMap { $0 }.min() }
    }

    /// When a keep-alive refresh of `session` becomes due (its inactivity deadline less the margin), or `nil` when
    /// keep-alive is off or the grant has no inactivity deadline before an absolute end.
    private func keepAliveDeadline(_ session: Session) async -> Date? {
        guard let margin = configuration.keepAliveMargin, let end = await session.grantEnd, end.isRenewable else {
            return nil
        }
        return end.date.addingTimeInterval(-margin.timeInterval)
    }

    /// When the next run is due: the first expiry less the lead, kept between the minimum and maximum interval
    /// from now. A connection that failed or was not reached counts as due at once (so the minimum interval).
    func nextRun(expiries: [ConnectionID: Date?], outcomes: [ConnectionID: Outcome]) -> Date {
        let now = dateSource.now
        var due = now.addingTimeInterval(configuration.maximumInterval.timeInterval)
        for (id, outcome) in outcomes {
            switch outcome {
            case .notReached, .failed:
                due = now
            case .fresh, .refreshed:
                if let expiresAt = expiries[id] ?? nil {
                    due = min(due, expiresAt.addingTimeInterval(-configuration.lead.timeInterval))
                }
            case .notConnected, .needsSignIn:
                break
            }
        }
        return max(due, now.addingTimeInterval(configuration.minimumInterval.timeInterval))
    }

    /// Refreshes one connection, waiting at most `time` for it: because its access token ends within the lead, or,
    /// when `keepingAlive`, because its inactivity deadline is within the keep-alive margin.
    private func refresh(_ session: Session, keepingAlive: Bool, within time: Duration) async -> Outcome {
        let lead = configuration.lead
        let margin = configuration.keepAliveMargin ?? .zero
        let clock = self.clock
        return await withTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                do {
                    if keepingAlive {
                        return try await session.keepAlive(margin: margin) ? .refreshed : .fresh
                    }
                    _ = try await session.validAccessToken(minimumLifetime: lead)
                    return .refreshed
                } catch let error as SessionError where error == .tokenLifetimeTooShort {
                    // Refreshed, but the provider's tokens live shorter than the lead: nothing more to do now.
                    return .refreshed
                } catch is CancellationError {
                    return .notReached
                } catch {
                    return Self.outcome(of: error)
                }
            }
            group.addTask {
                try? await clock.sleep(for: time)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            // The session finishes a refresh already sent, whoever stops waiting for it.
            return first ?? .notReached
        }
    }

    private static func outcome(of error: any Error) -> Outcome {
        if error is CancellationError { return .notReached }
        guard let error = error as? SessionError else { return .failed("\(type(of: error))") }
        switch error {
        case .notConnected: return .notConnected
        case .needsSignIn: return .needsSignIn(error.message)
        default: return .failed(error.message)
        }
    }
}
