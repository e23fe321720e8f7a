@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider {
    /// Misbehaviour to inject. Counts are consumed one per request to the endpoint.
    ///
    /// When several faults apply to the same request, a dropped connection wins over a dropped answer, which wins
    /// over a server error, which wins over a rate limit; counted faults win over ``random`` ones. Latency is
    /// added before any of them.
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
        /// The next N requests to an endpoint are processed — a refresh rotates the refresh token, a code is
        /// redeemed — and then their connection is closed without the answer: the client cannot tell whether the
        /// request took effect.
        public var droppedAnswers: [Endpoint: Int]
        /// Faults drawn at random for a share of the requests, from a seeded generator; `nil` (the default) for
        /// none.
        public var random: RandomFaults?
        /// Offset added to `iat`, `exp`, `auth_time` of issued JWTs (a provider whose clock is off).
        public var clockSkew: Duration
        /// The next N refreshes fail with "interaction required" (Microsoft `AADSTS50076`).
        public var interactionRequiredRefreshes: Int
        /// The next N requests to the protected resource (`/resource`) with a valid token answer a claims challenge:
        /// `401` with `WWW-Authenticate: Bearer realm="", authorization_uri="…", error="insufficient_claims",
        /// claims="<base64 of claimsChallenge>"`, as Microsoft Entra continuous access evaluation does
        /// (https://learn.microsoft.com/entra/identity-platform/claims-challenge).
        public var claimsChallenges = 0
        /// The next refreshes are refused, one per refresh, with these reasons in order.
        public var refreshRefusals: [RefreshRefusal] = []
        /// The claims request (JSON) of injected claims challenges.
        public var claimsChallenge = #"{"access_token":{"nbf":{"essential":true,"value":"1700000000"}}}"#

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
            interactionRequiredRefreshes: Int = 0,
            droppedAnswers: [Endpoint: Int] = [:],
            random: RandomFaults? = nil
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
            self.droppedAnswers = droppedAnswers
            self.random = random
        }
    }

    /// Transient faults injected into a share of the requests to some endpoints, drawn from a generator seeded
    /// with ``seed``, so that a run can be repeated: the same seed gives the same sequence of decisions for the
    /// same sequence of requests. Each injected fault is counted under its kind's event (see ``Kind``).
    public struct RandomFaults: Sendable, Hashable {
        /// The endpoints affected. Defaults to the token endpoint.
        public var endpoints: Set<Endpoint>
        /// The share of requests that get a fault, from 0 to 1.
        public var rate: Double
        /// The kinds to choose from, each equally likely. Defaults to ``Kind/all``.
        public var kinds: [Kind]
        /// The longest delay a ``Kind/latency`` fault adds (the delay is uniform from zero to it). Defaults to
        /// 1.5 seconds.
        public var maximumLatency: Duration
        /// The seed of the generator.
        public var seed: UInt64

        /// Creates a random fault set.
        /// - Parameters:
        ///   - rate: The share of requests that get a fault, from 0 to 1 (clamped).
        ///   - endpoints: The endpoints affected.
        ///   - kinds: The kinds to choose from; an empty list injects nothing.
        ///   - maximumLatency: The longest delay a latency fault adds.
        ///   - seed: The seed of the generator.
        public init(
            rate: Double,
            endpoints: Set<Endpoint> = [.token],
            kinds: [Kind] = Kind.all,
            maximumLatency: Duration = .milliseconds(1500),
            seed: UInt64 = 1
        ) {
            self.rate = rate.isFinite ? min(max(rate, 0), 1) : 0
            self.endpoints = endpoints
            self.kinds = kinds
            self.maximumLatency = max(maximumLatency, .zero)
            self.seed = seed
        }

        /// A kind of random fault.
        public struct Kind: Hashable, Sendable, CustomStringConvertible {
            /// The name used by `tether dev-provider` and the admin API.
            public let rawValue: String

            private init(_ rawValue: String) {
                self.rawValue = rawValue
            }

            /// Creates a kind from its name; `nil` for an unknown name.
            /// - Parameter name: One of the names of ``all``.
            public init?(named name: String) {
                guard let kind = Self.all.first(where: { $0.rawValue == name }) else { return nil }
                self = kind
            }

            /// A server error: 500, 502, 503 or 504 (counted as `injected_server_errors`).
            public static let serverError = Kind("server-error")
            /// `429 Too Many Requests` with `Retry-After` of ``Faults/retryAfterSeconds`` (counted as
            /// `injected_rate_limits`).
            public static let rateLimit = Kind("rate-limit")
            /// The connection is closed before the request is processed (counted as `dropped_connections`).
            public static let droppedConnection = Kind("drop")
            /// The request is processed, then the connection is closed without the answer (counted as
            /// `dropped_answers`).
            public static let droppedAnswer = Kind("drop-answer")
            /// A delay of up to ``RandomFaults/maximumLatency`` before the request is processed normally (counted
            /// as `injected_latencies`).
            public static let latency = Kind("latency")

            /// Every kind.
            public static let all: [Kind] = [.serverError, .rateLimit, .droppedConnection, .droppedAnswer, .latency]

            /// The name.
            public var description: String { rawValue }
        }
    }
}
