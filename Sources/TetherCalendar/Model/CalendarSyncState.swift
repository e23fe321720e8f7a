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
        public var events: [String: CalendarEvent]

        /// Creates a calendar's state.
        /// - Parameters:
        ///   - info: The calendar.
        ///   - cursor: The next sync's cursor.
        ///   - window: The window the cursor belongs to.
        ///   - events: The events, by identifier.
        public init(
            info: CalendarInfo,
            cursor: String? = nil,
            window: DateInterval? = nil,
            events: [String: CalendarEvent] = [:]
        ) {
            self.info = info
            self.cursor = cursor
            self.window = window
            self.events = events
        }
    }

    /// The calendars, by identifier.
    public var calendars: [String: Calendar]

    /// Creates a state.
    /// - Parameter calendars: The calendars, by identifier.
    public init(calendars: [String: Calendar] = [:]) { self.calendars = calendars }

    /// Every event of every calendar.
    public var allEvents: [CalendarEvent] { calendars.values.flatMap { $0.events.values } }

    /// The events that overlap `window`, ordered by start (all-day events placed in `timeZone`), then title.
    /// - Parameters:
    ///   - window: The window.
    ///   - timeZone: Where all-day events are placed.
    /// - Returns: The events.
    public func events(in window: DateInterval, timeZone: TimeZone) -> [CalendarEvent] {
        CalendarEvent.sorted(allEvents.filter { $0.overlaps(window, in: timeZone) }, in: timeZone)
    }
}

extension CalendarEvent {
    /// Orders events by start, then end, then title, then key, so that a listing is stable.
    static func sorted(_ events: [CalendarEvent], in timeZone: TimeZone) -> [CalendarEvent] {
        events.map { ($0, $0.interval(in: timeZone)) }
            .sorted { lhs, rhs in
                if lhs.1.start != rhs.1.start { return lhs.1.start < rhs.1.start }
                if lhs.1.end != rhs.1.end { return lhs.1.end < rhs.1.end }
                if lhs.0.title != rhs.0.title { return lhs.0.title < rhs.0.title }
                return (lhs.0.source.rawValue, lhs.0.calendarID, lhs.0.id) < (
                    rhs.0.source.rawValue, rhs.0.calendarID, rhs.0.id
                )
            }
            .map(\.0)
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
        /// everything read again.
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
