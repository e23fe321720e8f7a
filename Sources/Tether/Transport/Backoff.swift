import Foundation

/// How long to wait between attempts after a transient failure, and how many attempts to make: bounded exponential
/// backoff with jitter that honours `Retry-After`.
///
/// One value serves every retry loop in Tether: a ``Session``'s refreshes (``Session/Configuration/retry``), an
/// ``AuthorizedClient``'s requests (``AuthorizedClient/Configuration/backoff``) and the calendar clients. The wait
/// after the `n`th failed attempt is ``initialDelay`` × ``multiplier``^(n − 1), at most ``maximumDelay``, moved at
/// random by up to ``jitter`` of itself. When the server says how long to wait (`Retry-After` in seconds, RFC 9110
/// §10.2.3) that wait is taken as it is; one longer than ``maximumRetryAfter`` ends the call instead, so that no
/// caller is held for longer than it agreed to.
///
/// ```swift
/// // Three attempts, 1 second apart unless the server asks for more (up to 30 seconds).
/// let steady = Backoff(maximumAttempts: 3, initialDelay: .seconds(1), multiplier: 1, jitter: 0)
/// ```
public struct Backoff: Sendable, Hashable {
    /// Attempts per call, the first included; 3 by default. 1 turns retries off.
    public var maximumAttempts: Int
    /// The delay after the first failure; 0.5 seconds by default.
    public var initialDelay: Duration
    /// The factor between consecutive delays; 2 by default, 1 for a constant delay.
    public var multiplier: Double
    /// The longest delay; 30 seconds by default.
    public var maximumDelay: Duration
    /// The random share added to or taken from each delay; 0.2 by default (±20 %), 0 for none.
    public var jitter: Double
    /// The longest `Retry-After` honoured; `nil` (the default) for ``maximumDelay``. A longer one ends the call.
    public var maximumRetryAfter: Duration?

    /// Creates a backoff.
    /// - Parameters:
    ///   - maximumAttempts: Attempts per call (at least 1).
    ///   - initialDelay: The delay after the first failure.
    ///   - multiplier: The factor between consecutive delays.
    ///   - maximumDelay: The longest delay.
    ///   - jitter: The random share of each delay, from 0 to 1.
    ///   - maximumRetryAfter: The longest `Retry-After` honoured; `nil` for `maximumDelay`.
    public init(
        maximumAttempts: Int = 3,
        initialDelay: Duration = .milliseconds(500),
        multiplier: Double = 2,
        maximumDelay: Duration = .seconds(30),
        jitter: Double = 0.2,
        maximumRetryAfter: Duration? = nil
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = min(max(jitter, 0), 1)
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// The delay before attempt `attempt + 1`, after `attempt` failures (1-based), honouring `Retry-After`. It does
    /// not look at ``maximumAttempts``: the caller decides whether another attempt is due.
    /// - Parameters:
    ///   - attempt: The failed attempts so far, at least 1.
    ///   - retryAfter: The delay the server asked for, if any.
    ///   - random: The source of jitter.
    /// - Returns: The delay, or `nil` when the server asked for a longer wait than ``maximumRetryAfter``.
    package func delay<R: RandomNumberGenerator>(
        afterAttempt attempt: Int,
        retryAfter: Duration?,
        using random: inout R
    ) -> Duration? {
        if let retryAfter {
            return retryAfter <= (maximumRetryAfter ?? maximumDelay) ? retryAfter : nil
        }
        let exponent = Double(max(0, attempt - 1))
        let base = min(initialDelay * pow(multiplier, exponent), maximumDelay)
        guard jitter > 0 else { return base }
        let factor = 1 + Double.random(in: -jitter...jitter, using: &random)
        return min(base * factor, maximumDelay)
    }
}
