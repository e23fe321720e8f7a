/// A failure to show the authorization page or to receive its redirect. It never contains a secret.
///
/// Match it like an enum: `catch let error as AuthorizationPresentationError where error == .cancelled`, or
/// `switch error { case .timedOut: … }` (see "Errors" in the Tether documentation).
public struct AuthorizationPresentationError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case cancelled
        case timedOut
        case cannotListen
        case cannotOpenBrowser
        case unsupportedRedirect
    }

    let code: Code

    /// What went wrong, in one sentence, without secrets.
    public let message: String

    /// The underlying error, if any.
    public let cause: (any Error)?

    init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The user closed the page or the caller cancelled.
    public static let cancelled = AuthorizationPresentationError(.cancelled, "The sign-in was cancelled")
    /// No redirect arrived in time.
    public static let timedOut = AuthorizationPresentationError(.timedOut, "The sign-in timed out")
    /// The loopback listener could not bind a port.
    public static let cannotListen = AuthorizationPresentationError(
        .cannotListen,
        "Could not listen for the redirect on 127.0.0.1"
    )
    /// No browser could be opened.
    public static let cannotOpenBrowser = AuthorizationPresentationError(
        .cannotOpenBrowser,
        "Could not open a browser"
    )
    /// The presenter cannot receive redirects to this URI.
    public static let unsupportedRedirect = AuthorizationPresentationError(
        .unsupportedRedirect,
        "This presenter cannot receive that redirect URI"
    )

    /// The same kind of error with a specific message and cause.
    /// - Parameters:
    ///   - message: One sentence, without secrets.
    ///   - cause: The underlying error; the current one when `nil`.
    /// - Returns: A copy carrying the details.
    public func with(message: String, cause: (any Error)? = nil) -> AuthorizationPresentationError {
        AuthorizationPresentationError(code, message, cause: cause ?? self.cause)
    }

    /// The type and the message: `AuthorizationPresentationError: message`.
    public var description: String { "AuthorizationPresentationError: \(message)" }

    /// Errors are equal when their codes are, whatever their messages and causes.
    public static func == (lhs: AuthorizationPresentationError, rhs: AuthorizationPresentationError) -> Bool {
        lhs.code == rhs.code
    }

    /// Lets `switch` and `catch` match on the code: `case .cancelled:`.
    public static func ~= (lhs: AuthorizationPresentationError, rhs: any Error) -> Bool {
        (rhs as? AuthorizationPresentationError)?.code == lhs.code
    }
}
