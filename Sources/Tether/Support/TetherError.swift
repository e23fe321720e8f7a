/// The shape every Tether error shares: a code behind static members, a message without secrets, and the error
/// underneath (see <doc:Errors>).
///
/// A conforming type keeps its ``details`` and declares one `public static let` per code. It gets `==` (on the
/// code), `~=` (so that `switch` and `catch` match any `Error` against a code), ``with(message:cause:)`` and a
/// `description` of `TypeName: message` from this protocol. ``RefreshError`` is the one error that does not conform,
/// on purpose: its kind is a public, closed enum.
public protocol TetherError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The code, the message and the cause. Set through ``with(message:cause:)``; the code never changes.
    var details: TetherErrorDetails { get set }
}

/// The parts every ``TetherError`` has. Only Tether creates them, so the set of codes stays each type's own.
public struct TetherErrorDetails: Sendable {
    /// Which of its type's static members the error is; compared by `==`, never shown.
    package let code: String
    /// What went wrong, in one sentence, without secrets.
    public let message: String
    /// The underlying error, if any.
    public let cause: (any Error)?

    package init(_ code: String, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }
}

extension TetherError {
    /// What went wrong, in one sentence, without secrets.
    public var message: String { details.message }

    /// The underlying error, if any.
    public var cause: (any Error)? { details.cause }

    /// The same kind of error, with everything else it carries, with a specific message and cause.
    /// - Parameters:
    ///   - message: One sentence, without secrets.
    ///   - cause: The underlying error; the current one when `nil`.
    /// - Returns: A copy carrying the details.
    public func with(message: String, cause: (any Error)? = nil) -> Self {
        var copy = self
        copy.details = TetherErrorDetails(details.code, message, cause: cause ?? details.cause)
        return copy
    }

    /// The type and the message: `TypeName: message`.
    public var description: String { "\(Self.self): \(message)" }

    /// Errors are equal when their codes are, whatever their messages, causes and other details.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.details.code == rhs.details.code }

    /// Lets `switch` and `catch` match any error on the code: `catch SessionError.needsSignIn`, `case .wrongKey:`.
    public static func ~= (lhs: Self, rhs: any Error) -> Bool {
        (rhs as? Self)?.details.code == lhs.details.code
    }
}
