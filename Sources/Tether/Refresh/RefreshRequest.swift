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

    /// Creates a request.
    public init(connectionID: ConnectionID, refreshToken: RefreshToken, account: Account, tokens: TokenSet) {
        self.connectionID = connectionID
        self.refreshToken = refreshToken
        self.account = account
        self.tokens = tokens
    }
}
