public import Tether

extension GrantLifetime {
    /// Microsoft identity platform: a refresh token unused for 90 days ends; each refresh returns a new one with a
    /// new 90 days, so in practice the grant ends after 90 days without a refresh. ("Refresh tokens in the
    /// Microsoft identity platform", "Token lifetime": 90 days, 24 hours for single-page apps,
    /// <https://learn.microsoft.com/entra/identity-platform/refresh-tokens>; the error for it is `AADSTS700082`,
    /// "the refresh token has expired due to inactivity",
    /// <https://learn.microsoft.com/entra/identity-platform/reference-error-codes>.) Single-page apps' 24 hours
    /// apply to browser apps, which Tether is not.
    public static let microsoft = GrantLifetime(provider: "Microsoft", inactivityLimit: .seconds(90 * 86_400))

    /// Google: a refresh token unused for six months ends ("Using OAuth 2.0 to Access Google APIs", "Refresh token
    /// expiration", <https://developers.google.com/identity/protocols/oauth2#expiration>). Six months are counted
    /// as 180 days, the shortest six months, so that a warning or a keep-alive never comes late. An app whose
    /// consent screen is in Testing uses ``googleTesting``.
    public static let google = GrantLifetime(provider: "Google", inactivityLimit: .seconds(180 * 86_400))

    /// Google, for an app whose OAuth consent screen has the External user type and the publishing status
    /// Testing: its refresh tokens end 7 days after they were issued (unless the only scopes are name, e-mail and
    /// profile), besides the six months of disuse of ``google`` ("Using OAuth 2.0 to Access Google APIs",
    /// "Refresh token expiration", <https://developers.google.com/identity/protocols/oauth2#expiration>). A refresh
    /// does not extend the 7 days; only a new sign-in does.
    public static let googleTesting = GrantLifetime(
        provider: "Google",
        inactivityLimit: .seconds(180 * 86_400),
        maximumAge: .seconds(7 * 86_400),
        absoluteNote: "Google ends refresh tokens of apps in Testing after 7 days"
    )

    /// GitHub Apps' user access tokens: the refresh token lasts 6 months, as each answer's
    /// `refresh_token_expires_in` says (15897600 seconds), and is replaced on every refresh ("Refreshing user access
    /// tokens",
    /// <https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/refreshing-user-access-tokens>).
    /// GitHub documents no inactivity rule; OAuth apps' tokens do not expire.
    public static let gitHub = GrantLifetime(
        provider: "GitHub",
        absoluteNote: "GitHub user tokens last 6 months"
    )
}
