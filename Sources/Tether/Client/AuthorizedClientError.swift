/// A failed API call through an ``AuthorizedClient``. It never contains a token, a header or a query string.
///
/// Match it like an enum: `catch let error as AuthorizedClientError where error == .forbidden`, or
/// `switch error { case .unauthorized: … }` (see <doc:Errors>).
public struct AuthorizedClientError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case unauthorized
        case forbidden
        case server
        case transport
        case decoding
    }

    let code: Code

    /// What went wrong, in one sentence, without secrets.
    public let message: String
    /// The HTTP status, when there was a response.
    public let httpStatus: Int?
    /// For ``unauthorized``: whether the session now needs sign-in (the grant is gone), as opposed to a server
    /// that keeps rejecting valid tokens.
    public let requiresSignIn: Bool
    /// For ``forbidden``: the scope the resource asked for, if it said.
    public let scope: String?
    /// A short message from a JSON error body, if there was one.
    public let serverMessage: String?
    /// The parsed `WWW-Authenticate` challenge of a 401, if any.
    public let challenge: AuthenticationChallenge?
    /// `Retry-After`, if the server sent one.
    public let retryAfter: Duration?
    /// The underlying error, if any.
    public let cause: (any Error)?

    init(
        _ code: Code,
        _ message: String,
        httpStatus: Int? = nil,
        requiresSignIn: Bool = false,
        scope: String? = nil,
        serverMessage: String? = nil,
        challenge: AuthenticationChallenge? = nil,
        retryAfter: Duration? = nil,
        cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
        self.requiresSignIn = requiresSignIn
        self.scope = scope
        self.serverMessage = serverMessage
        self.challenge = challenge
        self.retryAfter = retryAfter
        self.cause = cause
    }

    /// The server rejected the token, even after one refresh; see ``requiresSignIn``.
    public static let unauthorized = AuthorizedClientError(.unauthorized, "The server rejected the access token")
    /// The server refused: the token lacks a scope (see ``scope``) or the user lacks permission.
    public static let forbidden = AuthorizedClientError(.forbidden, "The server refused the request")
    /// The server answered with another error status (see ``httpStatus`` and ``serverMessage``).
    public static let server = AuthorizedClientError(.server, "The server answered with an error")
    /// No response arrived; the cause is a ``TransportError``.
    public static let transport = AuthorizedClientError(.transport, "The server could not be reached")
    /// The response body did not decode.
    public static let decoding = AuthorizedClientError(.decoding, "The response could not be decoded")

    /// The same kind of error with a specific message and cause.
    /// - Parameters:
    ///   - message: One sentence, without secrets.
    ///   - cause: The underlying error; the current one when `nil`.
    /// - Returns: A copy carrying the details.
    public func with(message: String, cause: (any Error)? = nil) -> AuthorizedClientError {
        AuthorizedClientError(
            code,
            message,
            httpStatus: httpStatus,
            requiresSignIn: requiresSignIn,
            scope: scope,
            serverMessage: serverMessage,
            challenge: challenge,
            retryAfter: retryAfter,
            cause: cause ?? self.cause
        )
    }

    /// The same kind of error with the details of one response.
    func with(
        message: String,
        httpStatus: Int? = nil,
        requiresSignIn: Bool = false,
        scope: String? = nil,
        serverMessage: String? = nil,
        challenge: AuthenticationChallenge? = nil,
        retryAfter: Duration? = nil,
        cause: (any Error)? = nil
    ) -> AuthorizedClientError {
        AuthorizedClientError(
            code,
            message,
            httpStatus: httpStatus,
            requiresSignIn: requiresSignIn,
            scope: scope,
            serverMessage: serverMessage,
            challenge: challenge,
            retryAfter: retryAfter,
            cause: cause
        )
    }

    /// The type and the message: `AuthorizedClientError: message`.
    public var description: String { "AuthorizedClientError: \(message)" }

    /// Errors are equal when their codes are, whatever their messages and causes.
    public static func == (lhs: AuthorizedClientError, rhs: AuthorizedClientError) -> Bool { lhs.code == rhs.code }

    /// Lets `switch` and `catch` match on the code: `case .forbidden:`.
    public static func ~= (lhs: AuthorizedClientError, rhs: any Error) -> Bool {
        (rhs as? AuthorizedClientError)?.code == lhs.code
    }
}
