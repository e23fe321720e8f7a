/// Why a ``Session`` could not hand out an access token. It never contains a secret.
///
/// Match it like an enum: `catch let error as SessionError where error == .needsSignIn`, or
/// `switch error { case .offline: … }` (see <doc:Errors>).
public struct SessionError: TetherError {
    enum Code: Sendable, Hashable {
        case notConnected
        case needsSignIn
        case offline
        case storageUnavailable
        case misconfigured
        case tokenLifetimeTooShort
        case refreshThrottled
    }

    /// The code, the message and the cause: a ``RefreshError`` or a ``CredentialStoreError``.
    public var details: TetherErrorDetails

    /// Why the user must sign in again, for ``needsSignIn``.
    public let signInReason: SignInReason?

    /// The account to preselect when signing in again, if known.
    public let accountHint: Account?

    init(
        _ code: Code,
        _ message: String,
        signInReason: SignInReason? = nil,
        accountHint: Account? = nil,
        cause: (any Error)? = nil
    ) {
        details = TetherErrorDetails("\(code)", message, cause: cause)
        self.signInReason = signInReason
        self.accountHint = accountHint
    }

    /// No record is stored: nobody signed in, or the user signed out.
    public static let notConnected = SessionError(.notConnected, "No account is connected")
    /// The grant is gone (revoked, expired, disabled); ``signInReason`` says why. The tokens were removed, the
    /// account hint kept.
    public static let needsSignIn = SessionError(.needsSignIn, "The user must sign in again")
    /// The provider could not be reached or failed transiently; the session and its tokens are kept. The cause
    /// is the last ``RefreshError``.
    public static let offline = SessionError(.offline, "The provider could not be reached")
    /// The secure store cannot be read yet or is damaged, or the user declined to unlock a refresh token kept
    /// behind their presence (``CredentialStoreError/locked``); the cause is the ``CredentialStoreError``. Nothing
    /// was deleted.
    public static let storageUnavailable = SessionError(.storageUnavailable, "The secure store is not available")
    /// The refresher or the store is configured wrongly; ``message`` says how.
    public static let misconfigured = SessionError(.misconfigured, "The session is misconfigured")
    /// A fresh token was obtained but lives shorter than the lifetime the caller asked for.
    public static let tokenLifetimeTooShort = SessionError(
        .tokenLifetimeTooShort,
        "The provider issues tokens that live shorter than the requested minimum"
    )

    /// An ``AuthorizedClient`` would have forced a refresh within
    /// ``Session/Configuration/minimumForcedRefreshInterval`` of the last one:
    /// the resource server keeps rejecting tokens the provider has just issued. The session and its tokens are
    /// kept.
    public static let refreshThrottled = SessionError(
        .refreshThrottled,
        "A refresh was forced too recently; the server keeps rejecting new tokens"
    )

    /// Whether the user must sign in again before this connection works.
    public var requiresReauthentication: Bool { self == .needsSignIn || self == .notConnected }
}
