public import Foundation
public import Tether

extension ProviderConfiguration {
    /// GitHub's OAuth apps and GitHub Apps' user access tokens, on github.com or a GitHub Enterprise Server.
    ///
    /// - Web flow with PKCE ("Authorizing OAuth apps",
    ///   <https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps>): GitHub wants the
    ///   client secret at the token endpoint for this flow, PKCE or not; loopback redirects on any port are
    ///   accepted when the registered callback URL is a loopback one.
    /// - Device flow (the same page, "Device flow"; enable it in the app's settings), as `gh auth login` uses it:
    ///   no client secret needed.
    /// - No OpenID Connect: the account comes from `GET /user` (``AccountLookup/gitHubUser``): its numeric `id`,
    ///   its `login`, and `email` when public or granted with `user:email`.
    /// - Tokens: OAuth apps' tokens, and GitHub Apps' tokens with expiration opted out, have no `expires_in` and no
    ///   refresh token; a session treats them as not expiring. GitHub Apps' expiring user tokens last 8 hours and
    ///   come with a refresh token of 6 months that is replaced on every refresh ("Refreshing user access tokens",
    ///   <https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/refreshing-user-access-tokens>).
    /// - Revocation: through the application API (``RevocationMethod/gitHubApplicationGrant``), which needs the
    ///   client secret; without one, revoking fails with ``ProviderConfigurationError/revocationUnsupported``.
    /// - Token responses are form-encoded unless JSON is asked for, and errors come with HTTP 200 ("Troubleshooting
    ///   OAuth app access token request errors",
    ///   <https://docs.github.com/en/apps/oauth-apps/maintaining-oauth-apps/troubleshooting-oauth-app-access-token-request-errors>);
    ///   ``OAuthClient`` reads both.
    /// - Parameters:
    ///   - clientID: The app's client id (not a GitHub App's numeric app id).
    ///   - clientSecret: The app's client secret; needed for the web flow, for refreshing tokens that did not come
    ///     from the device flow, and for revocation.
    ///   - redirectURI: The callback URL registered for the app.
    ///   - scopes: OAuth app scopes; `read:user user:email` by default. GitHub Apps ignore scopes (their
    ///     permissions are set on the app): pass `[]`.
    ///   - serverURL: Where users sign in: `https://github.com` by default, or a GitHub Enterprise Server's URL.
    ///   - apiURL: The REST API's base URL: `https://api.github.com` for github.com, `<serverURL>/api/v3` for any
    ///     other server unless given.
    /// - Returns: The configuration (not yet validated; ``OAuthClient`` validates it).
    public static func github(
        clientID: String,
        clientSecret: ClientSecret? = nil,
        redirectURI: URL? = nil,
        scopes: [String] = ["read:user", "user:email"],
        serverURL: URL = URL(string: "https://github.com")!,
        apiURL: URL? = nil
    ) -> ProviderConfiguration {
        let server = gitHubTrimmed(serverURL)
        let api = apiURL.map(gitHubTrimmed) ?? gitHubDefaultAPIURL(for: server)
        return ProviderConfiguration(
            providerID: "github",
            authorizationEndpoint: server.appendingPathComponent("login/oauth/authorize"),
            tokenEndpoint: server.appendingPathComponent("login/oauth/access_token"),
            revocationEndpoint: api.appendingPathComponent("applications")
                .appendingPathComponent(clientID)
                .appendingPathComponent("grant"),
            deviceAuthorizationEndpoint: server.appendingPathComponent("login/device/code"),
            userinfoEndpoint: api.appendingPathComponent("user"),
            clientID: clientID,
            clientSecret: clientSecret,
            scopes: scopes,
            redirectURI: redirectURI,
            accountLookup: .gitHubUser,
            revocationMethod: .gitHubApplicationGrant
        )
    }

    /// `https://api.github.com` for github.com; `<server>/api/v3` for a GitHub Enterprise Server ("Getting
    /// started with the REST API", <https://docs.github.com/en/enterprise-server@latest/rest/quickstart>).
    static func gitHubDefaultAPIURL(for server: URL) -> URL {
        if server.host?.lowercased() == "github.com" { return URL(string: "https://api.github.com")! }
        return server.appendingPathComponent("api/v3")
    }

    /// The URL without a trailing slash, so that appended paths have exactly one.
    static func gitHubTrimmed(_ url: URL) -> URL {
        var text = url.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text) ?? url
    }
}
