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

/// Revokes tokens at the provider (RFC 7009) when a user signs out. Called best-effort: a failure is logged
/// and the local sign-out proceeds.
public protocol TokenRevoker: Sendable {
    /// Revokes a connection's tokens.
    /// - Parameters:
    ///   - tokens: The tokens to revoke (the refresh token first, where the provider revokes the grant with it).
    ///   - account: Whose tokens they are.
    func revoke(_ tokens: TokenSet, account: Account) async throws
}

/// A classified refresh failure. It never contains a secret.
public struct RefreshError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The classes of failure a ``Session`` acts on.
    public enum Kind: Sendable, Hashable {
        /// No network, timeout, 5xx, 429: keep the session and retry with backoff.
        case transient
        /// The grant is gone (`invalid_grant`, revoked, user disabled): end the session with this reason.
        case permanent(SignInReason)
        /// The client is configured wrongly: no retry helps.
        case configuration
    }

    /// The class of failure.
    public let kind: Kind
    /// One sentence, without secrets, such as `invalid_grant from oauth2.example.com (HTTP 400)`.
    public let message: String
    /// How long the provider asked to wait (`Retry-After`), if it did.
    public let retryAfter: Duration?

    /// Creates an error.
    /// - Parameters:
    ///   - kind: The class of failure.
    ///   - message: One sentence without secrets.
    ///   - retryAfter: How long the provider asked to wait.
    public init(kind: Kind, message: String, retryAfter: Duration? = nil) {
        self.kind = kind
        self.message = message
        self.retryAfter = retryAfter
    }

    /// A transient failure.
    public static func transient(_ message: String, retryAfter: Duration? = nil) -> RefreshError {
        RefreshError(kind: .transient, message: message, retryAfter: retryAfter)
    }

    /// A permanent failure: the user must sign in again.
    public static func permanent(_ reason: SignInReason, _ message: String) -> RefreshError {
        RefreshError(kind: .permanent(reason), message: message)
    }

    /// A configuration failure.
    public static func configuration(_ message: String) -> RefreshError {
        RefreshError(kind: .configuration, message: message)
    }

    /// Whether retrying later may succeed.
    public var isTransient: Bool { kind == .transient }

    /// `RefreshError(transient): message`.
    public var description: String {
        switch kind {
        case .transient: "RefreshError(transient): \(message)"
        case .permanent(let reason): "RefreshError(permanent, \(reason)): \(message)"
        case .configuration: "RefreshError(configuration): \(message)"
        }
    }
}

/// An error that knows what it means for a session: OAuth clients' errors conform, so that a ``Session`` can tell
/// a revoked grant from a network failure.
public protocol RefreshErrorConvertible: Error {
    /// The failure, classified.
    var refreshError: RefreshError { get }
}

/// Asks the provider, at restore, whether a stored grant is still good — for providers that can say so without
/// a refresh, such as Sign in with Apple's credential state.
///
/// A ``Session`` given one calls it during ``Session/restore()``; `.revoked` ends the session (needs sign-in,
/// tokens removed, account kept as a hint). Errors are logged and ignored: a check that cannot run is never a
/// reason to sign anyone out.
public protocol GrantCheck: Sendable {
    /// Checks the grant of a stored connection.
    /// - Parameter connection: The record.
    /// - Returns: `.active` or `.revoked(reason)`.
    func grantStatus(of connection: Connection) async throws -> GrantStatus
}

/// What a ``GrantCheck`` found.
public enum GrantStatus: Sendable, Hashable {
    /// The grant is still good.
    case active
    /// The grant is gone; the user must sign in again.
    case revoked(SignInReason)
}
