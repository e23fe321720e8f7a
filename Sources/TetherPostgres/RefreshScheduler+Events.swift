import Crypto
public import Foundation
import Logging
public import Tether

/// Receives what a ``RefreshScheduler`` notices about its connections: a grant that ended, a connection that works
/// again, a grant about to end.
///
/// The scheduler awaits each call from the round that noticed the change, so return quickly: hand the event to
/// a queue (as ``WebhookNotifier`` does) rather than sending it over the network here.
///
/// Events are reported at least once: several workers may notice the same change, and a worker reports a change
/// again after it restarts when it cannot tell it has already done so. The same change carries the same
/// ``RefreshScheduler/Event/id`` whichever worker reports it, so a receiver drops repeats by it.
///
/// A test double is a small actor that appends the events to an array.
public protocol RefreshSchedulerDelegate: Sendable {
    /// Called once per event, from the scheduler's round.
    /// - Parameter event: What happened; never holds a token.
    func refreshScheduler(didReport event: RefreshScheduler.Event) async
}

extension RefreshScheduler {
    /// A change of a connection's state that the product may want to tell someone about. No token, ever.
    public struct Event: Sendable, Hashable, Identifiable {
        /// What happened.
        public struct Kind: Sendable, Hashable, CustomStringConvertible {
            /// The name in a webhook's `type` field, such as `connection.needs_sign_in`.
            public let rawValue: String

            /// The provider refused the connection's refresh token: the user must sign in again. ``Event/reason``
            /// says why.
            public static let needsSignIn = Kind(rawValue: "connection.needs_sign_in")
            /// A connection that needed sign-in holds a refresh token again (the user signed in), or one whose
            /// refreshes failed was refreshed. ``Event/recoveredFrom`` says which.
            public static let recovered = Kind(rawValue: "connection.recovered")
            /// The connection's grant ends at ``Event/endsAt``, within the session configuration's
            /// ``Tether/Session/Configuration/endingSoonThreshold``; the user should sign in again before then.
            /// Reported after a refresh, once per end (its ``Event/id`` is derived from the end). See
            /// docs/decisions.md §45.
            public static let expiresSoon = Kind(rawValue: "connection.expires_soon")

            /// The raw value.
            public var description: String { rawValue }
        }

        /// The same for every report of one change, whichever worker makes it: a receiver's idempotency key.
        public let id: String
        /// What happened.
        public let kind: Kind
        /// The store's tenant.
        public let tenant: String
        /// The connection.
        public let connection: ConnectionID
        /// The connection's account; show it through its `description` or `maskedDisplayIdentifier`.
        public let account: Account
        /// Why the user must sign in again, for ``Kind/needsSignIn``.
        public let reason: SignInReason?
        /// What the connection recovered from, for ``Kind/recovered``: `needs_sign_in` or `failing`.
        public let recoveredFrom: String?
        /// When the grant ends, for ``Kind/expiresSoon``.
        public let endsAt: Date?
        /// When the scheduler noticed it, by its wall clock.
        public let occurredAt: Date

        /// Creates an event; ``id`` is derived from the tenant, connection, kind and record version (for
        /// ``Kind/expiresSoon``: the grant's end instead of the version).
        /// - Parameters:
        ///   - kind: What happened.
        ///   - tenant: The store's tenant.
        ///   - record: The connection's record the change was seen in.
        ///   - reason: Why sign-in is needed.
        ///   - recoveredFrom: What it recovered from.
        ///   - endsAt: When the grant ends.
        ///   - occurredAt: When it was noticed.
        package init(
            kind: Kind,
            tenant: String,
            record: Connection,
            reason: SignInReason? = nil,
            recoveredFrom: String? = nil,
            endsAt: Date? = nil,
            occurredAt: Date
        ) {
            self.kind = kind
            self.tenant = tenant
            self.connection = record.id
            self.account = record.account
            self.reason = reason
            self.recoveredFrom = recoveredFrom
            self.endsAt = endsAt
            self.occurredAt = occurredAt
            // A grant's end is reported once per end, whoever reports it and after however many refreshes; every
            // other change once per record version.
            let moment = kind == .expiresSoon ? "ends:\(endsAt?.timeIntervalSince1970 ?? 0)" : "\(record.version)"
            let seed = [tenant, record.id.rawValue, kind.rawValue, recoveredFrom ?? "", moment]
            let digest = SHA256.hash(data: Data(seed.joined(separator: "\u{0}").utf8))
            id = "evt_" + WebhookSignature.hex(Data(digest.prefix(16)))
        }
    }

    /// What a scheduler remembers between rounds to report changes: the connections it knows need sign-in and
    /// those whose last refresh here failed.
    final class EventTracker: Sendable {
        private struct State {
            var needingSignIn: Set<ConnectionID>?
            var failing: Set<ConnectionID> = []
            var warnedEnds: [ConnectionID: Date] = [:]
        }

        private let state = LockedState(State())

        /// Takes the store's list of connections needing sign-in; returns those that joined it and those that left
        /// it since the last list. The first list only sets what is known: its changes happened before this worker.
        func update(needingSignIn now: Set<ConnectionID>) -> (joined: Set<ConnectionID>, left: Set<ConnectionID>) {
            state.withLock { state in
                defer { state.needingSignIn = now }
                guard let known = state.needingSignIn else { return ([], []) }
                return (now.subtracting(known), known.subtracting(now))
            }
        }

