/// A classified refresh failure: what a ``TokenRefresher`` throws so that a ``Session`` knows what to do. It never
/// contains a secret.
///
/// Unlike Tether's other errors (see <doc:Errors>), a refresh error is built by whoever implements a refresher,
/// and its ``Kind`` is a closed set a session switches on, so both are public. OAuth clients classify their own
/// errors with the same ``Kind`` (see ``RefreshErrorConvertible``), so the two cannot drift apart. Two refresh errors
/// are equal when all their values are, because ``ConnectionStatus/offline(account:nextAttempt:lastError:)``
/// carries one and a new message is a new status.
public struct RefreshError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What a failure means for a session.
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
    /// Whether the request may have reached the provider and been processed although no usable answer came back:
    /// a timeout, a connection dropped after the request was sent, a 5xx. A refresh like that may have rotated the
    /// refresh token, so a ``Session`` retries it promptly (within the provider's reuse grace period) and, when a
    /// retry then hears `invalid_grant`, reports ``SignInReason/refreshAnswerLost`` instead of a plain revocation.
    /// Always `false` for failures that are not transient.
    public let isOutcomeUnknown: Bool

    /// Creates an error.
    /// - Parameters:
    ///   - kind: The class of failure.
    ///   - message: One sentence without secrets.
    ///   - retryAfter: How long the provider asked to wait.
    ///   - isOutcomeUnknown: Whether the provider may have processed the request (transient failures only).
    public init(kind: Kind, message: String, retryAfter: Duration? = nil, isOutcomeUnknown: Bool = false) {
        self.kind = kind
        self.message = message
        self.retryAfter = retryAfter
        self.isOutcomeUnknown = kind == .transient && isOutcomeUnknown
    }

    /// A transient failure.
    /// - Parameters:
    ///   - message: One sentence without secrets.
    ///   - retryAfter: How long the provider asked to wait.
    ///   - isOutcomeUnknown: Whether the provider may have processed the request although no usable answer came
    ///     back (a timeout, a connection lost after sending, a 5xx); `false` when it certainly did not (the server
    ///     could not be reached, or it refused with `429`).
    /// - Returns: The error.
    public static func transient(
        _ message: String,
        retryAfter: Duration? = nil,
        isOutcomeUnknown: Bool = false
    ) -> RefreshError {
        RefreshError(kind: .transient, message: message, retryAfter: retryAfter, isOutcomeUnknown: isOutcomeUnknown)
    }

    /// A permanent failure: the user must sign in again.
    /// - Parameters:
    ///   - reason: Why the grant is gone.
    ///   - message: One sentence without secrets.
    /// - Returns: The error.
    public static func permanent(_ reason: SignInReason, _ message: String) -> RefreshError {
        RefreshError(kind: .permanent(reason), message: message)
    }

    /// A configuration failure.
    /// - Parameter message: One sentence without secrets.
    /// - Returns: The error.
    public static func configuration(_ message: String) -> RefreshError {
        RefreshError(kind: .configuration, message: message)
    }

    /// Whether retrying later may succeed.
    public var isTransient: Bool { kind == .transient }

    /// The type and the message: `RefreshError: message`.
    public var description: String { "RefreshError: \(message)" }
}

extension RefreshError.Kind {
    /// The kind a failure has when nothing but its retry verdict is known (no OAuth error code in the answer): a
    /// failure worth retrying is ``transient``, one that would repeat is ``configuration``. Only an OAuth error code
    /// can say that a grant is gone (``permanent(_:)``), so a verdict never does.
    /// - Parameter verdict: What ``FailureClassifier`` says about retrying.
    package init(_ verdict: FailureClassifier.Verdict) {
        self = verdict.isTransient ? .transient : .configuration
    }
}
