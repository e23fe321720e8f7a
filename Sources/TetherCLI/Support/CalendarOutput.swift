import Foundation
import TetherCalendar
import TetherCommandSupport
import TetherFlights

/// How `tether calendar events` and `tether calendar flights` print events: JSON for scripts, a table per day for
/// people.
enum CalendarOutput {
    static func encoder(includesAccount: Bool = false) -> JSONEncoder {
        CalendarSourceRow.encoder(includesAccount: includesAccount)
    }

    /// An event's start and end as printed: ISO 8601 instants, or dates (`YYYY-MM-DD`, the end exclusive) for an
    /// all-day event.
    static func times(_ event: CalendarEvent) -> (start: String, end: String) {
        switch event.timing {
        case .timed(let start, let end): (Format.iso8601(start) ?? "", Format.iso8601(end) ?? "")
        case .allDay(let first, let end): (first.description, end.description)
        }
    }

    /// One event of `tether calendar events --json`.
    struct Event: Encodable {
        let event: CalendarEvent

        enum CodingKeys: String, CodingKey {
            case source, calendar, id, title, start, end, allDay, timeZone, status, location
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            let (start, end) = CalendarOutput.times(event)
            try container.encode(event.source.rawValue, forKey: .source)
            try container.encode(event.calendarID, forKey: .calendar)
            try container.encode(event.id, forKey: .id)
            try container.encode(event.title, forKey: .title)
            try container.encode(start, forKey: .start)
            try container.encode(end, forKey: .end)
            try container.encode(event.isAllDay, forKey: .allDay)
            try container.encode(event.timeZone?.identifier, forKey: .timeZone)
            try container.encode(event.status.rawValue, forKey: .status)
            try container.encode(event.location, forKey: .location)
        }
    }

    /// `tether calendar events --json`: one object with the sources and the events.
    struct Events: Encodable {
        let sources: [CalendarSourceRow]
        let events: [Event]
    }

    /// One flight of `tether calendar flights --json`: the event, and the detection in the shape `--input` prints.
    struct Flight: Encodable {
        let event: CalendarEvent
        let detection: FlightDetector.Report

        enum CodingKeys: String, CodingKey {
            case event, detection
        }

        enum EventKeys: String, CodingKey {
            case source, id, title, start, end
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var nested = container.nestedContainer(keyedBy: EventKeys.self, forKey: .event)
            let (start, end) = CalendarOutput.times(event)
            try nested.encode(event.source.rawValue, forKey: .source)
            try nested.encode(event.id, forKey: .id)
            try nested.encode(event.title, forKey: .title)
            try nested.encode(start, forKey: .start)
            try nested.encode(end, forKey: .end)
            try container.encode(detection, forKey: .detection)
        }
    }

    /// The flights among `events`: the detector on each event that takes place, the flights kept, in order.
    static func flights(in events: [CalendarEvent]) -> [Flight] {
        let detector = FlightDetector()
        return events.compactMap { event in
            guard event.status != .cancelled else { return nil }
            let detection = detector.detect(FlightDetector.Event(event))
            return detection.isFlight ? Flight(event: event, detection: FlightDetector.Report(detection)) : nil
        }
    }

    // MARK: - For people

    static func formatter(_ format: String, _ timeZone: TimeZone) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = format
        return formatter
    }

    /// A heading per day, then a table of that day's events: time, title, place, source and calendar. Events of a
    /// source that did not load fresh are marked `(cached)`. Titles, places and calendar names are the calendar's
    /// (anyone who can invite the user writes them): ``Format/table(_:)`` makes them safe.
    static func days(
        _ events: [CalendarEvent],
        rows: [CalendarSourceRow],
        window: DateInterval,
        timeZone: TimeZone,
        style: Style
    ) -> [String] {
        let stale = Set(rows.filter { $0.served != .fresh }.map(\.name))
        let heading = formatter("EEEE d MMMM yyyy", timeZone)
        let time = formatter("HH:mm", timeZone)
        let dayAndTime = formatter("EEE HH:mm", timeZone)
        var days: [(day: CalendarDay, events: [CalendarEvent])] = []
        for event in events {
            let day = CalendarDay(max(event.interval(in: timeZone).start, window.start), in: timeZone)
            if days.last?.day == day {
                days[days.count - 1].events.append(event)
            } else {
                days.append((day, [event]))
            }
        }
        var lines: [String] = []
        for (day, dayEvents) in days {
            if !lines.isEmpty { lines.append("") }
            lines.append(style.bold(heading.string(from: day.start(in: timeZone))))
            let table = dayEvents.map { event -> [Format.Cell] in
                let when: String
                switch event.timing {
                case .allDay:
                    when = "all day"
                case .timed(let start, let end):
                    let sameDay = CalendarDay(start, in: timeZone) == CalendarDay(end, in: timeZone)
                    when = time.string(from: start) + "–" + (sameDay ? time : dayAndTime).string(from: end)
                }
                var title = event.title.isEmpty ? "(no title)" : event.title
                if event.status != .confirmed { title += " (\(event.status.rawValue))" }
                let source =
                    "\(event.source) · \(event.calendarName ?? event.calendarID)"
                    + (stale.contains(event.source.rawValue) ? " (cached)" : "")
                let cells = ["  " + when, title, event.location ?? "", source]
                return event.status == .cancelled ? Format.cells(cells, style: style.dim) : Format.cells(cells)
            }
            lines += Format.table(table)
        }
        return lines
    }

    /// A table of flights: date, flight number, route, departure and arrival, title, source. Departure and arrival
    /// are on the clocks of their airports, as a boarding pass shows them, each with its zone's abbreviation
    /// (`timeZone`'s where the airport's zone is not known); the date is the departure's there.
    static func flightTable(_ flights: [Flight], timeZone: TimeZone, style: Style) -> [String] {
        var zones = ZoneAbbreviations()
        func zone(_ airport: Airport?) -> TimeZone {
            airport.flatMap { TimeZone(identifier: $0.timeZoneIdentifier) } ?? timeZone
        }
        func clock(_ instant: Date?, at airport: Airport?) -> String {
            guard let instant else { return "—" }
            let zone = zone(airport)
            return formatter("EEE d MMM HH:mm", zone).string(from: instant) + " "
                + zones.abbreviation(zone, at: instant)
        }
        let header = ["DATE", "FLIGHT", "ROUTE", "DEPARTS", "ARRIVES", "TITLE", "SOURCE"]
        var table = [Format.cells(header, style: style.bold)]
        for flight in flights {
            let detection = flight.detection
            let start = detection.departure ?? flight.event.interval(in: timeZone).start
            let route = "\(detection.from?.iataCode ?? "?") → \(detection.to?.iataCode ?? "?")"
            table.append(
                Format.cells([
                    formatter("EEE d MMM", zone(detection.departure == nil ? nil : detection.from)).string(from: start),
                    detection.flightNumber ?? "—", route, clock(detection.departure, at: detection.from),
                    clock(detection.arrival, at: detection.to), flight.event.title, flight.event.source.rawValue,
                ])
            )
        }
        return Format.table(table)
    }
}