        /// Notes a connection this worker marked (and reported), so that the next list does not report it again.
        func marked(_ id: ConnectionID) {
            state.withLock { state in
                state.needingSignIn?.insert(id)
                state.failing.remove(id)
            }
        }

        /// Notes a failed refresh.
        func failed(_ id: ConnectionID) {
            _ = state.withLock { $0.failing.insert(id) }
        }

        /// Notes that a connection's grant ends at `date`; `true` the first time this worker sees that end.
        func warns(_ id: ConnectionID, endsAt date: Date) -> Bool {
            state.withLock { state in
                guard state.warnedEnds[id] != date else { return false }
                state.warnedEnds[id] = date
                return true
            }
        }

        /// Notes a refresh; `true` when the connection's previous refresh here had failed.
        func refreshed(_ id: ConnectionID) -> Bool {
            state.withLock { $0.failing.remove(id) != nil }
        }
    }

    /// Reports the changes in the store's list of connections needing sign-in since the last round: a connection
    /// that joined it (a grant another worker or an application ended) and one that left it holding a refresh
    /// token (the user signed in again). Runs only with a delegate.
    func reportSignInChanges() async {
        guard let delegate else { return }
        let needing: [PostgresStore.ConnectionNeedingSignIn]
        do {
            needing = try await store.connectionsNeedingSignIn()
        } catch {
            logger.debug("Could not list the connections needing sign-in", metadata: ["error": "\(error)"])
            return
        }
        let (joined, left) = tracker.update(needingSignIn: Set(needing.map(\.id)))
        for entry in needing where joined.contains(entry.id) {
            guard let record = try? await store.read(entry.id), record.tokens.refreshToken == nil else { continue }
            let event = Event(
                kind: .needsSignIn,
                tenant: store.tenant,
                record: record,
                reason: Self.signInReason(code: entry.reason),
                occurredAt: dateSource.now
            )
            await delegate.refreshScheduler(didReport: event)
        }
        for id in left.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard let record = try? await store.read(id), record.tokens.refreshToken != nil else { continue }
            let event = Event(
                kind: .recovered,
                tenant: store.tenant,
                record: record,
                recoveredFrom: "needs_sign_in",
                occurredAt: dateSource.now
            )
            await delegate.refreshScheduler(didReport: event)
        }
    }

    /// Reports a grant this worker marked as ended.
    func reportNeedsSignIn(_ record: Connection, reason: SignInReason) async {
        tracker.marked(record.id)
        guard let delegate else { return }
        let event = Event(
            kind: .needsSignIn,
            tenant: store.tenant,
            record: record,
            reason: reason,
            occurredAt: dateSource.now
        )
        await delegate.refreshScheduler(didReport: event)
    }

    /// Notes the outcome of a refresh this worker ran, and reports a connection that works again.
    func noteOutcome(_ outcome: Outcome, of id: ConnectionID) async {
        switch outcome {
        case .failed:
            tracker.failed(id)
        case .refreshed:
            let recovered = tracker.refreshed(id)
            guard let delegate, let record = try? await store.read(id) else { return }
            if recovered {
                let event = Event(
                    kind: .recovered,
                    tenant: store.tenant,
                    record: record,
                    recoveredFrom: "failing",
                    occurredAt: dateSource.now
                )
                await delegate.refreshScheduler(didReport: event)
            }
            // A refresh keeps every grant alive that only dies of disuse, so what comes close is an absolute end
            // (`refresh_token_expires_in`, a maximum age): said once per end, not at every refresh.
            let end = GrantLifetime.end(
                of: record.tokens,
                rules: configuration.session.grantLifetime,
                now: dateSource.now,
                threshold: configuration.session.endingSoonThreshold
            )
            if let end, end.isSoon, tracker.warns(id, endsAt: end.date) {
                await reportExpiresSoon(record, endsAt: end.date)
            }
        case .contended, .ended, .skipped:
            return
        }
    }

    /// Reports that the grant of `record` ends at `endsAt`.
    ///
    /// Called after a refresh of this worker when the grant ends within
    /// ``Tether/Session/Configuration/endingSoonThreshold`` (``Tether/GrantLifetime/end(of:rules:now:threshold:)``
    /// with the session configuration's rules), once per end in each worker; the event's identifier is derived
    /// from the end, so receivers drop what several workers send.
    package func reportExpiresSoon(_ record: Connection, endsAt: Date) async {
        guard let delegate else { return }
        let event = Event(
            kind: .expiresSoon,
            tenant: store.tenant,
            record: record,
            endsAt: endsAt,
            occurredAt: dateSource.now
        )
        await delegate.refreshScheduler(didReport: event)
    }

    /// The reason of a code the store kept: a known reason with its message, else the code with a plain message.
    static func signInReason(code: String) -> SignInReason {
        let known: [SignInReason] = [
            .grantRevoked, .refreshAnswerLost, .sessionExpired, .biometryChanged, .protectionLost, .userDisabled,
            .interactionRequired,
        ]
        return known.first { $0.code == code } ?? SignInReason(code: code, message: "The user must sign in again")
    }
}
