@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider {
    /// Behaviours of other authorization servers that the provider can imitate, so that a client meets them in
    /// fast in-process tests. Each is off by default; all were seen in django-oauth-toolkit 3.4.1 (oauthlib 3.3).
    public struct Interoperability: Hashable, Sendable {
        /// Whether the device grant returns an ID token when `openid` was granted. OpenID Connect Core 1.0 defines
        /// ID tokens for its own flows only (§3), and several servers issue none for the device grant (RFC 8628).
        /// Defaults to `true`.
        public var issuesIDTokenForDeviceGrant = true
        /// Whether userinfo refuses an access token granted without `openid`, with `401` and
        /// `error="invalid_token"` (oauthlib's `UserInfoEndpoint`). Defaults to `false`.
        public var userinfoRequiresOpenIDScope = false
        /// Whether the OpenID discovery document leaves out `revocation_endpoint` and
        /// `device_authorization_endpoint`, which only the RFC 8414 document lists. Defaults to `false`.
        public var openIDMetadataOmitsEndpoints = false
        /// Whether the provider speaks OpenID Connect. Off, it is a plain OAuth 2.0 server: OpenID discovery
        /// answers 404, the RFC 8414 document has no `userinfo_endpoint` or `jwks_uri`, no ID token is issued
        /// (an `openid` scope is accepted and ignored). Defaults to `true`.
        public var supportsOpenIDConnect = true
        /// `token_endpoint_auth_methods_supported` in the metadata, in this order.
        public var tokenEndpointAuthMethods = ["client_secret_basic", "client_secret_post", "none"]
        /// Whether the device authorization endpoint wants `client_id` in the form even from a client that
        /// authenticates with HTTP Basic (oauthlib's "Missing client_id parameter."). Defaults to `false`.
        public var deviceAuthorizationRequiresClientIDInForm = false

        /// Creates the default: the provider's own behaviour.
        public init() {}
    }
}
