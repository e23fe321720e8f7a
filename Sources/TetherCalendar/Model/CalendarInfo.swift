/// A calendar within a source: what a calendar picker lists.
public struct CalendarInfo: Sendable, Hashable, Codable, Identifiable {
    /// The provider's identifier of the calendar.
    public var id: String
    /// The name the user sees.
    public var name: String
    /// Whether this is the account's main calendar (Google `primary`, Graph `isDefaultCalendar`).
    public var isPrimary: Bool
    /// Whether the provider marks it as shown by default (Google `selected`); `nil` when it does not say.
    public var isSelectedByDefault: Bool?
    /// The account's access to the calendar as the provider names it, when it does: Google's `accessRole`
    /// (`freeBusyReader`, `reader`, `writer`, `owner`). Graph has no such field; see ``canEdit``.
    public var accessRole: String?
    /// Whether the account may change the calendar's events, when the provider says: Graph's `canEdit`, or
    /// Google's `accessRole` of `writer` or `owner`.
    public var canEdit: Bool?
    /// The calendar's colour as `#rrggbb`, when the provider gives one: Google's `backgroundColor`, Graph's
    /// `hexColor` (empty until the user picks a colour, and then left out here).
    public var color: String?
    /// The calendar's time zone as an IANA identifier, when the provider gives one: Google's calendar list
    /// `timeZone` (for the primary calendar, the zone the person set for their account). Graph's calendars and
    /// EventKit's carry none.
    public var timeZone: String?

    /// Creates a description of a calendar.
    /// - Parameters:
    ///   - id: The identifier.
    ///   - name: The name.
    ///   - isPrimary: Whether it is the main calendar.
    ///   - isSelectedByDefault: Whether the provider shows it by default.
    public init(id: String, name: String, isPrimary: Bool = false, isSelectedByDefault: Bool? = nil) {
        self.id = id
        self.name = name
        self.isPrimary = isPrimary
        self.isSelectedByDefault = isSelectedByDefault
    }
}
