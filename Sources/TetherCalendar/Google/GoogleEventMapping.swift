import Foundation
import Tether

/// Turns Google's event JSON into ``CalendarEvent``s.
enum GoogleEventMapping {
    /// What one item of a list means: a cancelled item (a deleted event, or a cancelled instance of a recurring
    /// one) is removed.
    typealias Item = CalendarPageItem

    /// Maps a page's items; those that do not decode or map are skipped, with the reason.
    static func map(
        _ page: GoogleWire.EventsPage,
        source: CalendarSourceID,
        calendar: CalendarInfo
    ) -> ([Item], [SkippedEvent]) {
        let zone = page.timeZone.flatMap(TimeZone.init(identifier:))
        return Lossy.map(page.items ?? [], source: source, calendarID: calendar.id) {
            wire throws(CalendarDecodingError) in
            try item(wire, source: source, calendar: calendar, calendarTimeZone: zone)
        }
    }

    static func item(
        _ wire: GoogleWire.Event,
        source: CalendarSourceID,
        calendar: CalendarInfo,
        calendarTimeZone: TimeZone?
    ) throws(CalendarDecodingError) -> Item {
        if wire.status == "cancelled" { return .removed(wire.id) }
        guard let start = wire.start else {
            throw CalendarDecodingError.missingField.with(message: "The event lacks 'start'", field: "start")
        }
        guard let end = wire.end else {
            throw CalendarDecodingError.missingField.with(message: "The event lacks 'end'", field: "end")
        }
        let zoneName = start.timeZone ?? end.timeZone
        // A zone the event names but this system does not know is never replaced by the calendar's.
        let named = zoneName.flatMap(TimeZone.init(identifier:))
        let zone = zoneName == nil ? calendarTimeZone : named
        let timing: CalendarEvent.Timing
        if let date = start.date {
            guard let first = CalendarDay(date) else {
                throw CalendarDecodingError.invalidDate.with(
                    message: "The event's 'start.date' is not yyyy-mm-dd",
                    field: "start.date"
                )
            }
            let last = try end.date.map { text throws(CalendarDecodingError) in
                guard let day = CalendarDay(text) else {
                    throw CalendarDecodingError.invalidDate.with(
                        message: "The event's 'end.date' is not yyyy-mm-dd",
                        field: "end.date"
                    )
                }
                return day
            }
            timing = .allDay(first: first, end: max(last ?? first.next, first.next))
        } else {
            let from = try instant(start, field: "start", zone: zone, zoneName: zoneName)
            let to = try instant(end, field: "end", zone: zone, zoneName: zoneName)
            timing = .timed(start: from, end: max(from, to))
        }
        let status: CalendarEvent.Status = wire.status == "tentative" ? .tentative : .confirmed
        let organizer = wire.organizer.flatMap { person in
            person.displayName == nil && person.email == nil
                ? nil : CalendarEvent.Person(name: person.displayName, email: person.email)
        }
        return .event(
            CalendarEvent(
                id: wire.id,
                source: source,
                calendarID: calendar.id,
                calendarName: calendar.name,
                title: wire.summary ?? "",
                timing: timing,
                timeZone: named ?? calendarTimeZone,
                status: status,
                location: wire.location.flatMap { $0.isEmpty ? nil : $0 },
                notes: wire.description.flatMap(plainDescription),
                organizer: organizer,
                seriesID: wire.recurringEventId,
                lastModified: wire.updated.flatMap(DateParsing.rfc3339),
                link: wire.htmlLink.flatMap(URL.init(string:))
            )
        )
    }

    /// A `dateTime` with an offset is an instant; one without is read in the named time zone.
    private static func instant(
        _ value: GoogleWire.EventDateTime,
        field: String,
        zone: TimeZone?,
        zoneName: String?
    ) throws(CalendarDecodingError) -> Date {
        guard let text = value.dateTime else {
            throw CalendarDecodingError.missingField.with(
                message: "The event lacks '\(field).dateTime' and '\(field).date'",
                field: "\(field).dateTime"
            )
        }
        if let date = DateParsing.rfc3339(text) { return date }
        let bytes = Array(text.utf8)
        guard let (local, index) = DateParsing.local(bytes), index == bytes.count else {
            throw CalendarDecodingError.invalidDate.with(
                message: "The event's '\(field).dateTime' is not RFC 3339",
                field: "\(field).dateTime"
            )
        }
        guard let zone else {
            throw CalendarDecodingError.unknownTimeZone.with(
                message: "The event's '\(field).dateTime' has no offset and its time zone "
                    + (zoneName.map { "'\($0)' is unknown" } ?? "is missing"),
                field: "\(field).timeZone"
            )
        }
        return DateParsing.instant(localSeconds: local.seconds, in: zone)
    }

    /// Google descriptions may hold HTML (the web editor writes `<br>`, `<b>`, links); plain text is kept as is.
    static func plainDescription(_ text: String) -> String? {
        let plain = HTMLText.looksLikeHTML(text) ? HTMLText.plainText(text) : text
        return plain.isEmpty ? nil : plain
    }
}
