/// Why a ``Session`` could not hand out an access token. It never contains a secret.
///
/// Match it like an enum: `catch let error as SessionError where error == .needsSignIn`, or
/// `switch error { case .offline: … }` (see <doc:Errors>).
public struct SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case notConnected
        case needsSignIn
        case offline
        case storageUnavailable
        case misconfigured
        case tokenLifetimeTooShort
    }

    let code: Code

    /// What went wrong, in one sentence, without secrets.
    public let message: String

    /// Why the user must sign in again, for ``needsSignIn``.
    public let signInReason: SignInReason?

    /// The account to preselect when signing in again, if known.
    public let accountHint: Account?

    /// The underlying error: a ``RefreshError`` or a ``CredentialStoreError``.
    public let cause: (any Error)?

    init(
        _ code: Code,
        _ message: String,
        signInReason: SignInReason? = nil,
        accountHint: Account? = nil,
        cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.signInReason = signInReason
        self.accountHint = accountHint
        self.cause = cause
    }

    /// No record is stored: nobody signed in, or the user signed out.
    public static let notConnected = SessionError(.notConnected, "No account is connected")
    /// The grant is gone (revoked, expired, disabled); ``signInReason`` says why. The tokens were removed, the
    /// account hint kept.
    public static let needsSignIn = SessionError(.needsSignIn, "The user must sign in again")
    /// The provider could not be reached or failed transiently; the session and its tokens are kept. The cause
    /// is the last ``RefreshError``.
    public static let offline = SessionError(.offline, "The provider could not be reached")
    /// The secure store cannot be read yet or is damaged; the cause is the ``CredentialStoreError``. Nothing
    /// was deleted.
    public static let storageUnavailable = SessionError(.storageUnavailable, "The secure store is not available")
    /// The refresher or the store is configured wrongly; ``message`` says how.
    public static let misconfigured = SessionError(.misconfigured, "The session is misconfigured")
    /// A fresh token was obtained but lives shorter than the lifetime the caller asked for.
    public static let tokenLifetimeTooShort = SessionError(
        .tokenLifetimeTooShort,
        "The provider issues tokens that live shorter than the requested minimum"
    )

    /// The same kind of error with a specific message and cause.
    /// - Parameters:
    ///   - message: One sentence, without secrets.
    ///   - cause: The underlying error; the current one when `nil`.
    /// - Returns: A copy carrying the details.
    public func with(message: String, cause: (any Error)? = nil) -> SessionError {
        SessionError(code, message, signInReason: signInReason, accountHint: accountHint, cause: cause ?? self.cause)
    }

    /// Whether the user must sign in again before this connection works.
    public var requiresReauthentication: Bool { code == .needsSignIn || code == .notConnected }

    /// The type and the message: `SessionError: message`.
    public var description: String { "SessionError: \(message)" }

    /// Errors are equal when their codes are, whatever their messages and causes.
    public static func == (lhs: SessionError, rhs: SessionError) -> Bool { lhs.code == rhs.code }

    /// Lets `switch` and `catch` match on the code: `case .offline:`.
    public static func ~= (lhs: SessionError, rhs: any Error) -> Bool {
        (rhs as? SessionError)?.code == lhs.code
    }
}
