public import Foundation

extension ProviderConfiguration {
    /// Firebase Authentication's secure-token API, for refreshing a Firebase user's ID token.
    ///
    /// Firebase signs users in through its own SDK or REST sign-in endpoints; Tether keeps the session: it
    /// refreshes at `https://securetoken.googleapis.com/v1/token?key=<API key>` (form
    /// `grant_type=refresh_token`), accepts `expires_in` as a string, uses the returned ID token as the bearer
    /// token, and maps Firebase's error bodies (`TOKEN_EXPIRED`, `USER_DISABLED`, `USER_NOT_FOUND`,
    /// `INVALID_REFRESH_TOKEN` end the session; an invalid API key is a configuration error).
    /// - Parameters:
    ///   - apiKey: The Web API key of the Firebase project (not a secret, but keep it out of logs anyway).
    ///   - projectID: The Firebase project id; ID tokens have issuer `https://securetoken.google.com/<id>` and
    ///     audience `<id>`.
    ///   - tokenEndpoint: Another secure-token endpoint, such as the development provider's.
    /// - Returns: The configuration (not yet validated; ``OAuthClient`` validates it).
    public static func firebase(apiKey: String, projectID: String, tokenEndpoint: URL? = nil) -> ProviderConfiguration {
        let base = tokenEndpoint ?? URL(string: "https://securetoken.googleapis.com/v1/token")!
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)
        let items = (components?.queryItems ?? []).filter { $0.name != "key" }
        components?.queryItems = items + [URLQueryItem(name: "key", value: apiKey)]
        return ProviderConfiguration(
            providerID: "firebase",
            issuer: "https://securetoken.google.com/\(projectID)",
            tokenEndpoint: components?.url ?? URL(string: "https://securetoken.googleapis.com/v1/token")!,
            clientID: projectID,
            clientAuthentication: .apiKey,
            idTokenIsAccessToken: true
        )
    }
}
