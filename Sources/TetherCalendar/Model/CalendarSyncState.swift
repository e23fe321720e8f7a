public import Foundation

/// What a source knows after its last successful sync: for each selected calendar its events and the cursor
/// that continues the sync (Google's `nextSyncToken`, Graph's `@odata.deltaLink`).
///
/// Sources take the previous state and return the next; ``CalendarConnections`` keeps it, and ``CalendarCache``
/// keeps it sealed on disk. Cursors are opaque and never logged.
public struct CalendarSyncState: Sendable, Hashable, Codable {
    /// One calendar's events and cursor.
    public struct Calendar: Sendable, Hashable, Codable {
        /// The calendar.
        public var info: CalendarInfo
        /// The cursor of the next incremental sync, if the API has one for this calendar.
        public var cursor: String?
        /// The window the cursor was started for (Graph's delta is bound to one); `nil` when unbounded.
        public var window: DateInterval?
        /// The events, by identifier.
        public var events: [String: CalendarEvent] {
            get { storage.events }
            set { storage.events = newValue }
            _modify { yield &storage.events }
        }
        /// Where the events are: in memory, or in the calendar cache until they are read.
        var storage: CalendarEventStorage
        /// The events the calendar holds that could not be read, and why: those of the last full read, and those
        /// whose change an incremental sync could not read since — until a later change or removal of the same
        /// event is read. A skipped item without an identifier is kept only until the next sync.
        public var skipped: [SkippedEvent]

        /// Creates a calendar's state.
        /// - Parameters:
        ///   - info: The calendar.
        ///   - cursor: The next sync's cursor.
        ///   - window: The window the cursor belongs to.
        ///   - events: The events, by identifier.
        ///   - skipped: The events that could not be read.
        public init(
            info: CalendarInfo,
            cursor: String? = nil,
            window: DateInterval? = nil,
            events: [String: CalendarEvent] = [:],
            skipped: [SkippedEvent] = []
        ) {
            self.info = info
            self.cursor = cursor
            self.window = window
            self.storage = CalendarEventStorage(events)
            self.skipped = skipped
        }

        private enum CodingKeys: String, CodingKey {
            case info, cursor, window, events, skipped
        }

        /// Reads a calendar's state; a cache written before skipped events were kept has none.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            info = try container.decode(CalendarInfo.self, forKey: .info)
            cursor = try container.decodeIfPresent(String.self, forKey: .cursor)
            window = try container.decodeIfPresent(DateInterval.self, forKey: .window)
            storage = CalendarEventStorage(try container.decode([String: CalendarEvent].self, forKey: .events))
            skipped = try container.decodeIfPresent([SkippedEvent].self, forKey: .skipped) ?? []
        }

        /// Writes a calendar's state.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(info, forKey: .info)
            try container.encodeIfPresent(cursor, forKey: .cursor)
            try container.encodeIfPresent(window, forKey: .window)
            try container.encode(events, forKey: .events)
            try container.encode(skipped, forKey: .skipped)
        }

        /// Keeps what a sync could not read: a full read replaces the records, an incremental one replaces those
        /// of the events it read again.
        /// - Parameter changes: What the sync read.
        mutating func keepSkipped(_ changes: CalendarChanges) {
            if changes.isFullSync {
                skipped = changes.skipped
                return
            }
            var readAgain = Set(changes.removedIDs)
            for event in changes.changed { readAgain.insert(event.id) }
            for record in changes.skipped { if let id = record.eventID { readAgain.insert(id) } }
            skipped.removeAll { record in record.eventID.map(readAgain.contains) ?? true }
            skipped += changes.skipped
        }
    }

    /// The calendars, by identifier.
    public var calendars: [String: Calendar]

    /// Creates a state.
    /// - Parameter calendars: The calendars, by identifier.
    public init(calendars: [String: Calendar] = [:]) { self.calendars = calendars }

    /// The time zone of the main calendar (``CalendarInfo/isPrimary``), when it is read and its provider names a
    /// zone the system knows (``CalendarInfo/timeZone``).
    public var primaryTimeZone: TimeZone? { primaryTimeZoneIdentifier.flatMap(TimeZone.init(identifier:)) }

    /// The identifier of ``primaryTimeZone``, as the provider wrote it: a sync hands it on without making the
    /// `TimeZone` (whose first one costs a process most of a millisecond).
    var primaryTimeZoneIdentifier: String? { calendars.values.first { $0.info.isPrimary }?.info.timeZone }

    /// Every event of every calendar.
    public var allEvents: [CalendarEvent] { calendars.values.flatMap { $0.events.values } }

    /// The events of every calendar that could not be read, and why (see ``Calendar/skipped``), ordered by
    /// calendar.
    public var skipped: [SkippedEvent] {
        calendars.keys.sorted().flatMap { calendars[$0]?.skipped ?? [] }
    }

    /// The events that overlap `window`, ordered by start (all-day events placed in `timeZone`), then title.
    /// - Parameters:
    ///   - window: The window.
    ///   - timeZone: Where all-day events are placed.
    /// - Returns: The events.
    public func events(in window: DateInterval, timeZone: TimeZone) -> [CalendarEvent] {
        CalendarEvent.sorted(unsortedEvents(in: window, timeZone: timeZone), in: timeZone)
    }

    /// The events that overlap `window`, in no order: one array, without a copy of every event first.
    func unsortedEvents(in window: DateInterval, timeZone: TimeZone) -> [CalendarEvent] {
        var result: [CalendarEvent] = []
        for calendar in calendars.values {
            calendar.storage.forEachEvent(overlapping: window, in: timeZone) { result.append($0) }
        }
        return result
    }

    /// How many events overlap `window`.
    func count(in window: DateInterval, timeZone: TimeZone) -> Int {
        var count = 0
        for calendar in calendars.values { count += calendar.storage.count(overlapping: window, in: timeZone) }
        return count
    }
}

