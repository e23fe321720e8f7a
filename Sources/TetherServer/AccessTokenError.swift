public import Tether

/// A bearer token a resource server refused, or could not check: the RFC 6750 §3 error to answer with.
///
/// It never contains the token. ``message`` is a constant sentence, safe to put in a `WWW-Authenticate` header's
/// `error_description`.
///
/// Match it like an enum: `catch let error as AccessTokenError where error == .expired`, or
/// `switch error { case .keysUnavailable: … }` (see "Errors" in the Tether documentation).
public struct AccessTokenError: TetherError {
    /// The code, the message and the cause.
    public var details: TetherErrorDetails

    init(_ code: String, _ message: String) { details = TetherErrorDetails(code, message) }

    /// The request carried no bearer token (RFC 6750 §3.1: the challenge then has no error code).
    public static let missing = AccessTokenError("missing", "The request has no bearer token")
    /// The token has expired; the client should refresh it and retry.
    public static let expired = AccessTokenError("expired", "The access token expired")
    /// The token is not acceptable: malformed, badly signed, for another audience or issuer, … The
    /// ``message`` says which; the cause is attached.
    public static let invalid = AccessTokenError("invalid", "The access token is not valid")
    /// The issuer's keys could not be fetched, so the token could not be checked. Transient; not the client's
    /// fault.
    public static let keysUnavailable = AccessTokenError(
        "keysUnavailable",
        "The token could not be checked; try again later"
    )

    /// The RFC 6750 `error` code: `invalid_token`, or `nil` for ``missing`` and ``keysUnavailable``.
    public var rfc6750Error: String? {
        switch self {
        case .expired, .invalid: "invalid_token"
        default: nil
        }
    }

    /// Whether checking again later may succeed with the same token (``keysUnavailable``).
    public var isTransient: Bool { self == .keysUnavailable }
}
