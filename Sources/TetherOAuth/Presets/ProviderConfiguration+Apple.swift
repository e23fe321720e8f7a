public import Foundation
import Tether

extension ProviderConfiguration {
    /// Sign in with Apple's REST endpoints, for validating authorization codes, refreshing (validating) refresh
    /// tokens and revoking them.
    ///
    /// Apple's client secret is an ES256 JWT signed with the Sign in with Apple key (`.p8`): create the client
    /// with an ``AppleClientSecret`` as its `clientSecretProvider`. The private key belongs on a server, never
    /// in an app. Apple rejects IP and `localhost` redirect URIs; on Apple platforms the native flow
    /// (AuthenticationServices) produces the authorization code without a redirect. Apple asks that a refresh
    /// token be validated at most once a day.
    /// - Parameters:
    ///   - clientID: The Services ID (web) or bundle id (native), without the team id.
    ///   - redirectURI: The redirect URI registered with Apple, when the code came from the web flow.
    ///   - scopes: `name email` by default.
    /// - Returns: The configuration (not yet validated; ``OAuthClient`` validates it).
    public static func apple(
        clientID: String,
        redirectURI: URL? = nil,
        scopes: [String] = ["name", "email"]
    ) -> ProviderConfiguration {
        ProviderConfiguration(
            providerID: "apple",
            issuer: "https://appleid.apple.com",
            authorizationEndpoint: URL(string: "https://appleid.apple.com/auth/authorize"),
            tokenEndpoint: URL(string: "https://appleid.apple.com/auth/token")!,
            revocationEndpoint: URL(string: "https://appleid.apple.com/auth/revoke"),
            jwksURI: URL(string: "https://appleid.apple.com/auth/keys"),
            clientID: clientID,
            clientAuthentication: ClientAuthentication.none,
            scopes: scopes,
            redirectURI: redirectURI,
            additionalAuthorizationParameters: scopes.isEmpty ? [:] : ["response_mode": "form_post"]
        )
    }
}
