import Crypto
import Foundation

/// A calendar of one user, served by both calendar APIs.
struct StoredCalendar: Sendable {
    let id: String
    let username: String
    var name: String
    var timeZone: String
    var isPrimary: Bool
    var canEdit: Bool
    var color: String
    /// Google's `selected`: shown in the calendar UI, so read by default.
    var isSelected = true
    /// The e-mail address of whoever shared it with the user; `nil` for the user's own.
    var sharedBy: String? = nil
    /// Its owner stopped sharing it: Google no longer lists it and answers `404`; Graph still lists it and
    /// answers `403`.
    var isUnshared = false

    /// Google's `accessRole`: `owner` of one's own, `writer` or `reader` of a shared one.
    var accessRole: String {
        guard self.sharedBy != nil else { return self.canEdit ? "owner" : "reader" }
        return self.canEdit ? "writer" : "reader"
    }
}

/// An event with the bookkeeping incremental sync needs.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
struct StoredEvent: Sendable {
    var event: DevProvider.CalendarEvent
    let username: String
    let calendarID: String
    let created: Date
    var updated: Date
    /// The store's change sequence at the last change; sync tokens compare against it.
    var sequence: Int
    var isDeleted = false
}

/// One event as listed: a single event, or one occurrence of a series.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
struct EventInstance: Sendable {
    let stored: StoredEvent
    let id: String
    /// The series ID for occurrences, `nil` for single events.
    let seriesID: String?
    let originalStart: DevProvider.CalendarEvent.Time?
    let summary: String
    let start: DevProvider.CalendarEvent.Time
    let end: DevProvider.CalendarEvent.Time
    let startInstant: Date
    let endInstant: Date
    /// Cancelled: deleted, cancelled, or a cancelled occurrence.
    let isCancelled: Bool
    /// An occurrence that differs from the series.
    let isException: Bool

    var event: DevProvider.CalendarEvent { self.stored.event }
    var isDeleted: Bool { self.stored.isDeleted }
    /// A cancelled or deleted occurrence, or a deleted event: gone, not just marked cancelled.
    var isRemoved: Bool {
        self.stored.isDeleted || (self.seriesID != nil && self.isCancelled)
    }
}

/// Every user's calendars and events, a change sequence for sync tokens, and per-user token
/// generations (bumping one invalidates the user's sync tokens and delta links).
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
struct CalendarStore: Sendable {
    typealias Event = DevProvider.CalendarEvent

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private(set) var epoch: Date
    private(set) var calendars: [String: [StoredCalendar]] = [:]
    private(set) var events: [String: StoredEvent] = [:]
    private(set) var sequence = 0
    private(set) var generations: [String: Int] = [:]
    /// Per calendar (`username` and calendar ID): invalidations of that calendar's tokens alone.
    private(set) var calendarGenerations: [String: Int] = [:]
    /// Per user: the IDs of the calendars removed from their list (Google answers `410 Gone` for them).
    private(set) var removedCalendars: [String: Set<String>] = [:]

    /// Seeds every user's calendars; times are relative to `epoch`, Monday 00:00 UTC of the week
    /// containing `now` unless given.
    init(users: [DevProvider.User], now: Date, epoch: Date? = nil) {
        self.epoch = epoch ?? Self.monday(of: now)
        CalendarSeed.seed(into: &self, users: users, now: now)
    }

    static func monday(of date: Date) -> Date {
        let calendar = CalendarTime.calendar(CalendarTime.utc)
        let midnight = calendar.startOfDay(for: date)
        let weekday = calendar.component(.weekday, from: midnight)  // 1 = Sunday
        let back = (weekday + 5) % 7
        return calendar.date(byAdding: .day, value: -back, to: midnight) ?? midnight
    }

    /// A stable Google-style event ID: base32hex (`0-9`, `a-v`), 26 characters.
    static func makeID(_ parts: String...) -> String {
        let digest = SHA256.hash(data: Data(parts.joined(separator: "\u{1F}").utf8))
        let alphabet = Array("0123456789abcdefghijklmnopqrstuv")
        var bits = 0
        var value = 0
        var result = ""
        for byte in digest {
            value = (value << 8) | Int(byte)
            bits += 8
            while bits >= 5 && result.count < 26 {
                result.append(alphabet[(value >> (bits - 5)) & 31])
                bits -= 5
            }
            value &= (1 << bits) - 1
        }
        return result
    }

    // MARK: Reading

    func calendars(of username: String) -> [StoredCalendar] {
        self.calendars[username] ?? []
    }

    /// A user's calendar by ID; `primary` names the primary calendar (Google's alias).
    func calendar(_ id: String, of username: String) -> StoredCalendar? {
        let calendars = self.calendars(of: username)
        if id == "primary" {
            return calendars.first(where: \.isPrimary)
        }
        return calendars.first { $0.id == id }
    }

