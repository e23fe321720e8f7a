public import Foundation

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider.Admin {
    /// The instant seeded event times are relative to: Monday 00:00 UTC of the week the provider
    /// started in, or the epoch given to ``resetCalendars(epoch:)``.
    public func calendarEpoch() async -> Date {
        await self.state.calendarStore.epoch
    }

    /// The IDs of a user's calendars, the primary one first.
    public func calendarIDs(ofUser username: String) async -> [String] {
        await self.state.calendarStore.calendars(of: username).map(\.id)
    }

    /// An event by ID; `nil` if unknown or deleted.
    public func calendarEvent(id: String) async -> DevProvider.CalendarEvent? {
        await self.state.calendarEvent(id: id)
    }

    /// Adds an event to a user's calendar.
    ///
    /// - Parameters:
    ///   - event: The event; an empty ``DevProvider/CalendarEvent/id`` lets the provider pick one.
    ///   - username: The user.
    ///   - calendarID: The calendar, or `primary`.
    /// - Returns: The event as stored, with its ID.
    /// - Throws: If the calendar is unknown, the ID is taken, or the times are inconsistent.
    @discardableResult
    public func addCalendarEvent(
        _ event: DevProvider.CalendarEvent,
        user username: String,
        calendar calendarID: String = "primary"
    ) async throws -> DevProvider.CalendarEvent {
        try await self.state.addCalendarEvent(event, username: username, calendarID: calendarID)
    }

    /// Changes an event; incremental sync reports it as changed.
    ///
    /// - Returns: The changed event.
    /// - Throws: If the event is unknown or deleted, or the new times are inconsistent.
    @discardableResult
    public func updateCalendarEvent(
        id: String,
        _ change: @Sendable (inout DevProvider.CalendarEvent) -> Void
    ) async throws -> DevProvider.CalendarEvent {
        try await self.state.updateCalendarEvent(id: id, change)
    }

    /// Deletes an event; incremental sync reports it as `cancelled` (Google) or `@removed` (Graph).
    ///
    /// - Throws: If the event is unknown or already deleted.
    public func deleteCalendarEvent(id: String) async throws {
        try await self.state.deleteCalendarEvent(id: id)
    }

    /// Adds `count` one-hour events titled "Generated event 1…N" to a calendar, `interval` apart.
    ///
    /// - Parameters:
    ///   - count: How many events.
    ///   - username: The user.
    ///   - calendarID: The calendar, or `primary`.
    ///   - start: The first event's start. Defaults to ``calendarEpoch()``.
    ///   - interval: Between starts. Defaults to 30 minutes.
    /// - Returns: The number of events added.
    /// - Throws: If the calendar is unknown.
    @discardableResult
    public func generateCalendarEvents(
        _ count: Int,
        user username: String,
        calendar calendarID: String = "primary",
        start: Date? = nil,
        interval: Duration = .seconds(1800)
    ) async throws -> Int {
        try await self.state.generateCalendarEvents(
            count: count,
            username: username,
            calendarID: calendarID,
            start: start,
            interval: interval
        )
    }

    /// Invalidates the Google sync tokens and Graph delta and skip tokens of one user (or of all):
    /// the next incremental request answers `410 Gone`.
    public func invalidateCalendarSyncTokens(ofUser username: String? = nil) async {
        try? await self.state.invalidateCalendarTokens(username: username)
    }

    /// Invalidates the Google sync tokens and Graph delta and skip tokens of one calendar of a user: the
    /// next incremental request of that calendar answers `410 Gone` (Google `fullSyncRequired`, Graph
    /// `syncStateNotFound`); the user's other calendars keep theirs.
    ///
    /// - Throws: If the user has no such calendar.
    public func invalidateCalendarSyncTokens(ofUser username: String, calendar calendarID: String) async throws {
        try await self.state.invalidateCalendarTokens(username: username, calendarID: calendarID)
    }

    /// Removes a secondary calendar, with its events, from a user's list, as when it is deleted or the
    /// user unsubscribes: neither API lists it any more; Google answers `410 Gone` (`deleted`) for its
    /// events and Graph `404 ErrorItemNotFound`.
    ///
    /// - Throws: If the user has no such secondary calendar.
    public func removeCalendar(_ calendarID: String, user username: String) async throws {
        try await self.state.removeCalendar(calendarID, username: username)
    }

    /// Ends the sharing of a calendar shared with a user (see ``addCalendar(named:user:timeZone:sharedBy:canEdit:selected:)``):
    /// Google's calendar list leaves it out and its events answer `404 notFound`; Graph still lists it
    /// (a shared calendar stays in the list) and answers `403 ErrorAccessDenied` for its events.
    ///
    /// - Throws: If no such calendar is shared with the user.
    public func unshareCalendar(_ calendarID: String, user username: String) async throws {
        try await self.state.unshareCalendar(calendarID, username: username)
    }

    /// Restores the seeded calendars, relative to `epoch` (default: Monday 00:00 UTC of the current
    /// week), and invalidates all sync tokens and delta links.
    public func resetCalendars(epoch: Date? = nil) async {
        await self.state.resetCalendars(epoch: epoch)
    }
}
