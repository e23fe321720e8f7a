/// How calendar clients back off when a service limits requests or fails for a moment.
///
/// Both services ask clients to retry throttled requests with exponential backoff and to honour `Retry-After`:
/// Google Calendar ("Handle API errors", <https://developers.google.com/calendar/api/guides/errors>) answers
/// `403 rateLimitExceeded` / `userRateLimitExceeded` or `429`; Microsoft Graph ("Microsoft Graph throttling
/// guidance", <https://learn.microsoft.com/graph/throttling>) answers `429` or `503` with `Retry-After` in seconds.
public struct CalendarRetryPolicy: Sendable, Hashable {
    /// Attempts per request, the first included; 4 by default. 1 turns retries off.
    public var maximumAttempts: Int
    /// The delay before the first retry when the service gives no `Retry-After`; 1 second by default.
    public var initialDelay: Duration
    /// The longest delay between attempts without `Retry-After`; 16 seconds by default.
    public var maximumDelay: Duration
    /// The longest `Retry-After` honoured; 60 seconds by default. A longer one ends the request at once with
    /// ``CalendarError/rateLimited``, so a fetch never hangs on one source.
    public var maximumRetryAfter: Duration

    /// Creates a policy.
    /// - Parameters:
    ///   - maximumAttempts: Attempts per request, the first included.
    ///   - initialDelay: The first delay without `Retry-After`; it doubles on each retry.
    ///   - maximumDelay: The longest delay without `Retry-After`.
    ///   - maximumRetryAfter: The longest `Retry-After` honoured.
    public init(
        maximumAttempts: Int = 4,
        initialDelay: Duration = .seconds(1),
        maximumDelay: Duration = .seconds(16),
        maximumRetryAfter: Duration = .seconds(60)
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maximumRetryAfter = maximumRetryAfter
    }
}
