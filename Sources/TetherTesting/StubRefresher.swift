public import Tether

/// A ``Tether/TokenRefresher`` and ``Tether/TokenRevoker`` made of closures, for tests that need one specific
/// behaviour.
public struct StubRefresher: TokenRefresher, TokenRevoker {
    private let onRefresh: @Sendable (RefreshRequest) async throws -> TokenResponse
    private let onRevoke: @Sendable (TokenSet, Account) async throws -> Void

    /// Creates a stub.
    /// - Parameters:
    ///   - refresh: Answers refresh requests.
    ///   - revoke: Answers revocations; succeeds by default.
    public init(
        refresh: @escaping @Sendable (RefreshRequest) async throws -> TokenResponse,
        revoke: @escaping @Sendable (TokenSet, Account) async throws -> Void = { _, _ in }
    ) {
        self.onRefresh = refresh
        self.onRevoke = revoke
    }

    /// Calls the refresh closure.
    public func refresh(_ request: RefreshRequest) async throws -> TokenResponse { try await onRefresh(request) }

    /// Calls the revoke closure.
    public func revoke(_ tokens: TokenSet, account: Account) async throws { try await onRevoke(tokens, account) }

    /// A refresher that always answers `response`.
    /// - Parameter response: The response.
    /// - Returns: The stub.
    public static func succeeding(with response: TokenResponse) -> StubRefresher {
        StubRefresher { _ in response }
    }

    /// A refresher that always fails with `error`.
    /// - Parameter error: The failure.
    /// - Returns: The stub.
    public static func failing(with error: any Error) -> StubRefresher {
        StubRefresher { _ in throw error }
    }
}
