public import Foundation

/// One event from any source — Google Calendar, Microsoft Graph or the device's calendar — in one shape.
///
/// Timed events carry their start and end as instants; all-day events carry dates that no time zone shifts
/// (``CalendarDay``), with the end date exclusive as both APIs define it. Events are personal data: they are
/// never logged, and ``description`` names only the source and identifier.
public struct CalendarEvent: Sendable, Hashable, Codable, CustomStringConvertible {
    /// When an event takes place.
    public enum Timing: Sendable, Hashable, Codable {
        /// From `start` (inclusive) to `end` (exclusive).
        case timed(start: Date, end: Date)
        /// From the day `first` to the day before `end` (exclusive): a one-day event on March 4 has `end` March 5.
        case allDay(first: CalendarDay, end: CalendarDay)
    }

    /// Whether the event takes place.
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
        /// It takes place.
        case confirmed
        /// It may take place.
        case tentative
        /// It was cancelled.
        case cancelled
    }

    /// A person: the organizer of an event.
    public struct Person: Sendable, Hashable, Codable {
        /// The display name, if known.
        public var name: String?
        /// The e-mail address, if known.
        public var email: String?

        /// Creates a person.
        /// - Parameters:
        ///   - name: The display name.
        ///   - email: The e-mail address.
        public init(name: String? = nil, email: String? = nil) {
            self.name = name
            self.email = email
        }
    }

    /// Identifies an event among every source: the source, the calendar and the provider's identifier.
    public struct Key: Sendable, Hashable, Codable {
        /// The source.
        public var source: CalendarSourceID
        /// The calendar within the source.
        public var calendarID: String
        /// The provider's identifier of the event.
        public var eventID: String
    }

    /// The provider's identifier, stable within the source's calendar (an instance of a recurring event has its
    /// own identifier).
    public var id: String
    /// The source the event came from.
    public var source: CalendarSourceID
    /// The calendar's identifier within the source.
    public var calendarID: String
    /// The calendar's name, if known.
    public var calendarName: String?
    /// The title; empty when the event has none.
    public var title: String
    /// When it takes place.
    public var timing: Timing
    /// The event's own time zone, when the source names one that this system knows.
    public var timeZone: TimeZone?
    /// Whether it takes place.
    public var status: Status
    /// Where, as the source wrote it.
    public var location: String?
    /// The description as plain text (HTML bodies are converted: tags removed, entities decoded, line breaks
    /// kept).
    public var notes: String?
    /// Who organizes it.
    public var organizer: Person?
    /// For an instance of a recurring event, the identifier of the series.
    public var seriesID: String?
    /// When the event was last changed at the source.
    public var lastModified: Date?
    /// A link that opens the event in the provider's web interface.
    public var link: URL?

    /// Creates an event.
    /// - Parameters:
    ///   - id: The provider's identifier.
    ///   - source: The source.
    ///   - calendarID: The calendar's identifier.
    ///   - calendarName: The calendar's name.
    ///   - title: The title.
    ///   - timing: When it takes place.
    ///   - timeZone: The event's time zone.
    ///   - status: Whether it takes place.
    ///   - location: Where.
    ///   - notes: The plain-text description.
    ///   - organizer: Who organizes it.
    ///   - seriesID: The recurring series, for an instance.
    ///   - lastModified: When it was last changed.
    ///   - link: A link that opens it.
    public init(
        id: String,
        source: CalendarSourceID,
        calendarID: String,
        calendarName: String? = nil,
        title: String,
        timing: Timing,
        timeZone: TimeZone? = nil,
        status: Status = .confirmed,
        location: String? = nil,
        notes: String? = nil,
        organizer: Person? = nil,
        seriesID: String? = nil,
        lastModified: Date? = nil,
        link: URL? = nil
    ) {
        self.id = id
        self.source = source
        self.calendarID = calendarID
        self.calendarName = calendarName
        self.title = title
        self.timing = timing
        self.timeZone = timeZone
        self.status = status
        self.location = location
        self.notes = notes
        self.organizer = organizer
        self.seriesID = seriesID
        self.lastModified = lastModified
        self.link = link
    }

    /// The source, calendar and identifier together.
    public var key: Key { Key(source: source, calendarID: calendarID, eventID: id) }

    /// Whether the event lasts whole days.
    public var isAllDay: Bool {
        if case .allDay = timing { return true }
        return false
    }

    /// The interval the event occupies; all-day events are placed in `timeZone` (the viewer's).
    /// - Parameter timeZone: Where all-day dates are placed.
    /// - Returns: The interval; an end before the start is taken as the start.
    public func interval(in timeZone: TimeZone) -> DateInterval { timing.interval(in: timeZone) }

    /// Whether the event overlaps `window`: it ends after the window starts and starts before the window ends,
    /// as Google's `timeMin`/`timeMax` and Graph's `calendarView` select events.
    /// - Parameters:
    ///   - window: The window.
    ///   - timeZone: Where all-day dates are placed.
    /// - Returns: Whether they overlap.
    public func overlaps(_ window: DateInterval, in timeZone: TimeZone) -> Bool {
        timing.overlaps(window, in: timeZone)
    }

    /// `CalendarEvent(source/calendar/id)`: never the title or other personal data.
    public var description: String { "CalendarEvent(\(source)/\(calendarID)/\(id))" }
}

extension CalendarEvent.Timing {
    /// See ``CalendarEvent/interval(in:)``.
    func interval(in timeZone: TimeZone) -> DateInterval {
        let (start, end): (Date, Date)
        switch self {
        case .timed(let from, let to): (start, end) = (from, to)
        case .allDay(let first, let last): (start, end) = (first.start(in: timeZone), last.start(in: timeZone))
        }
        return DateInterval(start: start, end: max(start, end))
    }

    /// See ``CalendarEvent/overlaps(_:in:)``.
    func overlaps(_ window: DateInterval, in timeZone: TimeZone) -> Bool {
        let interval = interval(in: timeZone)
        if interval.duration == 0 { return interval.start >= window.start && interval.start < window.end }
        return interval.end > window.start && interval.start < window.end
    }
}
