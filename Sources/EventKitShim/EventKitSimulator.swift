package import Foundation

/// A small in-memory calendar database behind the shim's ``EKEventStore``, for this package's tests: they fill it
/// (calendars, events, authorization), change it (which posts ``Foundation/NSNotification/Name/EKEventStoreChanged``)
/// and read what the store was asked.
///
/// It follows the rules Apple documents for the members the shim declares, each citing its page; where Apple is
/// silent it takes the reading that exposes more bugs (an empty calendar list searches every calendar, as `nil`
/// does). Tests bind their own simulator, so that they can run in parallel:
///
/// ```swift
/// let simulator = EventKitSimulator(authorization: .fullAccess, calendars: [home])
/// try await EventKitSimulator.$current.withValue(simulator) { … }
/// ```
package final class EventKitSimulator: @unchecked Sendable {
    /// The simulator `EKEventStore()` and `EKEventStore.authorizationStatus(for:)` use in the current task.
    @TaskLocal package static var current = EventKitSimulator()

    /// A calendar.
    package struct Calendar: Sendable, Hashable {
        package var identifier: String
        package var title: String

        package init(identifier: String, title: String) {
            self.identifier = identifier
            self.title = title
        }
    }

    /// An event, or one instance of a recurring event.
    package struct Event: Sendable, Hashable {
        package var identifier: String
        package var calendarIdentifier: String
        package var title: String?
        package var start: Date
        package var end: Date
        package var occurrenceDate: Date?
        package var isAllDay = false
        package var timeZoneIdentifier: String?
        package var externalIdentifier: String?
        package var statusRawValue = 0
        package var location: String?
        package var notes: String?
        package var organizerName: String?
        package var organizerURL: URL?
        package var isRecurring = false
        package var lastModified: Date?
        package var url: URL?

        package init(identifier: String, calendarIdentifier: String, title: String?, start: Date, end: Date) {
            self.identifier = identifier
            self.calendarIdentifier = calendarIdentifier
            self.title = title
            self.start = start
            self.end = end
        }
    }

    /// One call of `events(matching:)`: the range actually searched (after Apple's four-year cut) and the
    /// calendars (`nil` for all).
    package struct Fetch: Sendable, Hashable {
        package var start: Date
        package var end: Date
        package var calendarIdentifiers: [String]?
    }

    /// The database: what tests fill and change.
    package struct Database: Sendable {
        package var authorization: EKAuthorizationStatus
        package var calendars: [Calendar]
        package var events: [Event]
        package var defaultCalendarIdentifier: String?
        /// What the user answers when asked for access.
        package var grantsAccessWhenAsked = true
    }

    private let lock = NSLock()
    private var database: Database
    private var fetchLog: [Fetch] = []
    private var beforeRead: (@Sendable () -> Void)?
    private var stores: [WeakStore] = []
    // Keyed by the predicate's identity; the entry keeps the predicate alive so that the key is never reused.
    private var ranges: [ObjectIdentifier: EventRange] = [:]

    /// Creates a simulator.
    package init(
        authorization: EKAuthorizationStatus = .notDetermined,
        calendars: [Calendar] = [],
        events: [Event] = [],
        defaultCalendarIdentifier: String? = nil
    ) {
        database = Database(
            authorization: authorization,
            calendars: calendars,
            events: events,
            defaultCalendarIdentifier: defaultCalendarIdentifier
        )
    }

    private func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: Test control

    /// The authorization `EKEventStore.authorizationStatus(for: .event)` reports.
    package var authorization: EKAuthorizationStatus {
        get { withLock { database.authorization } }
        set { withLock { database.authorization = newValue } }
    }

    /// Changes the database, then posts `EKEventStoreChanged` for every store over it, as EventKit does after a
    /// change from this app or another.
    package func change(_ body: (inout Database) -> Void) {
        let stores = withLock {
            body(&database)
            return self.stores.compactMap(\.store)
        }
        for store in stores { NotificationCenter.default.post(name: .EKEventStoreChanged, object: store) }
    }

    /// The calls of `events(matching:)` so far.
    package var fetches: [Fetch] { withLock { fetchLog } }

    /// Runs `action` at the start of every synchronous read (`calendars(for:)`, `events(matching:)`), on the
    /// thread of the call: where EventKit would do its work.
    package func beforeEachRead(_ action: @escaping @Sendable () -> Void) { withLock { beforeRead = action } }

    // MARK: The rules behind the shim

    func attach(_ store: EKEventStore) { withLock { stores.append(WeakStore(store: store)) } }

    /// `requestFullAccessToEvents()`: asks only while not determined
    /// (https://developer.apple.com/documentation/eventkit/accessing-the-event-store).
    func request(fullAccess: Bool) -> EKAuthorizationStatus {
        withLock {
            if database.authorization == .notDetermined {
                database.authorization = database.grantsAccessWhenAsked ? .fullAccess : .denied
            }
            return database.authorization
        }
    }

    var defaultCalendar: Calendar? {
        withLock {
            guard database.authorization == .fullAccess else { return nil }
            return database.calendars.first { $0.identifier == database.defaultCalendarIdentifier }
        }
    }

    var calendarsSnapshot: [Calendar] { withLock { database.calendars } }

    /// `calendars(for:)`: nothing without full access (write-only access sees no calendars to read).
    func readCalendars() -> [Calendar] {
        withLock { beforeRead }?()
        return withLock { database.authorization == .fullAccess ? database.calendars : [] }
    }

    /// `predicateForEvents(withStart:end:calendars:)`: a range longer than four years is cut to its first four.
    func predicate(start: Date, end: Date, calendars: [String]?) -> NSPredicate {
        var utc = Foundation.Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC") ?? utc.timeZone
        let limit = utc.date(byAdding: .year, value: 4, to: start) ?? end
        let predicate = NSPredicate(value: true)
        let range = EventRange(predicate: predicate, start: start, end: min(end, limit), calendarIdentifiers: calendars)
        withLock { ranges[ObjectIdentifier(predicate)] = range }
        return predicate
    }

    /// `events(matching:)`: the events overlapping the predicate's range in its calendars, nothing without full
    /// access. Apple documents `nil` as "all calendars" and says nothing of an empty list; it is read as all too.
    func readEvents(matching predicate: NSPredicate) -> [Event] {
        withLock { beforeRead }?()
        return withLock {
            guard let predicate = ranges[ObjectIdentifier(predicate)] else { return [] }
            fetchLog.append(
                Fetch(
                    start: predicate.start,
                    end: predicate.end,
                    calendarIdentifiers: predicate.calendarIdentifiers
                )
            )
            guard database.authorization == .fullAccess else { return [] }
            let calendars = predicate.calendarIdentifiers.flatMap { $0.isEmpty ? nil : Set($0) }
            return database.events.filter { event in
                (calendars?.contains(event.calendarIdentifier) ?? true)
                    && event.start < predicate.end && (event.end > predicate.start || event.start >= predicate.start)
            }
        }
    }
}

/// The range and calendars of a predicate `predicateForEvents` made, read back by `events(matching:)`.
private struct EventRange {
    let predicate: NSPredicate
    let start: Date
    let end: Date
    let calendarIdentifiers: [String]?
}

private struct WeakStore {
    weak var store: EKEventStore?
}
