/// Revokes tokens at the provider (RFC 7009) when a user signs out. Called best-effort: a failure is logged
/// and the local sign-out proceeds.
public protocol TokenRevoker: Sendable {
    /// Revokes a connection's tokens.
    /// - Parameters:
    ///   - tokens: The tokens to revoke (the refresh token first, where the provider revokes the grant with it).
    ///   - account: Whose tokens they are.
    func revoke(_ tokens: TokenSet, account: Account) async throws
}
