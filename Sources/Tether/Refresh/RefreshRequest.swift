/// What a ``TokenRefresher`` gets.
public struct RefreshRequest: Sendable {
    /// The connection.
    public var connectionID: ConnectionID
    /// The refresh token to use.
    public var refreshToken: RefreshToken
    /// The account.
    public var account: Account
    /// The current tokens.
    public var tokens: TokenSet
    /// A claims request to send with the refresh (the JSON of OpenID Connect Core 1.0 §5.5), when a resource
    /// server answered with a claims challenge (`401`, `error="insufficient_claims"`, `claims="…"`; Microsoft
    /// Entra continuous access evaluation, https://learn.microsoft.com/entra/identity-platform/claims-challenge);
    /// `nil` for an ordinary refresh. An OAuth refresher sends it as the `claims` parameter.
    public var claims: String?

    /// Creates a request.
    /// - Parameters:
    ///   - connectionID: The connection.
    ///   - refreshToken: The refresh token to use.
    ///   - account: The account.
    ///   - tokens: The current tokens.
    ///   - claims: A claims request from a resource's claims challenge, decoded JSON; `nil` for none.
    public init(
        connectionID: ConnectionID,
        refreshToken: RefreshToken,
        account: Account,
        tokens: TokenSet,
        claims: String? = nil
    ) {
        self.connectionID = connectionID
        self.refreshToken = refreshToken
        self.account = account
        self.tokens = tokens
        self.claims = claims
    }
}
