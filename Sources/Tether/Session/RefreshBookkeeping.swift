import Foundation

/// What a ``Session`` remembers about its refreshes: what is in flight, the failure its status reflects, refreshed
/// tokens the store has not taken yet, and the refresh that got no answer.
///
/// A value with pure transitions, so that each rule is tested without an actor; the session holds one, does the
/// I/O and applies the transitions between its suspension points, so reentrant callers only ever see whole states.
struct RefreshBookkeeping {
    /// What the session is doing.
    enum Activity {
        /// Nothing in flight.
        case idle
        /// ``Session/restore()`` is reading the store.
        case restoring
        /// A refresh is in flight; callers join `flight`. `generation` identifies it.
        case refreshing(flight: SharedFlight<Connection>, generation: UInt64)
    }

    /// Refreshed tokens the store refused to take, the only copy of a rotated refresh token: `updated` holds them,
    /// `base` is the stored record they replace, `error` why the last write failed.
    struct UnsavedRefresh {
        var updated: Connection
        var base: Connection
        var error: CredentialStoreError
    }

    /// How a write of unsaved tokens ended.
    enum UnsavedWrite {
        /// The store took them.
        case stored
        /// The store refused them again.
        case failed(CredentialStoreError)
        /// The record was deleted (signed out): nothing to write any more.
        case recordGone
    }

    private(set) var activity = Activity.idle
    /// The outcome of the last refresh or store access, when it was a failure. Cleared by the next success.
    var lastFailure: Session.Failure?
    /// Counts refresh flights, so that a finishing flight clears only its own slot.
    private(set) var generation: UInt64 = 0
    /// Refreshed tokens the store refused; the session hands them out and writes them again on the next call.
    private(set) var unsaved: UnsavedRefresh?
    /// Whether a write of ``unsaved`` is under way, so that concurrent callers do not write twice.
    private(set) var isSavingUnsaved = false
    /// Time since the last forced refresh started; `nil` before one.
    private(set) var sinceForcedRefresh: (@Sendable () -> Duration)?
    /// The refresh token of the last refresh whose outcome is unknown (sent, but no usable answer came back), until
    /// a refresh succeeds: an `invalid_grant` for this token then means the answer that rotated it was lost.
    private(set) var unansweredRefreshToken: RefreshToken?
    /// When the first refresh with ``unansweredRefreshToken`` that got no answer was sent (or the time a refresh
    /// worker's caller passed on).
    private(set) var unansweredSince: Date?

    // MARK: Flights

    /// The refresh in flight, if any.
    var flight: SharedFlight<Connection>? {
        if case .refreshing(let flight, _) = activity { return flight }
        return nil
    }

    /// Whether a refresh is in flight.
    var isRefreshing: Bool { flight != nil }

    /// Installs a new flight: a transient failure it retries no longer describes the session.
    /// - Returns: The flight's generation.
    mutating func beginFlight(_ flight: SharedFlight<Connection>) -> UInt64 {
        generation += 1
        activity = .refreshing(flight: flight, generation: generation)
        if case .transient = lastFailure { lastFailure = nil }
        return generation
    }

    /// Ends the flight of `flightGeneration` (a later one stays); a success leaves only unsaved tokens to report.
    mutating func endFlight(generation flightGeneration: UInt64, succeeded: Bool) {
        if case .refreshing(_, let current) = activity, current == flightGeneration {
            activity = .idle
        }
        if succeeded { lastFailure = unsaved.map { .unsavedTokens($0.error) } }
    }

    /// A restore starts reading the store, unless a refresh is in flight.
    mutating func beginRestore() {
        if case .idle = activity { activity = .restoring }
    }

    /// The restore's read is over.
    mutating func endRestore() {
        if case .restoring = activity { activity = .idle }
    }

    /// Whether a forced refresh may start now, at most one per `interval`; starting one restarts the interval,
    /// measured by the stopwatch `restart` returns.
    mutating func allowForcedRefresh(
        interval: Duration,
        restart: () -> @Sendable () -> Duration
    ) -> Bool {
        if let sinceForcedRefresh, interval > .zero, sinceForcedRefresh() < interval { return false }
        sinceForcedRefresh = restart()
        return true
    }

    // MARK: Failures

