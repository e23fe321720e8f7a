import Foundation
import Tether

/// Turns Graph's event JSON into ``CalendarEvent``s.
enum GraphEventMapping {
    /// What one item of a page means: a delta item with `@removed` (deleted, or moved out of the window) is
    /// removed.
    typealias Item = CalendarPageItem

    /// A time zone from the name Graph gives: an IANA name, a Windows name, or Outlook's `tzone://Microsoft/…`
    /// forms for UTC.
    static func zone(named name: String) -> TimeZone? {
        switch name {
        case "UTC", "Etc/UTC", "tzone://Microsoft/Utc", "Coordinated Universal Time": return TimeZone(identifier: "UTC")
        default: break
        }
        if let iana = WindowsTimeZones.ianaByWindowsName[name] { return TimeZone(identifier: iana) }
        if name.contains("/") { return TimeZone(identifier: name) }
        return nil
    }

    /// Maps a page's items; those that do not decode or map are skipped, with the reason.
    static func map(
        _ page: GraphWire.EventsPage,
        source: CalendarSourceID,
        calendar: CalendarInfo
    ) -> ([Item], [SkippedEvent]) {
        Lossy.map(page.value ?? [], source: source, calendarID: calendar.id) { wire throws(CalendarDecodingError) in
            try item(wire, source: source, calendar: calendar)
        }
    }

    static func item(
        _ wire: GraphWire.Event,
        source: CalendarSourceID,
        calendar: CalendarInfo
    ) throws(CalendarDecodingError) -> Item {
        if wire.removed != nil { return .removed(wire.id) }
        let (startLocal, startZone) = try local(wire.start, field: "start")
        let (endLocal, endZone) = try local(wire.end, field: "end")
        let start = DateParsing.instant(localSeconds: startLocal.seconds, in: startZone)
        let end = DateParsing.instant(localSeconds: endLocal.seconds, in: endZone)
        let original = wire.originalStartTimeZone.flatMap(zone(named:))
        let timing: CalendarEvent.Timing
        if wire.isAllDay == true {
            // All-day events run from midnight to midnight in their own zone. With `Prefer: outlook.timezone` the
            // times may come converted to another zone; read the days back in the original zone then.
            let first = startLocal.isMidnight ? startLocal.day : CalendarDay(start, in: original ?? startZone)
            let last = endLocal.isMidnight ? endLocal.day : CalendarDay(end, in: original ?? endZone)
            timing = .allDay(first: first, end: max(last, first.next))
        } else {
            timing = .timed(start: start, end: max(start, end))
        }
        let status: CalendarEvent.Status =
            wire.isCancelled == true ? .cancelled : wire.showAs?.lowercased() == "tentative" ? .tentative : .confirmed
        let organizer = wire.organizer?.emailAddress.flatMap { address in
            address.name == nil && address.address == nil
                ? nil : CalendarEvent.Person(name: address.name, email: address.address)
        }
        return .event(
            CalendarEvent(
                id: wire.id,
                source: source,
                calendarID: calendar.id,
                calendarName: calendar.name,
                title: wire.subject ?? "",
                timing: timing,
                timeZone: original ?? (startZone.identifier == "UTC" ? nil : startZone),
                status: status,
                location: wire.location?.displayName.flatMap { $0.isEmpty ? nil : $0 },
                notes: notes(wire),
                organizer: organizer,
                seriesID: wire.seriesMasterId,
                lastModified: wire.lastModifiedDateTime.flatMap(DateParsing.rfc3339),
                link: wire.webLink.flatMap(URL.init(string:))
            )
        )
    }

    private static func local(
        _ value: GraphWire.DateTimeTimeZone?,
        field: String
    ) throws(CalendarDecodingError) -> (DateParsing.Local, TimeZone) {
        guard let value, let text = value.dateTime else {
            throw CalendarDecodingError.missingField.with(
                message: "The event lacks '\(field).dateTime'",
                field: "\(field).dateTime"
            )
        }
        let bytes = Array(text.utf8)
        guard let (local, index) = DateParsing.local(bytes) else {
            throw CalendarDecodingError.invalidDate.with(
                message: "The event's '\(field).dateTime' is not ISO 8601",
                field: "\(field).dateTime"
            )
        }
        if index < bytes.count, let instant = DateParsing.rfc3339(text) {
            // An offset after all: the instant is exact; read the local time in UTC.
            let seconds = instant.timeIntervalSince1970
            let day = CalendarDay(instant, in: TimeZone(identifier: "UTC")!)
            let rest = seconds - Double(day.daysSinceEpoch) * 86_400
            let hour = Int(rest / 3600)
            let minute = Int(rest.truncatingRemainder(dividingBy: 3600) / 60)
            let second = rest.truncatingRemainder(dividingBy: 60)
            return (
                DateParsing.Local(day: day, hour: hour, minute: minute, second: second), TimeZone(identifier: "UTC")!
            )
        }
        guard index == bytes.count else {
            throw CalendarDecodingError.invalidDate.with(
                message: "The event's '\(field).dateTime' is not ISO 8601",
                field: "\(field).dateTime"
            )
        }
        let name = value.timeZone ?? "UTC"
        guard let zone = zone(named: name) else {
            throw CalendarDecodingError.unknownTimeZone.with(
                message: "The event's '\(field).timeZone' '\(name)' is not a known Windows or IANA time zone",
                field: "\(field).timeZone"
            )
        }
        return (local, zone)
    }

    private static func notes(_ wire: GraphWire.Event) -> String? {
        let text: String?
        if let body = wire.body, let content = body.content {
            text = body.contentType?.lowercased() == "html" ? HTMLText.plainText(content) : content
        } else {
            text = wire.bodyPreview
        }
        guard let text else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
