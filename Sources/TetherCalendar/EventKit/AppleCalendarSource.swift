// The device's calendar through EventKit. Compiled on every platform: against EventKit where it exists, and
// elsewhere (Linux, tvOS) against EventKitShim, Apple's signatures over an in-memory store that only this package's
// tests fill. There the public initializer is unavailable.
public import Foundation

#if canImport(EventKit)
public import EventKit
#else
public import EventKitShim
#endif

/// The device's calendar (Apple Calendar, with every account the user added to it) as a ``CalendarSource``.
///
/// It never asks for permission itself: call `EKEventStore.requestFullAccessToEvents()` (iOS 17, macOS 14) or
/// `requestAccess(to: .event)` from the app's user interface, then fetch. Its status follows the authorization:
/// see ``EventKitAuthorization/sourceStatus``.
///
/// EventKit's reads are synchronous, so the source runs them off the caller's actor (a fetch from the main actor
/// never blocks it), in pieces of at most four years (EventKit cuts longer ranges). It keeps what it read until
/// the store posts `EKEventStoreChanged`: a sync before that returns the last state without reading again.
public final class AppleCalendarSource: CalendarSource, @unchecked Sendable {
    /// The source's name; `apple-calendar` by default.
    public let id: CalendarSourceID
    /// ``CalendarSourceKind/apple``.
    public var kind: CalendarSourceKind { .apple }

    // EKEventStore is thread-safe for reading; it is not marked Sendable.
    private let store: EKEventStore
    private let timeZone: @Sendable () -> TimeZone
    private let changes: EventStoreChanges
    private let observer: any NSObjectProtocol

    #if canImport(EventKit)
    /// Creates a source.
    /// - Parameters:
    ///   - store: The event store; one per app is recommended.
    ///   - id: The source's name.
    ///   - timeZone: The device's time zone, for floating all-day events.
    public convenience init(
        store: EKEventStore = EKEventStore(),
        id: CalendarSourceID = "apple-calendar",
        timeZone: @escaping @Sendable () -> TimeZone = { TimeZone.current }
    ) {
        self.init(eventStore: store, id: id, timeZone: timeZone)
    }
    #else
    /// Unavailable: this platform has no EventKit, so there is no device calendar to read.
    @available(*, unavailable, message: "Only platforms with EventKit have a device calendar")
    public convenience init(
        store: EKEventStore = EKEventStore(),
        id: CalendarSourceID = "apple-calendar",
        timeZone: @escaping @Sendable () -> TimeZone = { TimeZone.current }
    ) {
        self.init(eventStore: store, id: id, timeZone: timeZone)
    }
    #endif

    /// Creates a source over an event store: EventKit's, or in tests one over the shim's simulator.
    /// - Parameters:
    ///   - store: The event store.
    ///   - id: The source's name.
    ///   - timeZone: The device's time zone, for floating all-day events.
    package init(
        eventStore store: EKEventStore,
        id: CalendarSourceID = "apple-calendar",
        timeZone: @escaping @Sendable () -> TimeZone
    ) {
        let changes = EventStoreChanges()
        self.store = store
        self.id = id
        self.timeZone = timeZone
        self.changes = changes
        // EventKit posts this after any change to the database, by this app or another, without saying what
        // changed: see `EKEventStoreChanged`,
        // https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/ekeventstorechanged
        self.observer = NotificationCenter.default.addObserver(
            forName: .EKEventStoreChanged,
            object: store,
            queue: nil
        ) { _ in changes.storeChanged() }
    }

    deinit { NotificationCenter.default.removeObserver(observer) }

    /// The authorization as a status.
    public func accessStatus() async -> CalendarSourceStatus { authorization.sourceStatus }

    private var authorization: EventKitAuthorization {
        EventKitAuthorization(eventKitRawValue: EKEventStore.authorizationStatus(for: .event).rawValue)
    }

    /// The device's event calendars.
    /// - Throws: ``CalendarError/accessDenied`` without full access.
    @concurrent public func calendars() async throws -> [CalendarInfo] {
        try checkAccess()
        let defaultID = store.defaultCalendarForNewEvents?.calendarIdentifier
        return store.calendars(for: .event).map {
            CalendarInfo(id: $0.calendarIdentifier, name: $0.title, isPrimary: $0.calendarIdentifier == defaultID)
        }
    }