    func generation(of username: String) -> Int {
        self.generations[username, default: 0]
    }

    /// The generation a calendar's sync tokens and delta links carry: it changes when the user's or the
    /// calendar's tokens are invalidated.
    func generation(of username: String, calendar calendarID: String) -> Int {
        self.generation(of: username) + self.calendarGenerations[Self.key(username, calendarID), default: 0]
    }

    private static func key(_ username: String, _ calendarID: String) -> String {
        username + "\u{1F}" + calendarID
    }

    /// Whether a user's calendar with this ID was removed from their list.
    func wasRemoved(_ calendarID: String, of username: String) -> Bool {
        self.removedCalendars[username]?.contains(calendarID) == true
    }

    /// All stored events (deleted ones included) of a calendar, ordered by ID.
    func storedEvents(in calendar: StoredCalendar) -> [StoredEvent] {
        self.events.values
            .filter { $0.username == calendar.username && $0.calendarID == calendar.id }
            .sorted { $0.event.id < $1.event.id }
    }

    /// The instances of a stored event (one for a single event, one per occurrence for a series).
    static func instances(of stored: StoredEvent, in calendar: StoredCalendar) -> [EventInstance] {
        let event = stored.event
        let zone = CalendarTime.zone(calendar.timeZone)
        guard let recurrence = event.recurrence else {
            let (startInstant, endInstant) = Self.instants(event.start, event.end, zone: zone)
            return [
                EventInstance(
                    stored: stored,
                    id: event.id,
                    seriesID: nil,
                    originalStart: nil,
                    summary: event.summary,
                    start: event.start,
                    end: event.end,
                    startInstant: startInstant,
                    endInstant: endInstant,
                    isCancelled: stored.isDeleted || event.status == .cancelled,
                    isException: false
                )
            ]
        }
        return (0..<recurrence.count).map { index in
            let days = index * recurrence.intervalDays
            let originalStart = Self.move(event.start, days: days, shift: .zero)
            let exception = recurrence.exceptions[index]
            let shift = exception?.shift ?? .zero
            let start = Self.move(event.start, days: days, shift: shift)
            let end = Self.move(event.end, days: days, shift: shift)
            let (startInstant, endInstant) = Self.instants(start, end, zone: zone)
            let (originalInstant, _) = Self.instants(originalStart, originalStart, zone: zone)
            let suffix = CalendarTime.instanceSuffix(
                originalInstant,
                allDay: event.isAllDay,
                timeZone: zone
            )
            return EventInstance(
                stored: stored,
                id: "\(event.id)_\(suffix)",
                seriesID: event.id,
                originalStart: originalStart,
                summary: exception?.summary ?? event.summary,
                start: start,
                end: end,
                startInstant: startInstant,
                endInstant: endInstant,
                isCancelled: stored.isDeleted || event.status == .cancelled || exception?.isCancelled == true,
                isException: exception != nil
            )
        }
    }

    /// Moves a time by whole days in its own time zone (so wall-clock times survive DST), then by `shift`.
    static func move(_ time: Event.Time, days: Int, shift: Duration) -> Event.Time {
        switch time {
        case .date(let day):
            return .date(CalendarTime.addDays(days + Int(shift.components.seconds / 86400), to: day))
        case .dateTime(let date, let timeZone):
            let calendar = CalendarTime.calendar(CalendarTime.zone(timeZone))
            let moved = calendar.date(byAdding: .day, value: days, to: date) ?? date
            return .dateTime(moved.addingTimeInterval(shift.timeInterval), timeZone: timeZone)
        }
    }

    /// Instants of a start and end; dates are midnight in the calendar's zone.
    static func instants(_ start: Event.Time, _ end: Event.Time, zone: TimeZone) -> (Date, Date) {
        func instant(_ time: Event.Time) -> Date {
            switch time {
            case .date(let day): CalendarTime.midnight(day, in: zone) ?? Date(timeIntervalSince1970: 0)
            case .dateTime(let date, _): date
            }
        }
        return (instant(start), instant(end))
    }

    // MARK: Changing

    mutating func reset(users: [DevProvider.User], now: Date, epoch: Date?) {
        let generations = self.generations
        let calendarGenerations = self.calendarGenerations
        self = CalendarStore(users: users, now: now, epoch: epoch)
        self.calendarGenerations = calendarGenerations
        // Tokens issued before the reset must not match the new data.
        for username in self.calendars.keys {
            self.generations[username] = generations[username, default: 0] + 1
        }
    }

    mutating func addCalendar(_ calendar: StoredCalendar) {
        self.calendars[calendar.username, default: []].append(calendar)
    }

