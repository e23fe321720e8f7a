import Foundation
public import Tether

/// Why a calendar source could not load. It never contains a token, a header, a query string or event data.
///
/// Match it like an enum: `catch let error as CalendarError where error == .accessDenied`, or
/// `switch error { case .needsSignIn: … }`.
public struct CalendarError: TetherError {
    /// The code, the message and the cause (an `AuthorizedClientError`, a `SessionError`, a `DecodingError`).
    public var details: TetherErrorDetails
    /// The HTTP status, when a response arrived.
    public private(set) var httpStatus: Int?
    /// The provider's error reason or code (Google `errors[].reason`, Graph `error.code`), when it sent one.
    public private(set) var providerReason: String?
    /// How long the provider asked to wait (`Retry-After`), when it did.
    public private(set) var retryAfter: Duration?
    /// For ``needsSignIn``: the account to preselect when signing in again.
    public private(set) var accountHint: Account?

    init(_ code: String, _ message: String) { details = TetherErrorDetails(code, message) }

    /// The grant is gone (revoked, expired, never given): the user must sign in again; see ``accountHint``.
    public static let needsSignIn = CalendarError("needsSignIn", "The account must be signed in again")
    /// The account is signed in but may not read calendars: the calendar scope was not granted (Google `403`,
    /// Graph `403`), or calendar access was denied on the device.
    public static let accessDenied = CalendarError("accessDenied", "Calendar access was denied")
    /// The service could not be reached, or answered with a server error; the cause says which. Transient.
    public static let offline = CalendarError("offline", "The calendar service could not be reached")
    /// The service kept answering with a rate limit after the bounded retries (Google `403 rateLimitExceeded`
    /// or `userRateLimitExceeded`, `429`; Graph `429`, `503`). Transient.
    public static let rateLimited = CalendarError("rateLimited", "The calendar service is limiting requests")
    /// The credential store cannot be read yet (before first unlock) or is damaged; nothing was deleted.
    public static let storageUnavailable = CalendarError(
        "storageUnavailable",
        "The credential store is not available"
    )
    /// The connection or source is configured wrongly.
    public static let misconfigured = CalendarError("misconfigured", "The calendar source is misconfigured")
    /// The service answered with an error that is none of the above; see ``httpStatus`` and ``providerReason``.
    public static let api = CalendarError("api", "The calendar service answered with an error")
    /// A response was not the JSON the API documents (a whole page; single malformed events are skipped and
    /// reported instead).
    public static let decoding = CalendarError("decoding", "The calendar service's answer could not be read")
    /// The sync token or delta link is no longer valid (`410 Gone`, `fullSyncRequired`, `syncStateNotFound`).
    /// Sources handle it by syncing in full; it reaches callers only from the low-level client calls.
    public static let syncStateExpired = CalendarError(
        "syncStateExpired",
        "The sync state expired; a full sync is required"
    )

    /// Whether retrying later may succeed without the user: ``offline``, ``rateLimited``, ``storageUnavailable``.
    public var isTransient: Bool { self == .offline || self == .rateLimited || self == .storageUnavailable }

    /// The same kind of error with other details.
    func with(
        message: String,
        httpStatus: Int? = nil,
        providerReason: String? = nil,
        retryAfter: Duration? = nil,
        accountHint: Account? = nil,
        cause: (any Error)? = nil
    ) -> CalendarError {
        var copy = self
        copy.details = TetherErrorDetails(details.code, message, cause: cause)
        copy.httpStatus = httpStatus
        copy.providerReason = providerReason
        copy.retryAfter = retryAfter
        copy.accountHint = accountHint
        return copy
    }
}

/// Why one event could not be read. The event is skipped and reported in the fetch result; the others load.
public struct CalendarDecodingError: TetherError {
    /// The code and the message: what is wrong, in one sentence, naming the field but never its personal content.
    public var details: TetherErrorDetails
    /// The path of the field at fault within the event, such as `start.dateTime`, when one is known. Names of the
    /// API's fields only, never their content.
    public private(set) var field: String?
    /// What the field should have held, such as "a string" or "an object", when the event had a value of another
    /// JSON type there.
    public private(set) var expectedType: String?

