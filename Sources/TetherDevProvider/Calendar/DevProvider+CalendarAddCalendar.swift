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
    ///   - sharedBy: The e-mail address of the person who shares it with the user; `nil` for the user's own.
    ///     Google gives a shared calendar the `accessRole` `writer` or `reader`, Graph the sharer as `owner`
    ///     and `canShare: false`.
    ///   - canEdit: Whether the user may change its events (Google `owner`/`writer` or `reader`, Graph
    ///     `canEdit`).
    ///   - selected: Google's `selected`: whether it is shown, and so read by default.
    /// - Returns: The new calendar's ID, for ``addCalendarEvent(_:user:calendar:)``.
    @discardableResult
    public func addCalendar(
        named name: String,
        user username: String,
        timeZone: String = "UTC",
        sharedBy: String? = nil,
        canEdit: Bool = true,
        selected: Bool = true
    ) async -> String {
        await self.state.addCalendar(
            StoredCalendar(
                id: "",
                username: username,
                name: name,
                timeZone: timeZone,
                isPrimary: false,
                canEdit: canEdit,
                color: sharedBy == nil ? "#7bd148" : "#9a9cff",
                isSelected: selected,
                sharedBy: sharedBy
            )
        )
    }
}

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension ProviderState {
    /// Adds `template` to its user's list under a new ID.
    func addCalendar(_ template: StoredCalendar) -> String {
        let username = template.username
        let taken = Set(self.calendarStore.calendars(of: username).map(\.id))
            .union(self.calendarStore.removedCalendars[username] ?? [])
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
                name: template.name,
                timeZone: template.timeZone,
                isPrimary: false,
                canEdit: template.canEdit,
                color: template.color,
                isSelected: template.isSelected,
                sharedBy: template.sharedBy
            )
        )
        return id
    }
}
