/// A failure below HTTP: no response arrived. It never contains a header, a body or a query string.
///
/// Match it like an enum: `catch let error as TransportError where error == .timedOut`, or
/// `switch error { case .cannotConnect: … }` (see <doc:Errors>).
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case cannotConnect
        case timedOut
        case connectionLost
        case cancelled
        case responseTooLarge
        case invalidRequest
        case other
    }

    let code: Code

    /// What went wrong, in one sentence, naming at most the host and path.
    public let message: String

    /// The underlying error, if any.
    public let cause: (any Error)?

    init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The server could not be reached (refused, unknown host, no network).
    public static let cannotConnect = TransportError(.cannotConnect, "The server could not be reached")
    /// The request took longer than the transport's timeout.
    public static let timedOut = TransportError(.timedOut, "The request timed out")
    /// The connection dropped before the response was complete.
    public static let connectionLost = TransportError(.connectionLost, "The connection was lost")
    /// The request was cancelled.
    public static let cancelled = TransportError(.cancelled, "The request was cancelled")
    /// The response body exceeded the transport's limit.
    public static let responseTooLarge = TransportError(.responseTooLarge, "The response was too large")
    /// The request could not be sent as given (no scheme or host, say).
    public static let invalidRequest = TransportError(.invalidRequest, "The request is invalid")
    /// Any other failure below HTTP.
    public static let other = TransportError(.other, "The request failed")

    /// The same kind of error with a specific message and cause.
    /// - Parameters:
    ///   - message: One sentence, naming at most the host and path.
    ///   - cause: The underlying error; the current one when `nil`.
    /// - Returns: A copy carrying the details.
    public func with(message: String, cause: (any Error)? = nil) -> TransportError {
        TransportError(code, message, cause: cause ?? self.cause)
    }

    /// Whether retrying later may succeed: everything but an invalid request or an oversized response.
    public var isTransient: Bool { RetryPolicy.classify(self).isTransient }

    /// The type and the message: `TransportError: message`.
    public var description: String { "TransportError: \(message)" }

    /// Errors are equal when their codes are, whatever their messages and causes.
    public static func == (lhs: TransportError, rhs: TransportError) -> Bool { lhs.code == rhs.code }

    /// Lets `switch` and `catch` match on the code: `case .timedOut:`.
    public static func ~= (lhs: TransportError, rhs: any Error) -> Bool {
        (rhs as? TransportError)?.code == lhs.code
    }
}
