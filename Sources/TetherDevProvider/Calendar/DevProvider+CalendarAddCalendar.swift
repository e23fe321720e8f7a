import Foundation

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider.Admin {
    /// Adds a secondary calendar to a user's list, named as given: both APIs list it (Google `summary`, Graph
    /// `name`). Tests use it to give a client a name it did not choose, as a shared calendar's owner can.
    ///
    /// - Parameters:
    ///   - name: The calendar's name, as the APIs will send it.
    ///   - username: The user whose list gets it.
    ///   - timeZone: The calendar's IANA time zone.
    /// - Returns: The new calendar's ID, for ``addCalendarEvent(_:user:calendar:)``.
    @discardableResult
    public func addCalendar(named name: String, user username: String, timeZone: String = "UTC") async -> String {
        await self.state.addCalendar(named: name, username: username, timeZone: timeZone)
    }
}

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension ProviderState {
    func addCalendar(named name: String, username: String, timeZone: String) -> String {
        let taken = Set(self.calendarStore.calendars(of: username).map(\.id))
        var number = taken.count
        var id: String
        repeat {
            id = "\(CalendarStore.makeID(username, "added", String(number)))@group.calendar.tether.dev"
            number += 1
        } while taken.contains(id)
        self.calendarStore.addCalendar(
            StoredCalendar(
                id: id,
                username: username,
                name: name,
                timeZone: timeZone,
                isPrimary: false,
                canEdit: true,
                color: "#7bd148"
            )
        )
        return id
    }
}
