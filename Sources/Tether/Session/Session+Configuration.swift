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
        /// attempts (``Backoff/maximumAttempts``) of up to 30 seconds each
        /// (``HTTPTransportConfiguration/timeout``), and two waits between them of up to 30 seconds each
        /// (``Backoff/maximumDelay``, which a `Retry-After` may reach). A waiter therefore gives up
        /// only when the holder has stopped (a suspended process) or hangs. Lower it together with those settings;
        /// raise it when they are raised.
        public var leaseTimeout: Duration
        /// How transient refresh failures are retried: 3 attempts, from 0.5 seconds doubling up to 30 seconds, ±20 %
        /// jitter, a `Retry-After` honoured up to 30 seconds (``Backoff``'s defaults).
        public var retry: Backoff
        /// The shortest time between two refreshes that an ``AuthorizedClient`` forces after a `401`; 30 seconds by
        /// default, `.zero` for no limit. A resource server that rejects every token (a `401` for each request)
        /// then costs at most one refresh per interval instead of one per request; within the interval the request
        /// fails with ``AuthorizedClientError/unauthorized`` (its cause ``SessionError/refreshThrottled``).
        /// ``Session/forceRefresh(rejecting:)`` called directly is not limited.
        public var minimumForcedRefreshInterval: Duration
        /// The provider's rules for how long a grant lives (inactivity limit, maximum age), for
        /// ``Session/grantEnd`` and ``Session/keepAlive(margin:)``; `nil` (the default) knows only what the
        /// provider's answers say (`refresh_token_expires_in`). `TetherOAuth` has presets: `.microsoft`, `.google`,
        /// `.googleTesting`, `.gitHub`.
        public var grantLifetime: GrantLifetime? = nil
        /// How close the grant's end must be for ``GrantEnd/isSoon`` ("expires soon"): 14 days by default, so that a
        /// user has two weeks to act. An app that shows the warning elsewhere sets its own.
        public var endingSoonThreshold: Duration = .seconds(14 * 86_400)

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
            retry: Backoff = Backoff(),
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
    @available(*, deprecated, renamed: "Backoff")
    public typealias RetryPolicy = Backoff
}
