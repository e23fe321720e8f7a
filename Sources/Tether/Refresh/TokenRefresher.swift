/// Exchanges a refresh token for new tokens (RFC 6749 §6). The OAuth client implements it; tests use the
/// closure-backed refreshers of `TetherTesting`.
///
/// Throw a ``RefreshError`` (or an error conforming to ``RefreshErrorConvertible``) to say what kind of failure it
/// was; any other error counts as transient.
public protocol TokenRefresher: Sendable {
    /// Refreshes the tokens of a connection.
    /// - Parameter request: The refresh token and the record it belongs to.
    /// - Returns: The provider's response; a response without a refresh token keeps the old one.
    /// - Throws: ``RefreshError`` (transient, permanent or configuration), or any error (transient).
    func refresh(_ request: RefreshRequest) async throws -> TokenResponse
}
