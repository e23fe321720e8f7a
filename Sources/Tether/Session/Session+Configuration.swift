import Foundation

extension Session {
    /// How a ``Session`` times its refreshes and retries.
    public struct Configuration: Sendable {
        /// How long before expiry a token counts as stale and is refreshed: 5 minutes by default, as Firebase
        /// does. For short-lived tokens it is scaled down to ``maximumLeewayFraction`` of the lifetime, so that a
        /// 10-second token is not refreshed on every call.
        public var leeway: Duration
        /// The largest share of a token's lifetime the leeway may take; 0.25 by default.
        public var maximumLeewayFraction: Double
        /// How long ``Session/restore()`` may take before it returns and lets a slow refresh finish in the
        /// background; 2 seconds by default.
        public var restoreBudget: Duration
        /// How long to wait for another process's refresh; 150 seconds by default.
        ///
        /// The default covers the longest a live holder keeps the lease with the default settings: three
        /// attempts (``Session/RetryPolicy/maximumAttempts``) of up to 30 seconds each
        /// (``HTTPTransportConfiguration/timeout``), and two waits between them of up to 30 seconds each
        /// (``Session/RetryPolicy/maximumDelay``, which a `Retry-After` may reach). A waiter therefore gives up
        /// only when the holder has stopped (a suspended process) or hangs. Lower it together with those settings;
        /// raise it when they are raised.
        public var leaseTimeout: Duration
        /// How transient failures are retried.
        public var retry: RetryPolicy
        /// The shortest time between two refreshes that an ``AuthorizedClient`` forces after a `401`; 30 seconds by
        /// default, `.zero` for no limit. A resource server that rejects every token (a `401` for each request)
        /// then costs at most one refresh per interval instead of one per request; within the interval the request
        /// fails with ``AuthorizedClientError/unauthorized`` (its cause ``SessionError/refreshThrottled``).
        /// ``Session/forceRefresh(rejecting:)`` called directly is not limited.
        public var minimumForcedRefreshInterval: Duration

        /// Creates a configuration.
        /// - Parameters:
        ///   - leeway: How long before expiry to refresh.
        ///   - maximumLeewayFraction: The largest share of a token's lifetime the leeway may take.
        ///   - restoreBudget: How long ``Session/restore()`` may take.
        ///   - leaseTimeout: How long to wait for another process's refresh.
        ///   - retry: How transient failures are retried.
        ///   - minimumForcedRefreshInterval: The shortest time between two forced refreshes.
        public init(
            leeway: Duration = .seconds(300),
            maximumLeewayFraction: Double = 0.25,
            restoreBudget: Duration = .seconds(2),
            leaseTimeout: Duration = .seconds(150),
            retry: RetryPolicy = RetryPolicy(),
            minimumForcedRefreshInterval: Duration = .seconds(30)
        ) {
            self.leeway = leeway
            self.maximumLeewayFraction = maximumLeewayFraction
            self.restoreBudget = restoreBudget
            self.leaseTimeout = leaseTimeout
            self.retry = retry
            self.minimumForcedRefreshInterval = minimumForcedRefreshInterval
        }

        /// The leeway for a token of the given lifetime.
        package func effectiveLeeway(forLifetime lifetime: Duration?) -> Duration {
            guard let lifetime else { return leeway }
            return min(leeway, lifetime * maximumLeewayFraction)
        }
    }

    /// Bounded exponential backoff with jitter for transient refresh failures.
    public struct RetryPolicy: Sendable {
        /// Attempts per call, the first included; 3 by default.
        public var maximumAttempts: Int
        /// The delay after the first failure; 0.5 seconds by default.
        public var initialDelay: Duration
        /// The factor between consecutive delays; 2 by default.
        public var multiplier: Double
        /// The longest delay; 30 seconds by default. A `Retry-After` longer than this ends the call instead.
        public var maximumDelay: Duration
        /// The random share added to or taken from each delay; 0.2 by default (±20 %).
        public var jitter: Double

        /// Creates a policy.
        /// - Parameters:
        ///   - maximumAttempts: Attempts per call (at least 1).
        ///   - initialDelay: The delay after the first failure.
        ///   - multiplier: The factor between consecutive delays.
        ///   - maximumDelay: The longest delay.
        ///   - jitter: The random share of each delay, from 0 to 1.
        public init(
            maximumAttempts: Int = 3,
            initialDelay: Duration = .milliseconds(500),
            multiplier: Double = 2,
            maximumDelay: Duration = .seconds(30),
            jitter: Double = 0.2
        ) {
            self.maximumAttempts = max(1, maximumAttempts)
            self.initialDelay = initialDelay
            self.multiplier = multiplier
            self.maximumDelay = maximumDelay
            self.jitter = min(max(jitter, 0), 1)
        }

        /// The delay before attempt `attempt + 1`, after `attempt` failures (1-based), honouring `Retry-After`.
        /// - Returns: The delay, or `nil` when the provider asked for a longer wait than ``maximumDelay``.
        func delay<R: RandomNumberGenerator>(
            afterAttempt attempt: Int,
            retryAfter: Duration?,
            using random: inout R
        ) -> Duration? {
            if let retryAfter {
                return retryAfter <= maximumDelay ? retryAfter : nil
            }
            let exponent = Double(max(0, attempt - 1))
            let base = min(initialDelay * pow(multiplier, exponent), maximumDelay)
            guard jitter > 0 else { return base }
            let factor = 1 + Double.random(in: -jitter...jitter, using: &random)
            return min(base * factor, maximumDelay)
        }
    }
}
