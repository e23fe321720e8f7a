public import Foundation

/// What a settings screen can truthfully show about a connection.
///
/// A ``Session`` derives the status from its stored record, the clock and the outcome of the last refresh; it is
/// never stored as a flag. `connected` therefore means "a usable grant is stored": either an access token that
/// has not expired, or a refresh token that will get a new one.
public enum ConnectionStatus: Sendable, Equatable, CustomStringConvertible {
    /// No record is stored.
    case notConnected
    /// The session is reading its record at launch, or has not read it yet.
    case restoring
    /// A usable grant is stored. `until` is when the current access token expires (`nil` if unknown); a
    /// refresh token, if present, extends it.
    case connected(account: Account, until: Date?)
    /// A refresh is in flight.
    case refreshing(account: Account)
    /// The provider could not be reached or answered with a transient failure. The session and its tokens are
    /// kept; `nextAttempt` is when a retry is due (`nil` when the next call will retry).
    case offline(account: Account, nextAttempt: Date?, lastError: RefreshError)
    /// The secure store cannot be read yet (before first unlock, app prewarming), is damaged, or refused to store
    /// refreshed tokens; or the refresh token is kept behind the user's presence and the user canceled the prompt
    /// (``CredentialStoreError/locked``: asked again at the next refresh). Never the same as signed out: nothing was
    /// deleted. In the last case the session keeps the
    /// new tokens in memory, still hands them out, and writes them on the next call until the store takes them.
    case storageUnavailable(CredentialStoreError)
    /// The grant is gone; the user must sign in again. `accountHint` names the account to preselect.
    case needsSignIn(reason: SignInReason, accountHint: Account?)
    /// The session is configured wrongly; `problem` says how.
    case misconfigured(problem: String)

    /// Whether the connection can produce an access token without the user.
    public var isConnected: Bool {
        switch self {
        case .connected, .refreshing, .offline: true
        default: false
        }
    }

    /// The account concerned, if known.
    public var account: Account? {
        switch self {
        case .connected(let account, _), .refreshing(let account), .offline(let account, _, _): account
        case .needsSignIn(_, let hint): hint
        default: nil
        }
    }

    /// A short, secret-free summary such as `connected(Account(google, j***@example.com))`.
    public var description: String {
        switch self {
        case .notConnected: "notConnected"
        case .restoring: "restoring"
        case .connected(let account, _): "connected(\(account))"
        case .refreshing(let account): "refreshing(\(account))"
        case .offline(let account, _, let error): "offline(\(account), \(error.message))"
        case .storageUnavailable(let error): "storageUnavailable(\(error.message))"
        case .needsSignIn(let reason, _): "needsSignIn(\(reason))"
        case .misconfigured(let problem): "misconfigured(\(problem))"
        }
    }

    /// The case without its values, for comparing sequences of statuses.
    public var kind: Kind {
        switch self {
        case .notConnected: .notConnected
        case .restoring: .restoring
        case .connected: .connected
        case .refreshing: .refreshing
        case .offline: .offline
        case .storageUnavailable: .storageUnavailable
        case .needsSignIn: .needsSignIn
        case .misconfigured: .misconfigured
        }
    }

    /// The cases of ``ConnectionStatus`` without their values.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// See ``ConnectionStatus/notConnected``.
        case notConnected
        /// See ``ConnectionStatus/restoring``.
        case restoring
        /// See ``ConnectionStatus/connected(account:until:)``.
        case connected
        /// See ``ConnectionStatus/refreshing(account:)``.
        case refreshing
        /// See ``ConnectionStatus/offline(account:nextAttempt:lastError:)``.
        case offline
        /// See ``ConnectionStatus/storageUnavailable(_:)``.
        case storageUnavailable
        /// See ``ConnectionStatus/needsSignIn(reason:accountHint:)``.
        case needsSignIn
        /// See ``ConnectionStatus/misconfigured(problem:)``.
        case misconfigured
    }
}

/// Why a user must sign in again.
///
/// ``code`` is one of a few stable values to branch on (the static members); ``message`` is for a person and says
/// what happened and what to do, in the words of what the provider sent when it is known: an OAuth client gives,
/// for example, "Microsoft revoked the sign-in, as it does after the account's password is changed or reset; sign
/// in again with the current password (AADSTS50173)" with the code of ``grantRevoked``. Two reasons are equal when
/// their codes are.
public struct SignInReason: Sendable, Hashable, CustomStringConvertible {
    /// A stable code such as `grant_revoked`.
    public let code: String
    /// One sentence for a person, without secrets.
    public let message: String

    /// Creates a reason.
    /// - Parameters:
    ///   - code: A stable code.
    ///   - message: One sentence for a person.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// The provider rejected the refresh token (`invalid_grant`): revoked, expired or reused.
    public static let grantRevoked = SignInReason(
        code: "grant_revoked",
        message: "The provider no longer accepts this sign-in"
    )
    /// A refresh got no usable answer (a timeout, a connection dropped after the request was sent, a 5xx), and the
    /// retry with the same refresh token was refused with `invalid_grant`: the provider most likely rotated the
    /// refresh token on the first request and, with reuse detection, revoked the grant when the old one came back.
    /// A provider's reuse grace period (Okta, Auth0) lets such a retry succeed instead.
    public static let refreshAnswerLost = SignInReason(
        code: "refresh_answer_lost",
        message: "The provider may have rotated the refresh token but its answer was lost"
    )
    /// The access token expired and there is no refresh token to renew it.
    public static let sessionExpired = SignInReason(
        code: "session_expired",
        message: "The sign-in expired and cannot be renewed"
    )
    /// The refresh token was kept behind the device's current Face ID or Touch ID enrolment, and the enrolment
    /// changed (a face or finger added or removed), which invalidated it: the app must let the user sign in again,
    /// so that a newly enrolled person does not inherit the sign-in.
    public static let biometryChanged = SignInReason(
        code: "biometry_changed",
        message: "The device's Face ID or Touch ID changed, so the saved sign-in can no longer be unlocked; sign in "
            + "again"
    )
    /// The refresh token was kept behind the user's presence and can no longer be unlocked: the device's passcode
    /// was removed, or its biometry was reset.
    public static let protectionLost = SignInReason(
        code: "protection_lost",
        message: "The device's passcode or biometry changed, so the saved sign-in can no longer be unlocked; sign in "
            + "again"
    )
    /// The provider disabled the user.
    public static let userDisabled = SignInReason(code: "user_disabled", message: "The account was disabled")
    /// The provider requires the user to interact (consent, multi-factor, password change).
    public static let interactionRequired = SignInReason(
        code: "interaction_required",
        message: "The provider needs the user to sign in again"
    )

    /// Equal when the codes are.
    public static func == (lhs: SignInReason, rhs: SignInReason) -> Bool { lhs.code == rhs.code }
    /// Hashes the code.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    /// The code.
    public var description: String { code }
}
