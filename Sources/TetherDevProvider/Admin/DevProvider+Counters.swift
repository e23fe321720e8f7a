@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider {
    /// Request and event counters, as returned by ``Admin/counters()`` and `GET /admin/counters`.
    public struct Counters: Sendable, Equatable {
        /// Requests per endpoint name (`token`, `revoke`, …), faulted ones included.
        public var requests: [String: Int]
        /// Responses per endpoint and status, keyed `"<endpoint> <status>"`, e.g. `"token 400"`.
        public var outcomes: [String: Int]
        /// Protocol events per ``Event`` name, e.g. `refreshes`, `reuse_detections`.
        public var events: [String: Int]

        /// Creates empty counters.
        public init(requests: [String: Int] = [:], outcomes: [String: Int] = [:], events: [String: Int] = [:]) {
            self.requests = requests
            self.outcomes = outcomes
            self.events = events
        }

        /// The number of requests that reached an endpoint.
        public func requests(to endpoint: Endpoint) -> Int {
            self.requests[endpoint.rawValue, default: 0]
        }

        /// The number of responses an endpoint answered with a status (dropped connections excluded).
        public func responses(from endpoint: Endpoint, status: Int) -> Int {
            self.outcomes["\(endpoint.rawValue) \(status)", default: 0]
        }

        /// How often an event happened.
        public subscript(event: Event) -> Int {
            self.events[event.rawValue, default: 0]
        }

        /// A protocol event the provider counts.
        public struct Event: Hashable, Sendable, CustomStringConvertible {
            /// The event name used in `GET /admin/counters`.
            public let rawValue: String

            /// Creates an event from its name.
            public init(_ rawValue: String) {
                self.rawValue = rawValue
            }

            /// An authorization code was issued (user allowed).
            public static let codesIssued = Event("codes_issued")
            /// An authorization code was exchanged for tokens.
            public static let codesExchanged = Event("codes_exchanged")
            /// A spent authorization code was presented again (its grant is revoked).
            public static let codeReuses = Event("code_reuses")
            /// A refresh succeeded.
            public static let refreshes = Event("refreshes")
            /// A refresh rotated the refresh token.
            public static let rotations = Event("rotations")
            /// A spent refresh token was presented and the grant family revoked.
            public static let reuseDetections = Event("reuse_detections")
            /// A spent refresh token was presented within the grace period and the same tokens returned.
            public static let graceReplays = Event("grace_replays")
            /// A refresh failed with `invalid_grant` (or the dialect's equivalent).
            public static let refreshFailures = Event("refresh_failures")
            /// A refresh request carried a `claims` parameter (a client answering a claims challenge).
            public static let claimsRefreshes = Event("claims_refreshes")
            /// A revocation request was handled (known or unknown token).
            public static let revocations = Event("revocations")
            /// A grant was revoked (by revocation, reuse detection, code reuse or admin).
            public static let grantsRevoked = Event("grants_revoked")
            /// A device code was issued.
            public static let deviceCodesIssued = Event("device_codes_issued")
            /// A user approved a device code.
            public static let deviceApprovals = Event("device_approvals")
            /// A device-code poll answered `slow_down`.
            public static let slowDowns = Event("slow_downs")
            /// A device-code poll answered `authorization_pending`.
            public static let pendingPolls = Event("pending_polls")
            /// The login form was submitted with a wrong password.
            public static let loginFailures = Event("login_failures")
            /// The user pressed Deny.
            public static let denials = Event("denials")
            /// An injected server error was answered.
            public static let injectedServerErrors = Event("injected_server_errors")
            /// An injected 429 was answered.
            public static let injectedRateLimits = Event("injected_rate_limits")
            /// A connection was dropped on purpose.
            public static let droppedConnections = Event("dropped_connections")
            /// A request was processed and its connection then dropped without the answer.
            public static let droppedAnswers = Event("dropped_answers")
            /// A random delay was added to a request.
            public static let injectedLatencies = Event("injected_latencies")
            /// The signing keys were rotated.
            public static let keyRotations = Event("key_rotations")
            /// A bearer token was refused by `/userinfo` or `/resource`.
            public static let bearerRejections = Event("bearer_rejections")

            /// The name.
            public var description: String { self.rawValue }
        }
    }

    /// Tokens minted directly through ``Admin/issueTokens(username:clientID:scopes:)``.
    public struct IssuedTokens: Sendable {
        /// The access token.
        public var accessToken: String
        /// The refresh token, if the scopes and policy call for one.
        public var refreshToken: String?
        /// The ID token, if `openid` was among the scopes.
        public var idToken: String?
        /// Seconds until the access token expires.
        public var expiresIn: Int
        /// The granted scopes.
        public var scopes: [String]
    }
}
