public import Tether

/// A failure to show the authorization page or to receive its redirect. It never contains a secret.
///
/// Match it like an enum: `catch let error as AuthorizationPresentationError where error == .cancelled`, or
/// `switch error { case .timedOut: … }` (see "Errors" in the Tether documentation).
public struct AuthorizationPresentationError: TetherError {
    /// The code, the message and the cause.
    public var details: TetherErrorDetails

    init(_ code: String, _ message: String) { details = TetherErrorDetails(code, message) }

    /// The user closed the page or the caller cancelled.
    public static let cancelled = AuthorizationPresentationError("cancelled", "The sign-in was cancelled")
    /// No redirect arrived in time.
    public static let timedOut = AuthorizationPresentationError("timedOut", "The sign-in timed out")
    /// The loopback listener could not bind a port.
    public static let cannotListen = AuthorizationPresentationError(
        "cannotListen",
        "Could not listen for the redirect on 127.0.0.1"
    )
    /// No browser could be opened.
    public static let cannotOpenBrowser = AuthorizationPresentationError(
        "cannotOpenBrowser",
        "Could not open a browser"
    )
    /// The command in `BROWSER` could not start or exited with a failure status, so nobody will see the page;
    /// the message names the command (never the URL).
    public static let browserCommandFailed = AuthorizationPresentationError(
        "browserCommandFailed",
        "The BROWSER command failed"
    )
    /// Too many callbacks arrived whose `state` did not match the sign-in in progress (another local process
    /// is sending forged redirects); the loopback listener gave up.
    public static let tooManyRejectedCallbacks = AuthorizationPresentationError(
        "tooManyRejectedCallbacks",
        "Too many sign-in callbacks did not match the sign-in in progress"
    )
    /// The system's web authentication session failed for a reason other than the user cancelling or a missing
    /// window (`ASWebAuthenticationSession` reported another error); the message names the error's domain and code.
    public static let webAuthenticationFailed = AuthorizationPresentationError(
        "webAuthenticationFailed",
        "The web authentication session failed"
    )
    /// The presenter cannot receive redirects to this URI.
    public static let unsupportedRedirect = AuthorizationPresentationError(
        "unsupportedRedirect",
        "This presenter cannot receive that redirect URI"
    )
}
