public import Tether

/// A failure of the ``CalendarCache``. It never contains event data or a key.
public struct CalendarCacheError: TetherError {
    /// The code, the message and the cause.
    public var details: TetherErrorDetails

    init(_ code: String, _ message: String) { details = TetherErrorDetails(code, message) }

    /// The cache file is truncated, was changed, or is not a cache file; it was left untouched.
    public static let corrupted = CalendarCacheError("corrupted", "The calendar cache file is damaged")
    /// The key does not open the cache file (another vault key); it was left untouched.
    public static let wrongKey = CalendarCacheError("wrongKey", "The key does not open the calendar cache file")
    /// The file was written by a newer version; it was left untouched.
    public static let unsupportedFormat = CalendarCacheError(
        "unsupportedFormat",
        "The calendar cache file uses a newer format"
    )
    /// The file system failed.
    public static let io = CalendarCacheError("io", "The calendar cache could not be accessed")
}
