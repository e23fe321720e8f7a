/// A failed API call through an ``AuthorizedClient``. It never contains a token, a header or a query string.
///
/// Match it like an enum: `catch let error as AuthorizedClientError where error == .forbidden`, or
/// `switch error { case .unauthorized: … }` (see <doc:Errors>).
public struct AuthorizedClientError: TetherError {
    /// The code, the message and the cause.
    public var details: TetherErrorDetails
    /// The HTTP status, when there was a response.
    public private(set) var httpStatus: Int?
    /// For ``unauthorized``: whether the session now needs sign-in (the grant is gone), as opposed to a server
    /// that keeps rejecting valid tokens.
    public private(set) var requiresSignIn = false
    /// For ``unauthorized`` with ``requiresSignIn``: why the grant ended, in plain words with what to do, as the
    /// provider's refusal of the refresh said it (see ``SignInReason``); `nil` when it is not known.
    public private(set) var signInReason: SignInReason?
    /// For ``forbidden``: the scope the resource asked for, if it said.
    public private(set) var scope: String?
    /// A short message from a JSON error body, if there was one.
    public private(set) var serverMessage: String?
    /// The reasons a JSON error body gives, in order, such as `rateLimitExceeded` or `ErrorAccessDenied`: Google
    /// APIs' `error.errors[].reason` and `error.status`, Microsoft Graph's `error.code` and `error.innerError.code`.
    /// At most 8, each without control characters and at most 200 characters long; empty without such a body.
    public private(set) var providerReasons: [String] = []
    /// The parsed `WWW-Authenticate` challenge of a 401, if any.
    public private(set) var challenge: AuthenticationChallenge?
    /// `Retry-After` in seconds (RFC 9110 §10.2.3), if the server sent one; a date is left out. At most one day.
    public private(set) var retryAfter: Duration?

    init(_ code: String, _ message: String) { details = TetherErrorDetails(code, message) }

    private init(details: TetherErrorDetails) { self.details = details }

    /// The server rejected the token, even after one refresh; see ``requiresSignIn``.
    public static let unauthorized = AuthorizedClientError("unauthorized", "The server rejected the access token")
    /// The server answered `403`: the token lacks a scope (see ``scope``), the user lacks permission, or a rate
    /// limit the API signals with `403` was still in force after the retries (see ``providerReasons``).
    public static let forbidden = AuthorizedClientError("forbidden", "The server refused the request")
    /// The server answered with another error status (see ``httpStatus`` and ``serverMessage``).
    public static let server = AuthorizedClientError("server", "The server answered with an error")
    /// No response arrived; the cause is a ``TransportError``.
    public static let transport = AuthorizedClientError("transport", "The server could not be reached")
    /// The request was not sent: it is plain `http` to a host other than loopback, where the bearer token could
    /// be read on the way. Use `https`.
    public static let insecureTransport = AuthorizedClientError(
        "insecureTransport",
        "The request would send the token over plain HTTP"
    )
    /// The response body did not decode.
    public static let decoding = AuthorizedClientError("decoding", "The response could not be decoded")

    /// The same kind of error with the details of one response.
    package func with(
        message: String,
        httpStatus: Int? = nil,
        requiresSignIn: Bool = false,
        signInReason: SignInReason? = nil,
        scope: String? = nil,
        serverMessage: String? = nil,
        providerReasons: [String] = [],
        challenge: AuthenticationChallenge? = nil,
        retryAfter: Duration? = nil,
        cause: (any Error)? = nil
    ) -> AuthorizedClientError {
        var copy = AuthorizedClientError(details: TetherErrorDetails(details.code, message, cause: cause))
        copy.httpStatus = httpStatus
        copy.requiresSignIn = requiresSignIn
        copy.signInReason = signInReason
        copy.scope = scope
        copy.serverMessage = serverMessage
        copy.providerReasons = providerReasons
        copy.challenge = challenge
        copy.retryAfter = retryAfter
        return copy
    }
}