    /// Whether the stored, unexpired access token may be handed out without a refresh: while a transient failure
    /// asks for a pause, or after the user declined to unlock the refresh token (asked again once it expires).
    func allowsStoredTokenWithoutRefresh(now: Date) -> Bool {
        switch lastFailure {
        case .transient(_, let nextAttempt?) where now < nextAttempt: true
        case .storage(let error) where error == .locked: true
        default: false
        }
    }

    /// A record was read or written: a storage failure no longer describes the session.
    mutating func recordAdopted() {
        if case .storage = lastFailure { lastFailure = nil }
    }

    /// A sign-in or sign-out replaced the record: nothing from before describes the session.
    mutating func recordReplaced() {
        lastFailure = nil
        unsaved = nil
    }

    // MARK: Lost answers

    /// Remembers a refresh with `refreshToken` that was sent at `sentAt` but got no usable answer: the provider may
    /// have rotated `refreshToken` then, and may answer a retry with the tokens it issued then.
    mutating func noteUnanswered(_ refreshToken: RefreshToken, sentAt: Date) {
        unansweredSince = answerMayDateFrom(refreshToken).map { min($0, sentAt) } ?? sentAt
        unansweredRefreshToken = refreshToken
    }

    /// Takes the time a refresh worker's caller sent its unanswered attempt.
    mutating func assumeUnanswered(since date: Date) {
        unansweredSince = min(unansweredSince ?? date, date)
    }

    /// A refresh was answered: nothing is unanswered any more.
    mutating func noteAnswered() {
        unansweredRefreshToken = nil
        unansweredSince = nil
    }

    /// The earliest time an answer to a refresh with `refreshToken` may date from: when the first unanswered
    /// refresh with it was sent, or `nil` when every refresh with it was answered.
    func answerMayDateFrom(_ refreshToken: RefreshToken) -> Date? {
        guard let unansweredSince, unansweredRefreshToken == nil || unansweredRefreshToken == refreshToken else {
            return nil
        }
        return unansweredSince
    }

    /// Whether an `invalid_grant` (`reason`) for `refreshToken` most likely means that the answer to an earlier
    /// refresh with it, which rotated it, was lost (RFC 9700 §4.14.2: a rotated refresh token presented again is
    /// treated as reuse).
    func answerWasLost(_ reason: SignInReason, for refreshToken: RefreshToken) -> Bool {
        reason == .grantRevoked && unansweredRefreshToken == refreshToken
    }

    // MARK: Unsaved tokens

    /// Keeps refreshed tokens the store refused: the only copy of a refresh token the provider may have rotated.
    mutating func keepUnsaved(_ updated: Connection, over base: Connection, error: CredentialStoreError) {
        unsaved = UnsavedRefresh(updated: updated, base: base, error: error)
        lastFailure = .unsavedTokens(error)
    }

    /// The refreshed tokens were stored (by this session or a worker).
    mutating func unsavedStored() {
        unsaved = nil
    }

    /// Starts writing the unsaved tokens, unless there are none or a write is under way.
    /// - Returns: The tokens to write.
    mutating func beginSavingUnsaved() -> UnsavedRefresh? {
        guard let unsaved, !isSavingUnsaved else { return nil }
        isSavingUnsaved = true
        return unsaved
    }

    /// Ends a write of the unsaved tokens.
    mutating func endSavingUnsaved(_ outcome: UnsavedWrite) {
        isSavingUnsaved = false
        switch outcome {
        case .stored, .recordGone:
            unsaved = nil
            if case .unsavedTokens = lastFailure { lastFailure = nil }
        case .failed(let error):
            unsaved?.error = error
            if case .unsavedTokens = lastFailure { lastFailure = .unsavedTokens(error) }
        }
    }

    /// Lays the unsaved tokens over a record read from the store. A record that still holds the tokens they
    /// replace gets them; one with other tokens (a new sign-in) or none supersedes them, and they are dropped.
    /// - Returns: The record to take as the truth.
    mutating func overlayUnsaved(on record: Connection?) -> Connection? {
        guard let pending = unsaved else { return record }
        if var overlaid = record,
            overlaid.tokens.refreshTokenFingerprint == pending.base.tokens.refreshTokenFingerprint
        {
            overlaid.tokens = pending.updated.tokens
            return overlaid
        }
        if record == nil || record?.tokens.refreshTokenFingerprint != pending.updated.tokens.refreshTokenFingerprint {
            unsaved = nil
            if case .unsavedTokens = lastFailure { lastFailure = nil }
        }
        return record
    }
}