extension CalendarEvent {
    /// Orders events by start, then end, then title, then key, so that a listing is stable.
    ///
    /// Sorts positions rather than the events themselves: besides the result, it keeps one interval and one
    /// position per event, not copies of the events.
    static func sorted(_ events: [CalendarEvent], in timeZone: TimeZone) -> [CalendarEvent] {
        let intervals = events.map { $0.interval(in: timeZone) }
        let order = events.indices.sorted { left, right in
            let (lhs, rhs) = (events[left], events[right])
            let (lhsInterval, rhsInterval) = (intervals[left], intervals[right])
            if lhsInterval.start != rhsInterval.start { return lhsInterval.start < rhsInterval.start }
            if lhsInterval.end != rhsInterval.end { return lhsInterval.end < rhsInterval.end }
            if lhs.title != rhs.title { return lhs.title < rhs.title }
            return (lhs.source.rawValue, lhs.calendarID, lhs.id) < (rhs.source.rawValue, rhs.calendarID, rhs.id)
        }
        return order.map { events[$0] }
    }
}

/// What one sync of a source did.
public struct CalendarSyncOutcome: Sendable {
    /// How a calendar was synced.
    public enum Mode: String, Sendable, Hashable, Codable {
        /// Everything was read again (first sync, another window, or no incremental API for the calendar).
        case full
        /// Only changes since the last sync were read.
        case incremental
        /// The cursor had expired (`410 Gone`, `fullSyncRequired`, `syncStateNotFound`); it was dropped and
        /// everything of this calendar read again (the source's other calendars keep their cursors).
        case resynced
    }

    /// The state after the sync.
    public var state: CalendarSyncState
    /// How each calendar was synced.
    public var modes: [String: Mode]
    /// Events that were left out, and why.
    public var skipped: [SkippedEvent]
    /// Events added or changed.
    public var changed: Int
    /// Events removed.
    public var removed: Int
    /// The chosen calendars that are gone — deleted, unsubscribed, no longer shared — by their last known names;
    /// the others were read. See ``UnavailableCalendar``.
    public var unavailable: [UnavailableCalendar] = []

    /// Creates an outcome.
    /// - Parameters:
    ///   - state: The state after the sync.
    ///   - modes: How each calendar was synced.
    ///   - skipped: Events left out.
    ///   - changed: Events added or changed.
    ///   - removed: Events removed.
    public init(
        state: CalendarSyncState,
        modes: [String: Mode] = [:],
        skipped: [SkippedEvent] = [],
        changed: Int = 0,
        removed: Int = 0
    ) {
        self.state = state
        self.modes = modes
        self.skipped = skipped
        self.changed = changed
        self.removed = removed
    }
}

/// One page-by-page read of events: what loaded and what was skipped.
public struct CalendarEventBatch: Sendable {
    /// The events, in the order the API returned them.
    public var events: [CalendarEvent]
    /// Events that were left out, and why.
    public var skipped: [SkippedEvent]
    /// How many pages were read.
    public var pages: Int
}

/// The changes since a cursor, or everything when there was none.
public struct CalendarChanges: Sendable {
    /// Events added or changed (all events, for a full sync).
    public var changed: [CalendarEvent]
    /// Identifiers of events removed (cancelled or deleted).
    public var removedIDs: [String]
    /// Events that were left out, and why.
    public var skipped: [SkippedEvent]
    /// The cursor of the next incremental sync.
    public var cursor: String
    /// Whether this read everything rather than changes.
    public var isFullSync: Bool
    /// How many pages were read.
    public var pages: Int
}
