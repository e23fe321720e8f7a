public import Tether

extension Backoff {
    /// How calendar clients back off when a service limits requests or fails for a moment: 4 attempts, the first
    /// included; 1 second doubling up to 16 seconds without `Retry-After`, no jitter; a `Retry-After` honoured up to
    /// 60 seconds, a longer one ending the request at once with ``CalendarError/rateLimited`` so that a fetch never
    /// hangs on one source.
    ///
    /// Both services ask clients to retry throttled requests with exponential backoff and to honour `Retry-After`:
    /// Google Calendar ("Handle API errors", <https://developers.google.com/calendar/api/guides/errors>) answers
    /// `403 rateLimitExceeded` / `userRateLimitExceeded` or `429`; Microsoft Graph ("Microsoft Graph throttling
    /// guidance", <https://learn.microsoft.com/graph/throttling>) answers `429` or `503` with `Retry-After` in
    /// seconds.
    public static let calendar = Backoff(
        maximumAttempts: 4,
        initialDelay: .seconds(1),
        multiplier: 2,
        maximumDelay: .seconds(16),
        jitter: 0,
        maximumRetryAfter: .seconds(60)
    )
}

/// How calendar clients back off; now a ``Tether/Backoff``, whose defaults are a session's. Use
/// ``Tether/Backoff/calendar`` for the calendar's.
@available(*, deprecated, renamed: "Backoff", message: "Use Backoff; Backoff.calendar has the calendar's defaults")
public typealias CalendarRetryPolicy = Backoff
