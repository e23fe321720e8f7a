@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider {
    /// How the protected resource (`GET /resource`, `GET /resource/admin`) refuses an access token: each real API
    /// says it differently, and a client must read every form as "this token was refused".
    public struct ResourceErrorStyle: Hashable, Sendable, CustomStringConvertible {
        enum Kind: String, Sendable {
            case standard
            case microsoftGraph
            case googleAPI
            case github
        }

        let kind: Kind

        /// RFC 6750 §3: `401` with `WWW-Authenticate: Bearer realm="tether-dev", error="invalid_token"` and an
        /// RFC 6749-style JSON body. The default.
        public static let standard = ResourceErrorStyle(kind: .standard)
        /// Microsoft Graph: `401` with `WWW-Authenticate: Bearer realm="", authorization_uri="…",
        /// client_id="00000003-0000-0000-c000-000000000000"` — no `error` attribute — and the body
        /// `{"error":{"code":"InvalidAuthenticationToken","message":…,"innerError":{…}}}`
        /// (https://learn.microsoft.com/graph/errors).
        public static let microsoftGraph = ResourceErrorStyle(kind: .microsoftGraph)
        /// Google APIs: `401` with `WWW-Authenticate: Bearer realm="…", error="invalid_token"` and the body
        /// `{"error":{"code":401,"message":…,"errors":[…],"status":"UNAUTHENTICATED"}}`
        /// (https://developers.google.com/calendar/api/guides/errors).
        public static let googleAPI = ResourceErrorStyle(kind: .googleAPI)
        /// GitHub's REST API: `401` with `{"message":"Bad credentials","documentation_url":…}` and no challenge
        /// (https://docs.github.com/rest/overview/troubleshooting-the-rest-api).
        public static let github = ResourceErrorStyle(kind: .github)

        /// The style's name (`standard`, `microsoftGraph`, `googleAPI`, `github`).
        public var description: String { self.kind.rawValue }
    }
}
