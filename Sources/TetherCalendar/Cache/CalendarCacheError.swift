/// A failure of the ``CalendarCache``. It never contains event data or a key.
public struct CalendarCacheError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case corrupted
        case wrongKey
        case unsupportedFormat
        case io
    }

    let code: Code

    /// What went wrong, in one sentence.
    public let message: String
    /// The underlying error, if any.
    public let cause: (any Error)?

    init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The cache file is truncated, was changed, or is not a cache file; it was left untouched.
    public static let corrupted = CalendarCacheError(.corrupted, "The calendar cache file is damaged")
    /// The key does not open the cache file (another vault key); it was left untouched.
    public static let wrongKey = CalendarCacheError(.wrongKey, "The key does not open the calendar cache file")
    /// The file was written by a newer version; it was left untouched.
    public static let unsupportedFormat = CalendarCacheError(
        .unsupportedFormat,
        "The calendar cache file uses a newer format"
    )
    /// The file system failed.
    public static let io = CalendarCacheError(.io, "The calendar cache could not be accessed")

    func with(message: String, cause: (any Error)? = nil) -> CalendarCacheError {
        CalendarCacheError(code, message, cause: cause ?? self.cause)
    }

    /// The message.
    public var description: String { "CalendarCacheError: \(message)" }

    /// Errors are equal when their kinds are.
    public static func == (lhs: CalendarCacheError, rhs: CalendarCacheError) -> Bool { lhs.code == rhs.code }

    /// Lets `switch` and `catch` match on the kind.
    public static func ~= (lhs: CalendarCacheError, rhs: any Error) -> Bool {
        (rhs as? CalendarCacheError)?.code == lhs.code
    }
}