    /// Removes a calendar from a user's list, with its events: deleted, or unsubscribed.
    mutating func removeCalendar(_ calendarID: String, of username: String) throws {
        guard let calendar = self.calendar(calendarID, of: username), !calendar.isPrimary else {
            throw Failure("No secondary calendar \(calendarID) of \(username).")
        }
        self.calendars[username]?.removeAll { $0.id == calendar.id }
        self.events = self.events.filter { $0.value.username != username || $0.value.calendarID != calendar.id }
        self.removedCalendars[username, default: []].insert(calendar.id)
    }

    /// Ends the sharing of a calendar shared with a user.
    mutating func unshareCalendar(_ calendarID: String, of username: String) throws {
        guard let index = self.calendars[username]?.firstIndex(where: { $0.id == calendarID }),
            self.calendars[username]?[index].sharedBy != nil
        else {
            throw Failure("No calendar \(calendarID) shared with \(username).")
        }
        self.calendars[username]?[index].isUnshared = true
    }

    private mutating func nextSequence() -> Int {
        self.sequence += 1
        return self.sequence
    }

    @discardableResult
    mutating func add(_ event: Event, username: String, calendarID: String, now: Date) throws -> Event {
        guard let calendar = self.calendar(calendarID, of: username) else {
            throw Failure("Unknown calendar \(calendarID) of \(username).")
        }
        var event = event
        let sequence = self.nextSequence()
        if event.id.isEmpty {
            event.id = Self.makeID(username, calendar.id, String(sequence), event.summary)
        }
        guard self.events[event.id] == nil else {
            throw Failure("An event with ID \(event.id) exists.")
        }
        guard Self.isValid(event) else {
            throw Failure("Start and end must both be dates or both be date-times, and the end must follow the start.")
        }
        self.events[event.id] = StoredEvent(
            event: event,
            username: username,
            calendarID: calendar.id,
            created: now,
            updated: now,
            sequence: sequence
        )
        return event
    }

    static func isValid(_ event: Event) -> Bool {
        switch (event.start, event.end) {
        case (.date(let start), .date(let end)):
            return CalendarTime.midnight(start, in: CalendarTime.utc) != nil
                && CalendarTime.midnight(end, in: CalendarTime.utc) != nil && start < end
        case (.dateTime(let start, let startZone), .dateTime(let end, let endZone)):
            return start < end && TimeZone(identifier: startZone) != nil && TimeZone(identifier: endZone) != nil
        default:
            return false
        }
    }

    mutating func update(id: String, now: Date, _ change: (inout Event) -> Void) throws -> Event {
        guard var stored = self.events[id], !stored.isDeleted else {
            throw Failure("Unknown event \(id).")
        }
        var event = stored.event
        change(&event)
        event.id = id
        guard Self.isValid(event) else {
            throw Failure("Start and end must both be dates or both be date-times, and the end must follow the start.")
        }
        stored.event = event
        stored.updated = now
        stored.sequence = self.nextSequence()
        self.events[id] = stored
        return event
    }

    /// Deletes an event; a tombstone stays so incremental sync reports the deletion.
    mutating func delete(id: String, now: Date) throws {
        guard var stored = self.events[id], !stored.isDeleted else {
            throw Failure("Unknown event \(id).")
        }
        stored.isDeleted = true
        stored.updated = now
        stored.sequence = self.nextSequence()
        self.events[id] = stored
    }

    /// Adds `count` one-hour events `interval` apart from `start`, titled "Generated event N".
    mutating func generate(
        count: Int,
        username: String,
        calendarID: String,
        start: Date,
        interval: Duration,
        now: Date
    ) throws -> Int {
        guard let calendar = self.calendar(calendarID, of: username) else {
            throw Failure("Unknown calendar \(calendarID) of \(username).")
        }
        for index in 0..<max(0, count) {
            let begin = start.addingTimeInterval(interval.timeInterval * Double(index))
            try self.add(
                Event(
                    summary: "Generated event \(index + 1)",
                    start: .dateTime(begin, timeZone: calendar.timeZone),
                    end: .dateTime(begin.addingTimeInterval(3600), timeZone: calendar.timeZone)
                ),
                username: username,
                calendarID: calendar.id,
                now: now
            )
        }
        return max(0, count)
    }

    /// Invalidates sync tokens and delta links of one user, or of all; with a calendar, of that calendar alone.
    mutating func invalidateTokens(of username: String?, calendar calendarID: String? = nil) throws {
        if let calendarID {
            guard let username, let calendar = self.calendar(calendarID, of: username) else {
                throw Failure("Unknown calendar \(calendarID)\(username.map { " of \($0)" } ?? "").")
            }
            self.calendarGenerations[Self.key(username, calendar.id), default: 0] += 1
            return
        }
        let usernames = username.map { [$0] } ?? Array(self.calendars.keys)
        for name in usernames {
            self.generations[name, default: 0] += 1
        }
    }

    /// The user owning an event.
    func owner(ofEvent id: String) -> String? {
        self.events[id]?.username
    }
}
