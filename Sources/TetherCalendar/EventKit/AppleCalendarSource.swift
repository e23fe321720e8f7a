// The device's calendar through EventKit. This file is compiled on Apple platforms only and was not compiled on
// Linux, where the package is built and tested; everything it decides lives in EventKitMapping.swift, which is.
#if canImport(EventKit)
public import EventKit
public import Foundation

/// The device's calendar (Apple Calendar, with every account the user added to it) as a ``CalendarSource``.
///
/// It never asks for permission itself: call `EKEventStore.requestFullAccessToEvents()` (iOS 17, macOS 14) or
/// `requestAccess(to: .event)` from the app's user interface, then fetch. Its status follows the authorization:
/// see ``EventKitAuthorization/sourceStatus``.
public final class AppleCalendarSource: CalendarSource, @unchecked Sendable {
    /// The source's name; `apple-calendar` by default.
    public let id: CalendarSourceID
    /// ``CalendarSourceKind/apple``.
    public var kind: CalendarSourceKind { .apple }

    // EKEventStore is thread-safe for reading; it is not marked Sendable.
    private let store: EKEventStore
    private let timeZone: @Sendable () -> TimeZone

    /// Creates a source.
    /// - Parameters:
    ///   - store: The event store; one per app is recommended.
    ///   - id: The source's name.
    ///   - timeZone: The device's time zone, for floating all-day events.
    public init(
        store: EKEventStore = EKEventStore(),
        id: CalendarSourceID = "apple-calendar",
        timeZone: @escaping @Sendable () -> TimeZone = { TimeZone.current }
    ) {
        self.store = store
        self.id = id
        self.timeZone = timeZone
    }

    /// The authorization as a status.
    public func accessStatus() async -> CalendarSourceStatus { authorization.sourceStatus }

    private var authorization: EventKitAuthorization {
        EventKitAuthorization(eventKitRawValue: EKEventStore.authorizationStatus(for: .event).rawValue)
    }

    /// The device's event calendars.
    public func calendars() async throws -> [CalendarInfo] {
        try checkAccess()
        let defaultID = store.defaultCalendarForNewEvents?.calendarIdentifier
        return store.calendars(for: .event).map {
            CalendarInfo(id: $0.calendarIdentifier, name: $0.title, isPrimary: $0.calendarIdentifier == defaultID)
        }
    }

    /// Reads the events in `window` from the chosen calendars (all of them by default).
    public func sync(
        from state: CalendarSyncState,
        window: DateInterval,
        calendars selection: Set<String>?
    ) async throws -> CalendarSyncOutcome {
        try checkAccess()
        let all = store.calendars(for: .event)
        let chosen = selection.map { ids in all.filter { ids.contains($0.calendarIdentifier) } } ?? all
        let predicate = store.predicateForEvents(withStart: window.start, end: window.end, calendars: chosen)
        let zone = timeZone()
        var outcome = CalendarSyncOutcome(state: CalendarSyncState())
        for calendar in chosen {
            outcome.state.calendars[calendar.calendarIdentifier] = CalendarSyncState.Calendar(
                info: CalendarInfo(id: calendar.calendarIdentifier, name: calendar.title),
                window: window
            )
            outcome.modes[calendar.calendarIdentifier] = .full
        }
        for event in store.events(matching: predicate) {
            let mapped = Self.fields(event).event(source: id, deviceTimeZone: zone)
            outcome.state.calendars[mapped.calendarID]?.events[mapped.id] = mapped
            outcome.changed += 1
        }
        return outcome
    }

    private func checkAccess() throws {
        let status = authorization.sourceStatus
        guard status.kind == .connected else {
            throw CalendarError.accessDenied.with(message: "Calendar access on this device: \(status)")
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
#endif
