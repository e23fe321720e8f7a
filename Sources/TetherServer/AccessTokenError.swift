/// A bearer token a resource server refused, or could not check: the RFC 6750 §3 error to answer with.
///
/// It never contains the token. ``message`` is a constant sentence, safe to put in a `WWW-Authenticate` header's
/// `error_description`.
///
/// Match it like an enum: `catch let error as AccessTokenError where error == .expired`, or
/// `switch error { case .keysUnavailable: … }` (see "Errors" in the Tether documentation).
public struct AccessTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case missing
        case expired
        case invalid
        case keysUnavailable
    }

    let code: Code

    /// What went wrong, in one sentence, without the token; the sentence for `error_description`.
    public let message: String

    /// The underlying error (a `TetherOAuth.IDTokenError`), if any.
    public let cause: (any Error)?

    init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The request carried no bearer token (RFC 6750 §3.1: the challenge then has no error code).
    public static let missing = AccessTokenError(.missing, "The request has no bearer token")
    /// The token has expired; the client should refresh it and retry.
    public static let expired = AccessTokenError(.expired, "The access token expired")
    /// The token is not acceptable: malformed, badly signed, for another audience or issuer, … The
    /// ``message`` says which; the cause is attached.
    public static let invalid = AccessTokenError(.invalid, "The access token is not valid")
    /// The issuer's keys could not be fetched, so the token could not be checked. Transient; not the client's
    /// fault.
    public static let keysUnavailable = AccessTokenError(
        .keysUnavailable,
        "The token could not be checked; try again later"
    )

    /// The RFC 6750 `error` code: `invalid_token`, or `nil` for ``missing`` and ``keysUnavailable``.
    public var rfc6750Error: String? {
        switch code {
        case .expired, .invalid: "invalid_token"
        case .missing, .keysUnavailable: nil
        }
    }

    /// Whether checking again later may succeed with the same token (``keysUnavailable``).
    public var isTransient: Bool { code == .keysUnavailable }

    /// The same kind of error with a specific message and cause.
    /// - Parameters:
    ///   - message: One sentence, without secrets.
    ///   - cause: The underlying error; the current one when `nil`.
    /// - Returns: A copy carrying the details.
    public func with(message: String, cause: (any Error)? = nil) -> AccessTokenError {
        AccessTokenError(code, message, cause: cause ?? self.cause)
    }

    /// The type and the message: `AccessTokenError: message`.
    public var description: String { "AccessTokenError: \(message)" }

    /// Errors are equal when their codes are, whatever their messages and causes.
    public static func == (lhs: AccessTokenError, rhs: AccessTokenError) -> Bool { lhs.code == rhs.code }

    /// Lets `switch` and `catch` match on the code: `case .expired:`.
    public static func ~= (lhs: AccessTokenError, rhs: any Error) -> Bool {
        (rhs as? AccessTokenError)?.code == lhs.code
    }
}
