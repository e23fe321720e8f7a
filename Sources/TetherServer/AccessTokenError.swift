/// A bearer token a resource server refused, or could not check: the RFC 6750 §3 error to answer with.
///
/// It never contains the token. ``description`` and ``errorDescription`` are constant sentences, safe to put in a
/// `WWW-Authenticate` header.
public struct AccessTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case missing
        case expired
        case invalid
        case keysUnavailable
    }

    let code: Code

    /// The sentence for `error_description`.
    public let errorDescription: String

    /// The underlying error (a `TetherOAuth.IDTokenError`), if any.
    public let cause: (any Error)?

    init(_ code: Code, _ description: String, cause: (any Error)? = nil) {
        self.code = code
        self.errorDescription = description
        self.cause = cause
    }

    /// The request carried no bearer token (RFC 6750 §3.1: the challenge then has no error code).
    public static let missing = AccessTokenError(.missing, "The request has no bearer token")
    /// The token has expired; the client should refresh it and retry.
    public static let expired = AccessTokenError(.expired, "The access token expired")
    /// The token is not acceptable: malformed, badly signed, for another audience or issuer, … The
    /// ``errorDescription`` says which; the cause is attached.
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

    func with(description: String, cause: (any Error)?) -> AccessTokenError {
        AccessTokenError(code, description, cause: cause)
    }

    /// The description.
    public var description: String { "AccessTokenError: \(errorDescription)" }

    /// Errors are equal when their kinds are.
    public static func == (lhs: AccessTokenError, rhs: AccessTokenError) -> Bool { lhs.code == rhs.code }

    /// Lets `switch` and `catch` match on the kind.
    public static func ~= (lhs: AccessTokenError, rhs: any Error) -> Bool {
        (rhs as? AccessTokenError)?.code == lhs.code
    }
}
