@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider {
    /// Behaviours of other authorization servers that the provider can imitate, so that a client meets them in
    /// fast in-process tests. Each is off by default. The identity and metadata ones were seen in
    /// django-oauth-toolkit 3.4.1 (oauthlib 3.3); the token-response ones are the wire quirks of real providers
    /// (GitHub's form-encoded answers and HTTP 200 errors, Firebase's string `expires_in`, lowercase `bearer`).
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
        /// Whether the token endpoint answers `application/x-www-form-urlencoded` whatever `Accept` asks for, as
        /// GitHub does without `Accept: application/json`. Defaults to `false`.
        public var formEncodedTokenResponses = false
        /// Whether token endpoint errors answer HTTP 200 with an `error` member (GitHub). Defaults to `false`.
        public var tokenErrorsWithHTTP200 = false
        /// Whether `invalid_client` answers 400 without a challenge, even to HTTP Basic (RFC 6749 §5.2 requires
        /// 401 then; many servers answer 400). Defaults to `false`: 401.
        public var invalidClientAnswers400 = false
        /// The `token_type` of token responses (RFC 6749 §7.1 compares it case-insensitively). Defaults to
        /// `Bearer`.
        public var tokenType = "Bearer"
        /// Whether `expires_in` is a numeric string (`"3600"`) instead of a number. Defaults to `false`.
        public var expiresInAsString = false
        /// Whether token responses leave `scope` out (RFC 6749 §5.1: then the grant is what was asked for).
        /// Defaults to `false`.
        public var omitsScopeInTokenResponse = false
        /// The scopes a grant may hold; requested scopes outside it are silently left out of the grant, as when a
        /// person unticks them on a consent page. `nil` (the default) grants whatever was asked for.
        public var grantableScopes: Set<String>? = nil

        /// Creates the default: the provider's own behaviour.
        public init() {}
    }
}