    init(_ code: String, _ message: String) { details = TetherErrorDetails(code, message) }

    /// The same kind of error, naming the field at fault and what it should have held.
    func with(message: String, field: String?, expectedType: String? = nil) -> CalendarDecodingError {
        var copy = with(message: message)
        copy.field = field
        copy.expectedType = expectedType
        return copy
    }

    /// The kind of error with this code, for an error read back from the cache.
    static func code(_ code: String) -> CalendarDecodingError {
        [malformedEvent, missingField, unknownTimeZone, invalidDate].first { $0.details.code == code } ?? malformedEvent
    }

    /// The code, as written in the cache.
    var code: String { details.code }

    /// The event is not a JSON object of the documented shape.
    public static let malformedEvent = CalendarDecodingError("malformedEvent", "The event is malformed")
    /// A field every event needs (identifier, start, end) is missing.
    public static let missingField = CalendarDecodingError("missingField", "The event lacks a required field")
    /// The event's times are in a time zone this system does not know, so its instants cannot be computed.
    public static let unknownTimeZone = CalendarDecodingError("unknownTimeZone", "The event's time zone is unknown")
    /// A date or time is not in the documented form.
    public static let invalidDate = CalendarDecodingError("invalidDate", "The event has an invalid date")
}

/// An event that was left out, and why. It holds identifiers and the reason only, never the event's content.
public struct SkippedEvent: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The source.
    public var source: CalendarSourceID
    /// The calendar.
    public var calendarID: String
    /// The event's identifier, when it could be read.
    public var eventID: String?
    /// Why it was left out.
    public var reason: CalendarDecodingError

    /// Creates a record of a skipped event.
    /// - Parameters:
    ///   - source: The source.
    ///   - calendarID: The calendar.
    ///   - eventID: The event's identifier, if known.
    ///   - reason: Why.
    public init(source: CalendarSourceID, calendarID: String, eventID: String?, reason: CalendarDecodingError) {
        self.source = source
        self.calendarID = calendarID
        self.eventID = eventID
        self.reason = reason
    }

    /// Equal when every field is, the reason compared by kind and message.
    public static func == (lhs: SkippedEvent, rhs: SkippedEvent) -> Bool {
        lhs.source == rhs.source && lhs.calendarID == rhs.calendarID && lhs.eventID == rhs.eventID
            && lhs.reason == rhs.reason && lhs.reason.message == rhs.reason.message
    }

    /// Hashes the identifying fields.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(source)
        hasher.combine(calendarID)
        hasher.combine(eventID)
        hasher.combine(reason.message)
    }

    /// `source/calendar/id: reason`.
    public var description: String { "\(source)/\(calendarID)/\(eventID ?? "?"): \(reason.message)" }

    private enum CodingKeys: String, CodingKey {
        case source, calendarID, eventID, reason, message, field, expectedType
    }

    /// Reads a record kept in the calendar cache.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        source = try container.decode(CalendarSourceID.self, forKey: .source)
        calendarID = try container.decode(String.self, forKey: .calendarID)
        eventID = try container.decodeIfPresent(String.self, forKey: .eventID)
        let kind = CalendarDecodingError.code(try container.decode(String.self, forKey: .reason))
        reason = kind.with(
            message: try container.decodeIfPresent(String.self, forKey: .message) ?? kind.message,
            field: try container.decodeIfPresent(String.self, forKey: .field),
            expectedType: try container.decodeIfPresent(String.self, forKey: .expectedType)
        )
    }

    /// Writes the record for the calendar cache: identifiers, the reason's code, message, field and expected type.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(source, forKey: .source)
        try container.encode(calendarID, forKey: .calendarID)
        try container.encodeIfPresent(eventID, forKey: .eventID)
        try container.encode(reason.code, forKey: .reason)
        try container.encode(reason.message, forKey: .message)
        try container.encodeIfPresent(reason.field, forKey: .field)
        try container.encodeIfPresent(reason.expectedType, forKey: .expectedType)
    }
}
