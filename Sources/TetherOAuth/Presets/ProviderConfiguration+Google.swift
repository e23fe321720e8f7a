public import Foundation
public import Tether

extension ProviderConfiguration {
    /// Google's OAuth 2.0 / OpenID Connect endpoints for an installed app (an iOS or Desktop client type).
    ///
    /// - iOS client type: no client secret; redirect `com.googleusercontent.apps.<id>:/oauth2redirect` (the
    ///   default when `redirectURI` is `nil` and the client id has the usual `….apps.googleusercontent.com` form).
    /// - Desktop client type: loopback redirects (`LoopbackPresenter`); Google may require the client secret it
    ///   issued for the Desktop type even with PKCE — pass it as `clientSecret`.
    /// Installed apps always receive a refresh token; refreshes return no new one (it is kept). Revocation uses
    /// `https://oauth2.googleapis.com/revoke`. ID tokens may carry the legacy issuer `accounts.google.com`.
    /// - Parameters:
    ///   - clientID: The OAuth client id from the Google Cloud console.
    ///   - clientSecret: The Desktop client's secret, if Google issued one.
    ///   - redirectURI: The redirect URI; see above for the default.
    ///   - scopes: The scopes; `openid email profile` by default. Add e.g.
    ///     `https://www.googleapis.com/auth/calendar.readonly`.
    /// - Returns: The configuration (not yet validated; ``OAuthClient`` validates it).
    public static func google(
        clientID: String,
        clientSecret: ClientSecret? = nil,
        redirectURI: URL? = nil,
        scopes: [String] = ["openid", "email", "profile"]
    ) -> ProviderConfiguration {
        ProviderConfiguration(
            providerID: "google",
            issuer: "https://accounts.google.com",
            authorizationEndpoint: URL(string: "https://accounts.google.com/o/oauth2/v2/auth"),
            tokenEndpoint: URL(string: "https://oauth2.googleapis.com/token")!,
            revocationEndpoint: URL(string: "https://oauth2.googleapis.com/revoke"),
            deviceAuthorizationEndpoint: URL(string: "https://oauth2.googleapis.com/device/code"),
            userinfoEndpoint: URL(string: "https://openidconnect.googleapis.com/v1/userinfo"),
            jwksURI: URL(string: "https://www.googleapis.com/oauth2/v3/certs"),
            clientID: clientID,
            clientSecret: clientSecret,
            scopes: scopes,
            redirectURI: redirectURI ?? googleReversedClientRedirect(clientID),
            alternativeIssuers: ["accounts.google.com"]
        )
    }

    /// `com.googleusercontent.apps.<id>:/oauth2redirect` for `<id>.apps.googleusercontent.com`.
    static func googleReversedClientRedirect(_ clientID: String) -> URL? {
        let suffix = ".apps.googleusercontent.com"
        guard clientID.hasSuffix(suffix) else { return nil }
        let id = clientID.dropLast(suffix.count)
        return URL(string: "com.googleusercontent.apps.\(id):/oauth2redirect")
    }
}
