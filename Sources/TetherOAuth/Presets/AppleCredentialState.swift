import Foundation
public import Tether

/// The state of a Sign in with Apple credential (`ASAuthorizationAppleIDProvider.CredentialState`).
public enum AppleCredentialState: Sendable, Hashable {
    /// The user is still signed in to the app with this Apple Account.
    case authorized
    /// The user stopped using Sign in with Apple for the app: sign them out.
    case revoked
    /// No relationship between the user and the app.
    case notFound
    /// The app was transferred to another team; the user id must be migrated.
    case transferred
}

/// Reads the state of a Sign in with Apple credential. On Apple platforms ``AuthenticationServicesCredentialStateReader``
/// asks the system (no network); elsewhere ``AppleRefreshTokenCredentialStateReader`` validates the refresh
/// token at Apple's token endpoint.
public protocol AppleCredentialStateReading: Sendable {
    /// Reads the state for a user.
    /// - Parameters:
    ///   - userID: The Apple user identifier (the ID token's `sub`).
    ///   - connection: The stored record, for readers that need its refresh token.
    /// - Returns: The credential state.
    func credentialState(forUserID userID: String, connection: Connection) async throws -> AppleCredentialState
}

/// A ``Tether/GrantCheck`` for Sign in with Apple: a revoked or unknown credential at restore means "sign in
/// again".
public struct AppleGrantCheck: GrantCheck {
    private let reader: any AppleCredentialStateReading

    /// Creates a check.
    /// - Parameter reader: Where the credential state comes from.
    public init(reader: any AppleCredentialStateReading) { self.reader = reader }

    /// Maps the credential state: `revoked` and `notFound` end the grant; `transferred` and `authorized` keep it.
    public func grantStatus(of connection: Connection) async throws -> GrantStatus {
        switch try await reader.credentialState(forUserID: connection.account.subject, connection: connection) {
        case .authorized, .transferred:
            return .active
        case .revoked:
            return .revoked(
                SignInReason(
                    code: "apple_credential_revoked",
                    message: "Sign in with Apple was turned off for this app"
                )
            )
        case .notFound:
            return .revoked(
                SignInReason(
                    code: "apple_credential_not_found",
                    message: "The Apple Account is no longer linked to this app"
                )
            )
        }
    }
}

/// Reads the credential state by validating the refresh token at Apple's token endpoint — the REST check for
/// servers and non-Apple platforms. Apple asks that this happen at most once a day, so a result is reused for
/// `minimumInterval` per user (in memory).
public final class AppleRefreshTokenCredentialStateReader: AppleCredentialStateReading {
    private let client: OAuthClient
    private let minimumInterval: Duration
    private let dateSource: DateSource
    private let lastResults = LockedState<[String: (Date, AppleCredentialState)]>([:])

    /// Creates a reader.
    /// - Parameters:
    ///   - client: An ``OAuthClient`` for ``ProviderConfiguration/apple(clientID:redirectURI:scopes:)`` with an
    ///     ``AppleClientSecret`` provider.
    ///   - minimumInterval: How long a result is reused; one day by default.
    ///   - dateSource: The wall clock.
    public init(client: OAuthClient, minimumInterval: Duration = .seconds(86_400), dateSource: DateSource = .system) {
        self.client = client
        self.minimumInterval = minimumInterval
        self.dateSource = dateSource
    }

    /// Validates the refresh token: success is `authorized`, `invalid_grant` (or Apple's `invalid_request` for a
    /// revoked user) is `revoked`; transient failures throw.
    public func credentialState(forUserID userID: String, connection: Connection) async throws -> AppleCredentialState {
        let now = dateSource.now
        if let (checked, state) = lastResults.withLock({ $0[userID] }),
            now.timeIntervalSince(checked) < minimumInterval.timeInterval
        {
            return state
        }
        guard let refreshToken = connection.tokens.refreshToken else { return .notFound }
        let state: AppleCredentialState
        do {
            _ = try await client.refresh(
                RefreshRequest(
                    connectionID: connection.id,
                    refreshToken: refreshToken,
                    account: connection.account,
                    tokens: connection.tokens
                )
            )
            state = .authorized
        } catch let error as OAuthError
            where error.requiresReauthentication
            || error.errorCode == .invalidRequest && error.httpStatus == 400
        {
            state = .revoked
        }
        lastResults.withLock { $0[userID] = (now, state) }
        return state
    }
}
