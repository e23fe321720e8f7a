/// A failure below HTTP: no response arrived. It never contains a header, a body or a query string.
///
/// Match it like an enum: `catch let error as TransportError where error == .timedOut`, or
/// `switch error { case .cannotConnect: … }` (see <doc:Errors>).
public struct TransportError: TetherError {
    /// The code, the message and the cause.
    public var details: TetherErrorDetails

    init(_ code: String, _ message: String) { details = TetherErrorDetails(code, message) }

    /// The server could not be reached (refused, unknown host, no network).
    public static let cannotConnect = TransportError("cannotConnect", "The server could not be reached")
    /// The request took longer than the transport's timeout.
    public static let timedOut = TransportError("timedOut", "The request timed out")
    /// The connection dropped before the response was complete.
    public static let connectionLost = TransportError("connectionLost", "The connection was lost")
    /// The request was cancelled.
    public static let cancelled = TransportError("cancelled", "The request was cancelled")
    /// The response body exceeded the transport's limit.
    public static let responseTooLarge = TransportError("responseTooLarge", "The response was too large")
    /// The request could not be sent as given (no scheme or host, say).
    public static let invalidRequest = TransportError("invalidRequest", "The request is invalid")
    /// Any other failure below HTTP.
    public static let other = TransportError("other", "The request failed")

    /// Whether retrying later may succeed: everything but an invalid request or an oversized response.
    public var isTransient: Bool { FailureClassifier.classify(self).isTransient }
}
