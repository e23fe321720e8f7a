public import Foundation

extension ProviderConfiguration {
    /// The Microsoft identity platform's tenants (v2.0 endpoints).
    public struct MicrosoftTenant: Sendable, Hashable, CustomStringConvertible {
        /// The path segment: `common`, `organizations`, `consumers` or a tenant id or domain.
        public let rawValue: String

        /// A specific tenant by id (GUID) or domain.
        /// - Parameter rawValue: The tenant id or domain.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// Work or school accounts and personal Microsoft accounts.
        public static let common = MicrosoftTenant("common")
        /// Work or school accounts only.
        public static let organizations = MicrosoftTenant("organizations")
        /// Personal Microsoft accounts only.
        public static let consumers = MicrosoftTenant("consumers")

        /// The tenant's path segment.
        public var description: String { rawValue }

        /// Whether ID tokens come from many tenants, so the issuer is the `{tenantid}` template.
        var isMultiTenant: Bool { self == .common || self == .organizations }
    }

    /// Microsoft identity platform v2.0 (Entra ID and personal accounts) for a public client, with Microsoft
    /// Graph scopes.
    ///
    /// `offline_access` is added to the scopes when missing: without it v2.0 issues no refresh token. Refreshes
    /// return a new refresh token every time, which replaces the old one. For `common` and `organizations`,
    /// ID tokens carry the tenant's own issuer; it is checked against the template after substituting `tid`.
    /// Redirect URIs: `http://localhost` (port ignored by Microsoft) or `http://127.0.0.1` via the app manifest
    /// for loopback, `msauth.<bundle id>://auth` on Apple platforms; `[::1]` is not supported.
    /// - Parameters:
    ///   - tenant: The tenant; `common` by default.
    ///   - clientID: The application (client) id.
    ///   - redirectURI: The redirect URI.
    ///   - scopes: The scopes; by default `openid email profile offline_access User.Read`. Calendars:
    ///     `Calendars.Read` or `Calendars.ReadWrite`.
    /// - Returns: The configuration (not yet validated; ``OAuthClient`` validates it).
    public static func microsoft(
        tenant: MicrosoftTenant = .common,
        clientID: String,
        redirectURI: URL? = nil,
        scopes: [String] = ["openid", "email", "profile", "offline_access", "User.Read"]
    ) -> ProviderConfiguration {
        let base = "https://login.microsoftonline.com/\(tenant.rawValue)"
        let issuerTenant =
            tenant.isMultiTenant
            ? "{tenantid}"
            : tenant == .consumers
                ? "9188040d-6c67-4c5b-b112-36a304b66dad" : tenant.rawValue
        var scopes = scopes
        if !scopes.contains("offline_access") { scopes.append("offline_access") }
        return ProviderConfiguration(
            providerID: "microsoft",
            issuer: "https://login.microsoftonline.com/\(issuerTenant)/v2.0",
            authorizationEndpoint: URL(string: "\(base)/oauth2/v2.0/authorize"),
            tokenEndpoint: URL(string: "\(base)/oauth2/v2.0/token")!,
            deviceAuthorizationEndpoint: URL(string: "\(base)/oauth2/v2.0/devicecode"),
            userinfoEndpoint: URL(string: "https://graph.microsoft.com/oidc/userinfo"),
            jwksURI: URL(string: "\(base)/discovery/v2.0/keys"),
            clientID: clientID,
            scopes: scopes,
            redirectURI: redirectURI
        )
    }
}