    /// Reads the events in `window` from the chosen calendars (all of them when `nil`; none, without reading, when
    /// empty), or returns `state` unchanged when it came from this source, covers the window and calendars, and
    /// the store has not changed since.
    /// - Throws: ``CalendarError/accessDenied`` without full access, or `CancellationError`.
    @concurrent public func sync(
        from state: CalendarSyncState,
        window: DateInterval,
        calendars selection: Set<String>?
    ) async throws -> CalendarSyncOutcome {
        try checkAccess()
        // Read before the calendars: a change posted while reading leaves the result stale, never the other way.
        let cursor = changes.cursor
        if selection?.isEmpty == true { return CalendarSyncOutcome(state: CalendarSyncState()) }
        let all = store.calendars(for: .event)
        let chosen = selection.map { ids in all.filter { ids.contains($0.calendarIdentifier) } } ?? all
        var outcome = CalendarSyncOutcome(state: CalendarSyncState())
        // `calendars: []` is not "no calendars" to EventKit (nil is "all"); nothing chosen means nothing to read.
        guard !chosen.isEmpty else { return outcome }
        let ids = Set(chosen.map(\.calendarIdentifier))
        if Self.isCurrent(state, calendars: ids, window: window, cursor: cursor) {
            outcome.state = state
            for id in ids { outcome.modes[id] = .incremental }
            return outcome
        }
        for calendar in chosen {
            outcome.state.calendars[calendar.calendarIdentifier] = CalendarSyncState.Calendar(
                info: CalendarInfo(id: calendar.calendarIdentifier, name: calendar.title),
                cursor: cursor,
                window: window
            )
            outcome.modes[calendar.calendarIdentifier] = .full
        }
        let zone = timeZone()
        for piece in EventKitQueryWindow.pieces(of: window) {
            try Task.checkCancellation()
            let predicate = store.predicateForEvents(withStart: piece.start, end: piece.end, calendars: chosen)
            for event in store.events(matching: predicate) {
                let mapped = Self.fields(event).event(source: id, deviceTimeZone: zone)
                outcome.state.calendars[mapped.calendarID]?.events[mapped.id] = mapped
            }
        }
        outcome.changed = outcome.state.calendars.values.reduce(0) { $0 + $1.events.count }
        return outcome
    }

    private static func isCurrent(
        _ state: CalendarSyncState,
        calendars ids: Set<String>,
        window: DateInterval,
        cursor: String
    ) -> Bool {
        guard Set(state.calendars.keys) == ids else { return false }
        return state.calendars.values.allSatisfy { calendar in
            guard calendar.cursor == cursor, let read = calendar.window else { return false }
            return read.start <= window.start && read.end >= window.end
        }
    }

    private func checkAccess() throws {
        let status = authorization.sourceStatus
        guard status.kind == .connected else {
            let reason = if case .accessDenied(let reason) = status { reason } else { "Calendar access not asked for" }
            throw CalendarError.accessDenied.with(message: reason)
        }
    }

    private static func fields(_ event: EKEvent) -> EventKitEventFields {
        EventKitEventFields(
            eventIdentifier: event.eventIdentifier ?? event.calendarItemIdentifier,
            externalIdentifier: event.calendarItemExternalIdentifier,
            calendarIdentifier: event.calendar?.calendarIdentifier ?? "",
            calendarTitle: event.calendar?.title,
            title: event.title,
            startDate: event.startDate,
            endDate: event.endDate,
            occurrenceDate: event.occurrenceDate,
            isAllDay: event.isAllDay,
            timeZoneIdentifier: event.timeZone?.identifier,
            statusRawValue: event.status.rawValue,
            location: event.location,
            notes: event.notes,
            organizerName: event.organizer?.name,
            organizerURL: event.organizer?.url,
            isRecurring: event.hasRecurrenceRules,
            lastModified: event.lastModifiedDate,
            url: event.url
        )
    }
}

/// Counts `EKEventStoreChanged` notifications; the cursor names this source and the count, so that a state from
/// another source or an earlier launch never passes for current.
private final class EventStoreChanges: @unchecked Sendable {
    private let lock = NSLock()
    private let instance = UUID().uuidString
    private var generation: UInt64 = 0

    var cursor: String {
        lock.lock()
        defer { lock.unlock() }
        return "eventkit:\(instance):\(generation)"
    }

    func storeChanged() {
        lock.lock()
        defer { lock.unlock() }
        generation += 1
    }
}
