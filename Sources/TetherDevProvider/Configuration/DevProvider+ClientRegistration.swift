@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider {
    /// A client the provider knows.
    ///
    /// Redirect URIs are compared by exact string, except loopback URIs (`http://127.0.0.1/…`,
    /// `http://[::1]/…`, `http://localhost/…`), whose port is ignored (RFC 8252 §7.3).
    public struct ClientRegistration: Sendable {
        /// The `client_id`.
        public var id: String
        /// The client secret for `client_secret_basic` / `client_secret_post`; `nil` for a public client.
        public var secret: String?
        /// Registered redirect URIs.
        public var redirectURIs: [String]
        /// Grant types the client may use.
        public var grantTypes: Set<GrantType>
        /// Whether authorization requests must carry an S256 PKCE challenge. Defaults to `true`.
        public var requiresPKCE: Bool
        /// For the Apple dialect: the key that verifies the client-secret JWT.
        public var appleSignInKey: AppleSignInKey?
        /// The one way a confidential client may authenticate (`client_secret_basic` or `client_secret_post`), as
        /// registered per client (OpenID Connect Dynamic Client Registration 1.0 §2,
        /// `token_endpoint_auth_method`); `nil` (the default) accepts both.
        public var tokenEndpointAuthMethod: String?

        /// Creates a client registration.
        public init(
            id: String,
            secret: String? = nil,
            redirectURIs: [String],
            grantTypes: Set<GrantType> = [.authorizationCode, .refreshToken, .deviceCode],
            requiresPKCE: Bool = true,
            appleSignInKey: AppleSignInKey? = nil
        ) {
            self.id = id
            self.secret = secret
            self.redirectURIs = redirectURIs
            self.grantTypes = grantTypes
            self.requiresPKCE = requiresPKCE
            self.appleSignInKey = appleSignInKey
        }

        /// The public client `tether-dev-client`: loopback redirects `http://127.0.0.1/callback`,
        /// `http://[::1]/callback` and `http://localhost/callback` (any port) plus
        /// `dev.tether.app:/oauth2redirect`; all grant types.
        public static let defaultClient = ClientRegistration(
            id: "tether-dev-client",
            redirectURIs: [
                "http://127.0.0.1/callback",
                "http://[::1]/callback",
                "http://localhost/callback",
                "dev.tether.app:/oauth2redirect",
            ]
        )
    }

    /// An OAuth grant type a client may be allowed to use.
    public struct GrantType: Hashable, Sendable, CustomStringConvertible {
        /// The wire value of `grant_type`.
        public let rawValue: String

        /// Creates a grant type from its wire value.
        public init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// `authorization_code`.
        public static let authorizationCode = GrantType("authorization_code")
        /// `refresh_token`.
        public static let refreshToken = GrantType("refresh_token")
        /// `urn:ietf:params:oauth:grant-type:device_code` (RFC 8628).
        public static let deviceCode = GrantType("urn:ietf:params:oauth:grant-type:device_code")

        /// The wire value.
        public var description: String { self.rawValue }
    }

    /// The Sign in with Apple key a client signs its client-secret JWT with (ES256).
    public struct AppleSignInKey: Sendable {
        /// The 10-character team ID, expected as the JWT `iss`.
        public var teamID: String
        /// The key ID, expected as the JWT header `kid`.
        public var keyID: String
        /// The P-256 public key in PEM form.
        public var publicKeyPEM: String

        /// Creates a key description.
        public init(teamID: String, keyID: String, publicKeyPEM: String) {
            self.teamID = teamID
            self.keyID = keyID
            self.publicKeyPEM = publicKeyPEM
        }
    }
}
