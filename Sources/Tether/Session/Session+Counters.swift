extension Session {
    /// What a session counted since it was created: refreshes, and refreshes whose answer was lost. For a status
    /// screen, a diagnostics page or a metric; the session's log lines carry the same numbers.
    public struct Counters: Sendable, Hashable {
        /// Refreshes the provider answered with new tokens.
        public var refreshes = 0
        /// Refresh attempts that were sent but got no usable answer (a timeout, a connection dropped after the
        /// request was written, a 5xx): the provider may have rotated the refresh token. Each was retried.
        public var unansweredRefreshes = 0
        /// Grants that ended because a retry after such an attempt was refused with `invalid_grant`: the
        /// provider rotated the refresh token, its answer was lost, and the old token counted as reused
        /// (``SignInReason/refreshAnswerLost``). A reuse grace period at the provider keeps this at zero.
        public var lostRefreshAnswers = 0

        /// Creates counters at zero.
        public init() {}
    }

    /// What the session counted since it was created.
    public var counters: Counters { counts }
}
