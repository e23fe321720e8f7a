@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider {
    /// Misbehaviour to inject. Counts are consumed one per request to the endpoint.
    ///
    /// When several faults apply to the same request, a dropped connection wins over a server
    /// error, which wins over a rate limit. Latency is added before any of them.
    public struct Faults: Sendable {
        /// Delay added to every request to an endpoint.
        public var latency: [Endpoint: Duration]
        /// The next N requests to an endpoint answer ``serverErrorStatus``.
        public var serverErrors: [Endpoint: Int]
        /// Status used for injected server errors. Defaults to 503.
        public var serverErrorStatus: Int
        /// The next N requests to an endpoint answer 429 with `Retry-After`.
        public var rateLimits: [Endpoint: Int]
        /// The `Retry-After` value, in whole seconds, of injected 429s. Defaults to 1.
        public var retryAfterSeconds: Int
        /// The status of injected rate limits: 429 (the default), or 403 as the Google Calendar API
        /// also answers them.
        public var rateLimitStatus: Int
        /// The Google Calendar API `errors[].reason` of injected rate limits: `rateLimitExceeded`
        /// (the default) or `userRateLimitExceeded`.
        public var rateLimitReason: String
        /// The next N connections to an endpoint are closed without a response.
        public var droppedConnections: [Endpoint: Int]
        /// Offset added to `iat`, `exp`, `auth_time` of issued JWTs (a provider whose clock is off).
        public var clockSkew: Duration
        /// The next N refreshes fail with "interaction required" (Microsoft `AADSTS50076`).
        public var interactionRequiredRefreshes: Int

        /// Creates a fault set; the default injects nothing.
        public init(
            latency: [Endpoint: Duration] = [:],
            serverErrors: [Endpoint: Int] = [:],
            serverErrorStatus: Int = 503,
            rateLimits: [Endpoint: Int] = [:],
            retryAfterSeconds: Int = 1,
            rateLimitStatus: Int = 429,
            rateLimitReason: String = "rateLimitExceeded",
            droppedConnections: [Endpoint: Int] = [:],
            clockSkew: Duration = .zero,
            interactionRequiredRefreshes: Int = 0
        ) {
            self.latency = latency
            self.serverErrors = serverErrors
            self.serverErrorStatus = serverErrorStatus
            self.rateLimits = rateLimits
            self.retryAfterSeconds = retryAfterSeconds
            self.rateLimitStatus = rateLimitStatus
            self.rateLimitReason = rateLimitReason
            self.droppedConnections = droppedConnections
            self.clockSkew = clockSkew
            self.interactionRequiredRefreshes = interactionRequiredRefreshes
        }
    }
}
