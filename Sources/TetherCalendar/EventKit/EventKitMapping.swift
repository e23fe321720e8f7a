public import Foundation

/// The device calendar's authorization, as EventKit reports it (`EKAuthorizationStatus`,
/// <https://developer.apple.com/documentation/eventkit/ekauthorizationstatus>).
///
/// Kept apart from EventKit so that its meaning does not depend on the SDK; ``AppleCalendarSource`` reads the raw
/// value.
public enum EventKitAuthorization: Sendable, Hashable, CaseIterable {
    /// The user has not been asked yet.
    case notDetermined
    /// Access is restricted (parental controls, device management); the user cannot grant it.
    case restricted
    /// The user denied access.
    case denied
    /// The app may read and write events (`fullAccess`; `authorized` before iOS 17 and macOS 14).
    case fullAccess
    /// The app may add events but not read them (iOS 17, macOS 14).
    case writeOnly

    /// Reads `EKAuthorizationStatus.rawValue`: 0 not determined, 1 restricted, 2 denied, 3 full access
    /// (`authorized`), 4 write only. An unknown value is taken as denied, which never shows events it may not.
    /// - Parameter rawValue: The raw value.
    public init(eventKitRawValue rawValue: Int) {
        switch rawValue {
        case 0: self = .notDetermined
        case 1: self = .restricted
        case 3: self = .fullAccess
        case 4: self = .writeOnly
        default: self = .denied
        }
    }

    /// The source status it means: only full access reads events.
    public var sourceStatus: CalendarSourceStatus {
        switch self {
        case .notDetermined: .notConnected
        case .restricted:
            .accessDenied(
                reason: "Calendar access is not available on this device (restricted by Screen Time or management)"
            )
        case .denied: .accessDenied(reason: "Calendar access was denied; allow it in Settings > Privacy > Calendars")
        case .fullAccess: .connected(account: nil)
        case .writeOnly:
            .accessDenied(reason: "Calendar access allows adding events only, not reading them; allow full access")
        }
    }
}

/// The pieces an event query is read in: EventKit shortens a range longer than four years to its first four
/// (`predicateForEvents(withStart:end:calendars:)`,
/// <https://developer.apple.com/documentation/eventkit/ekeventstore/predicateforevents(withstart:end:calendars:)>).
enum EventKitQueryWindow {
    /// The longest piece: 4 × 365 days, never more than four calendar years.
    static let longestPiece: TimeInterval = 4 * 365 * 86_400

    /// `window` cut into consecutive pieces of at most ``longestPiece``; one piece for an empty window.
    static func pieces(of window: DateInterval) -> [DateInterval] {
        var pieces: [DateInterval] = []
        var start = window.start
        repeat {
            let end = min(window.end, start.addingTimeInterval(longestPiece))
            pieces.append(DateInterval(start: start, end: end))
            start = end
        } while start < window.end
        return pieces
    }
}

/// The fields of an `EKEvent` that ``CalendarEvent`` needs, as plain values: filled by ``AppleCalendarSource``
/// from EventKit (or its shim), and by tests directly.
public struct EventKitEventFields: Sendable, Hashable {
    /// `eventIdentifier` (the instance of a recurring event shares it; see ``occurrenceDate``).
    public var eventIdentifier: String
    /// `calendarItemExternalIdentifier`, the server's identifier, if any.
    public var externalIdentifier: String?
    /// `calendar.calendarIdentifier`.
    public var calendarIdentifier: String
    /// `calendar.title`.
    public var calendarTitle: String?
    /// `title`.
    public var title: String?
    /// `startDate`.
    public var startDate: Date
    /// `endDate` (for all-day events, the last second of the last day).
    public var endDate: Date
    /// `occurrenceDate`, the original start of an instance of a recurring event.
    public var occurrenceDate: Date?
    /// `isAllDay`.
    public var isAllDay: Bool
    /// `timeZone?.identifier`; `nil` for floating events.
    public var timeZoneIdentifier: String?
    /// `status.rawValue` (`EKEventStatus`: 0 none, 1 confirmed, 2 tentative, 3 canceled).
    public var statusRawValue: Int
    /// `location`.
    public var location: String?
    /// `notes`.
    public var notes: String?
    /// `organizer?.name`.
    public var organizerName: String?
    /// `organizer?.url`, a `mailto:` URL.
    public var organizerURL: URL?
    /// `hasRecurrenceRules`.
    public var isRecurring: Bool
    /// `lastModifiedDate`.
    public var lastModified: Date?
    /// `url`.
    public var url: URL?

