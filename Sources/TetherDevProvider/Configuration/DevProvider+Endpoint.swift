@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider {
    /// An endpoint of the provider, as used for faults and request counters.
    public struct Endpoint: Hashable, Sendable, CustomStringConvertible {
        /// The name used in counters and in the admin API (`token`, `revoke`, …).
        public let rawValue: String

        /// Creates an endpoint from its name.
        public init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// `/.well-known/openid-configuration` and `/.well-known/oauth-authorization-server`.
        public static let discovery = Endpoint("discovery")
        /// `/jwks` (and `/auth/keys`).
        public static let jwks = Endpoint("jwks")
        /// `/authorize` (and `/auth/authorize`), GET and POST.
        public static let authorize = Endpoint("authorize")
        /// `/token`, `/auth/token` and the Firebase `/v1/token`.
        public static let token = Endpoint("token")
        /// `/revoke` and `/auth/revoke`.
        public static let revoke = Endpoint("revoke")
        /// `/device_authorization`.
        public static let deviceAuthorization = Endpoint("device_authorization")
        /// `/device`, the verification page.
        public static let device = Endpoint("device")
        /// `/userinfo`.
        public static let userinfo = Endpoint("userinfo")
        /// `/resource` and `/resource/admin`.
        public static let resource = Endpoint("resource")

        /// The Google Calendar API, everything under `/calendar/v3/`.
        public static let googleCalendar = Endpoint("google_calendar")
        /// The Microsoft Graph calendar API, everything under `/v1.0/`.
        public static let graphCalendar = Endpoint("graph_calendar")

        /// All endpoints that take faults and are counted.
        public static let all: [Endpoint] = [
            .discovery, .jwks, .authorize, .token, .revoke, .deviceAuthorization, .device, .userinfo, .resource,
            .googleCalendar, .graphCalendar,
        ]

        /// The endpoint serving a request path, or `nil` for admin and unknown paths.
        init?(path: String) {
            switch path {
            case "/.well-known/openid-configuration", "/.well-known/oauth-authorization-server":
                self = .discovery
            case "/jwks", "/auth/keys":
                self = .jwks
            case "/authorize", "/auth/authorize", "/login/oauth/authorize":
                self = .authorize
            case "/token", "/auth/token", "/v1/token", "/login/oauth/access_token":
                self = .token
            case "/revoke", "/auth/revoke":
                self = .revoke
            case "/device_authorization", "/login/device/code":
                self = .deviceAuthorization
            case "/device", "/login/device":
                self = .device
            // GitHub's `GET /user` (at api.github.com, or under /api/v3 on GitHub Enterprise Server).
            case "/userinfo", "/user", "/api/v3/user":
                self = .userinfo
            case "/resource", "/resource/admin":
                self = .resource
            case _ where path.hasSuffix("/grant") && path.contains("/applications/"):
                self = .revoke
            case _ where path.hasPrefix("/calendar/v3/"):
                self = .googleCalendar
            case _ where path.hasPrefix("/v1.0/"):
                self = .graphCalendar
            default:
                return nil
            }
        }

        /// The name.
        public var description: String { self.rawValue }
    }
}
