/// Google Calendar API v3 wire shapes ("Events: list", "CalendarList: list", "Events resource",
/// <https://developers.google.com/calendar/api/v3/reference>). Every field but `id` is optional: the minimal
/// shape of a cancelled item in an incremental sync is not documented.
enum GoogleWire {
    struct CalendarListPage: Decodable {
        var items: [CalendarListEntry]?
        var nextPageToken: String?
    }

    struct CalendarListEntry: Decodable {
        var id: String
        var summary: String?
        var summaryOverride: String?
        var primary: Bool?
        var selected: Bool?
        var timeZone: String?
        var accessRole: String?
        var backgroundColor: String?
    }

    struct EventsPage: Decodable {
        var items: [Lossy<Event>]?
        var nextPageToken: String?
        var nextSyncToken: String?
        var summary: String?
        var timeZone: String?
    }

    struct Event: Decodable {
        var id: String
        var status: String?
        var summary: String?
        var description: String?
        var location: String?
        var start: EventDateTime?
        var end: EventDateTime?
        var recurringEventId: String?
        var updated: String?
        var htmlLink: String?
        var organizer: Person?
    }

    /// `EventDateTime`: `date` for all-day events, `dateTime` (RFC 3339) with an optional IANA `timeZone` for
    /// timed ones.
    struct EventDateTime: Decodable {
        var date: String?
        var dateTime: String?
        var timeZone: String?
    }

    struct Person: Decodable {
        var email: String?
        var displayName: String?
    }
}