    /// Creates the fields.
    public init(
        eventIdentifier: String,
        externalIdentifier: String? = nil,
        calendarIdentifier: String,
        calendarTitle: String? = nil,
        title: String? = nil,
        startDate: Date,
        endDate: Date,
        occurrenceDate: Date? = nil,
        isAllDay: Bool = false,
        timeZoneIdentifier: String? = nil,
        statusRawValue: Int = 0,
        location: String? = nil,
        notes: String? = nil,
        organizerName: String? = nil,
        organizerURL: URL? = nil,
        isRecurring: Bool = false,
        lastModified: Date? = nil,
        url: URL? = nil
    ) {
        self.eventIdentifier = eventIdentifier
        self.externalIdentifier = externalIdentifier
        self.calendarIdentifier = calendarIdentifier
        self.calendarTitle = calendarTitle
        self.title = title
        self.startDate = startDate
        self.endDate = endDate
        self.occurrenceDate = occurrenceDate
        self.isAllDay = isAllDay
        self.timeZoneIdentifier = timeZoneIdentifier
        self.statusRawValue = statusRawValue
        self.location = location
        self.notes = notes
        self.organizerName = organizerName
        self.organizerURL = organizerURL
        self.isRecurring = isRecurring
        self.lastModified = lastModified
        self.url = url
    }

    /// The event in the common model.
    ///
    /// EventKit gives one `eventIdentifier` to every instance of a recurring event, so an instance's identifier
    /// is the event's identifier and its occurrence date (`identifier/2025-03-03T09:00:00Z`), and the series
    /// identifier is the event's. All-day events become dates in the event's zone (the device's, for floating
    /// ones); EventKit ends them at the last second of the last day, so the exclusive end is the day after.
    /// - Parameters:
    ///   - source: The source.
    ///   - deviceTimeZone: The zone of floating events.
    /// - Returns: The event.
    public func event(source: CalendarSourceID, deviceTimeZone: TimeZone) -> CalendarEvent {
        let zone = timeZoneIdentifier.flatMap(TimeZone.init(identifier:))
        let timing: CalendarEvent.Timing
        if isAllDay {
            let placed = zone ?? deviceTimeZone
            let first = CalendarDay(startDate, in: placed)
            let last = CalendarDay(endDate.addingTimeInterval(-1), in: placed)
            timing = .allDay(first: first, end: max(last, first).next)
        } else {
            timing = .timed(start: startDate, end: max(startDate, endDate))
        }
        let status: CalendarEvent.Status =
            switch statusRawValue {
            case 2: .tentative
            case 3: .cancelled
            default: .confirmed
            }
        var email: String?
        if let organizerURL, organizerURL.scheme?.lowercased() == "mailto" {
            email = organizerURL.absoluteString.dropFirst("mailto:".count).removingPercentEncoding
        }
        let id =
            isRecurring
            ? eventIdentifier + "/" + DateParsing.rfc3339String(occurrenceDate ?? startDate) : eventIdentifier
        return CalendarEvent(
            id: id,
            source: source,
            calendarID: calendarIdentifier,
            calendarName: calendarTitle,
            title: title ?? "",
            timing: timing,
            timeZone: zone,
            status: status,
            location: location.flatMap { $0.isEmpty ? nil : $0 },
            notes: notes.flatMap { $0.isEmpty ? nil : $0 },
            organizer: organizerName == nil && email == nil
                ? nil : CalendarEvent.Person(name: organizerName, email: email),
            seriesID: isRecurring ? eventIdentifier : nil,
            lastModified: lastModified,
            link: url
        )
    }
}
