import Foundation

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension ProviderState {
    typealias CalendarEvent = DevProvider.CalendarEvent

    func addCalendarEvent(_ event: CalendarEvent, username: String, calendarID: String) throws -> CalendarEvent {
        try self.calendarStore.add(event, username: username, calendarID: calendarID, now: self.now)
    }

    func updateCalendarEvent(
        id: String,
        _ change: @Sendable (inout CalendarEvent) -> Void
    ) throws -> CalendarEvent {
        try self.calendarStore.update(id: id, now: self.now, change)
    }

    func deleteCalendarEvent(id: String) throws {
        try self.calendarStore.delete(id: id, now: self.now)
    }

    func calendarEvent(id: String) -> CalendarEvent? {
        guard let stored = self.calendarStore.events[id], !stored.isDeleted else { return nil }
        return stored.event
    }

    func generateCalendarEvents(
        count: Int,
        username: String,
        calendarID: String,
        start: Date?,
        interval: Duration
    ) throws -> Int {
        try self.calendarStore.generate(
            count: count,
            username: username,
            calendarID: calendarID,
            start: start ?? self.calendarStore.epoch,
            interval: interval,
            now: self.now
        )
    }

    func invalidateCalendarTokens(username: String?, calendarID: String? = nil) throws {
        try self.calendarStore.invalidateTokens(of: username, calendar: calendarID)
    }

    func removeCalendar(_ calendarID: String, username: String) throws {
        try self.calendarStore.removeCalendar(calendarID, of: username)
    }

    func unshareCalendar(_ calendarID: String, username: String) throws {
        try self.calendarStore.unshareCalendar(calendarID, of: username)
    }

    func resetCalendars(epoch: Date?) {
        self.calendarStore.reset(users: self.configuration.users, now: self.now, epoch: epoch)
    }
}
