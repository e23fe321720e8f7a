/// Microsoft Graph v1.0 wire shapes ("event resource type", "calendar resource type", "List calendarView",
/// "event: delta", <https://learn.microsoft.com/graph/api/resources/event>). Every field but `id` is optional:
/// a removed item in a delta page carries only `id` and `@removed`.
enum GraphWire {
    struct CalendarsPage: Decodable {
        var value: [Calendar]?
        var nextLink: String?

        enum CodingKeys: String, CodingKey {
            case value
            case nextLink = "@odata.nextLink"
        }
    }

    struct Calendar: Decodable {
        var id: String
        var name: String?
        var isDefaultCalendar: Bool?
        var canEdit: Bool?
        var hexColor: String?
    }

    struct EventsPage: Decodable {
        var value: [Lossy<Event>]?
        var nextLink: String?
        var deltaLink: String?

        enum CodingKeys: String, CodingKey {
            case value
            case nextLink = "@odata.nextLink"
            case deltaLink = "@odata.deltaLink"
        }
    }

    struct Event: Decodable {
        var id: String
        var subject: String?
        var body: ItemBody?
        var bodyPreview: String?
        var start: DateTimeTimeZone?
        var end: DateTimeTimeZone?
        var originalStartTimeZone: String?
        var isAllDay: Bool?
        var isCancelled: Bool?
        var showAs: String?
        var location: Location?
        var organizer: Recipient?
        var seriesMasterId: String?
        var lastModifiedDateTime: String?
        var webLink: String?
        var removed: Removed?

        enum CodingKeys: String, CodingKey {
            case id, subject, body, bodyPreview, start, end, originalStartTimeZone, isAllDay, isCancelled, showAs
            case location, organizer, seriesMasterId, lastModifiedDateTime, webLink
            case removed = "@removed"
        }
    }

    /// `dateTimeTimeZone`: a local time without an offset, and the zone it is in (a Windows or IANA name).
    struct DateTimeTimeZone: Decodable {
        var dateTime: String?
        var timeZone: String?
    }

    struct ItemBody: Decodable {
        var contentType: String?
        var content: String?
    }

    struct Location: Decodable {
        var displayName: String?
    }

    struct Recipient: Decodable {
        var emailAddress: EmailAddress?
    }

    struct EmailAddress: Decodable {
        var name: String?
        var address: String?
    }

    struct Removed: Decodable {
        var reason: String?
    }
}
