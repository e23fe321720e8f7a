import Foundation
import Tether
import TetherCalendar
import TetherCommandSupport
import TetherFlights

/// How `tether calendar trips` prints an ``TetherCalendar/Itinerary``: JSON for scripts (the shape its help
/// documents), blocks of text for people.
struct TripsOutput {
    /// Where the home time zone came from.
    enum ZoneOrigin: Equatable {
        /// `--home-zone`.
        case option
        /// The main calendar of the source named.
        case calendar(source: String)
        /// The system's zone (`TZ`): no calendar named one.
        case system

        /// Its name in the JSON.
        var name: String {
            switch self {
            case .option: "option"
            case .calendar: "calendar"
            case .system: "system"
            }
        }

        /// The source whose calendar gave the zone.
        var source: String? {
            guard case .calendar(let source) = self else { return nil }
            return source
        }
    }

    /// Where the home time zone came from.
    var zoneOrigin = ZoneOrigin.option
    var zones = ZoneAbbreviations()

    // MARK: - JSON

    /// `null` in the JSON when there is no value, so that every key is always there.
    struct OrNull<Value: Encodable>: Encodable {
        let value: Value?

        init(_ value: Value?) {
            self.value = value
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            if let value { try container.encode(value) } else { try container.encodeNil() }
        }
    }

    /// An instant on a clock.
    struct Time: Encodable {
        let utc: String
        let local: String
        let timeZone: String
        let abbreviation: String
    }

    struct Window: Encodable {
        let start: String
        let end: String
    }

    struct Home: Encodable {
        let timeZone: String
        let timeZoneFrom: String
        let timeZoneSource: OrNull<String>
        let airports: [String]
    }

    struct Place: Encodable {
        let iataCode: String
        let name: String
        let city: String
        let countryCode: String
        let timeZone: String
    }

    struct EventReference: Encodable {
        let source: String
        let id: String
    }

    struct Leg: Encodable {
        let flightNumber: OrNull<String>
        let airline: OrNull<String>
        let from: Place
        let to: Place
        let departure: Time
        let arrival: Time
        let connection: Bool
        let events: [EventReference]
    }

    struct Stop: Encodable {
        let airport: Place
        let arrival: OrNull<Time>
        let departure: OrNull<Time>
    }

    struct EventAway: Encodable {
        let source: String
        let id: String
        let title: String
        let local: Time
        let home: Time
    }

    struct Trip: Encodable {
        let destination: Stop
        let start: Time
        let end: Time
        let nightsAway: Int
        let open: Bool
        let beganBeforeData: Bool
        let returned: Bool
        let legs: [Leg]
        let stops: [Stop]
        let events: [EventAway]
    }

    struct Day: Encodable {
        let date: String
        let timeZones: [String]
        let travel: Bool
    }

    struct Conflict: Encodable {
        let event: CalendarOutput.Event
        let flight: Leg
    }

    struct Document: Encodable {
        let window: Window
        let home: Home
        let trips: [Trip]
        let days: [Day]
        let conflicts: [Conflict]
        let unplacedFlights: [CalendarOutput.Event]
    }

    mutating func document(_ itinerary: Itinerary) -> Document {
        let homeZone = itinerary.home.timeZone
        return Document(
            window: Window(
                start: Format.iso8601(itinerary.window.start) ?? "",
                end: Format.iso8601(itinerary.window.end) ?? ""
            ),
            home: Home(
                timeZone: homeZone.identifier,
                timeZoneFrom: zoneOrigin.name,
                timeZoneSource: OrNull(zoneOrigin.source),
                airports: itinerary.homeAirports.map(\.iataCode)
            ),
            trips: itinerary.trips.map { trip in
                Trip(
                    destination: stop(trip.destination),
                    start: time(trip.interval.start, homeZone),
                    end: time(trip.interval.end, homeZone),
                    nightsAway: trip.nightsAway,
                    open: trip.isOpen,
                    beganBeforeData: trip.beganBeforeData,
                    returned: trip.returnLeg != nil,
                    legs: trip.legs.map { leg($0, among: trip.legs) },
                    stops: trip.stops.map { stop($0) },
                    events: trip.events.map { away in
                        let start = away.event.interval(in: homeZone).start
                        return EventAway(
                            source: away.event.source.rawValue,
                            id: away.event.id,
                            title: away.event.title,
                            local: time(start, away.timeZone),
                            home: time(start, homeZone)
                        )
                    }
                )
            },
            days: itinerary.days.map { day in
                Day(date: day.date.description, timeZones: day.timeZones.map(\.identifier), travel: day.isTravelDay)
            },
            conflicts: itinerary.conflicts.map { conflict in
                Conflict(
                    event: CalendarOutput.Event(event: conflict.event),
                    flight: leg(conflict.leg, among: itinerary.legs)
                )
            },
            unplacedFlights: itinerary.unplacedFlights.map { CalendarOutput.Event(event: $0) }
        )
    }

    private mutating func time(_ instant: Date, _ zone: TimeZone) -> Time {
        Time(
            utc: Format.iso8601(instant) ?? "",
            local: CalendarOutput.formatter("yyyy-MM-dd'T'HH:mm:ssxxxxx", zone).string(from: instant),
            timeZone: zone.identifier,
            abbreviation: zones.abbreviation(zone, at: instant)
        )
    }

    private func place(_ airport: Airport) -> Place {
        Place(
            iataCode: airport.iataCode,
            name: airport.name,
            city: airport.city,
            countryCode: airport.countryCode,
            timeZone: airport.timeZoneIdentifier
        )
    }

    /// A leg; a connection when the one before it in `legs` lands where it leaves from, within a day.
    private mutating func leg(_ leg: Itinerary.Leg, among legs: [Itinerary.Leg]) -> Leg {
        let index = legs.firstIndex(of: leg)
        let connection = index.map { $0 > legs.startIndex && legs[$0 - 1].isConnection(to: leg) } ?? false
        return Leg(
            flightNumber: OrNull(leg.flightNumber),
            airline: OrNull(leg.airline?.name),
            from: place(leg.from),
            to: place(leg.to),
            departure: time(leg.departure, leg.departureTimeZone),
            arrival: time(leg.arrival, leg.arrivalTimeZone),
            connection: connection,
            events: leg.events.map { EventReference(source: $0.source.rawValue, id: $0.id) }
        )
    }

    private mutating func stop(_ stop: Itinerary.Stop) -> Stop {
        Stop(
            airport: place(stop.airport),
            arrival: OrNull(stop.arrival.map { time($0, stop.timeZone) }),
            departure: OrNull(stop.departure.map { time($0, stop.timeZone) })
        )
    }

    // MARK: - For people

    /// `Wed 24 Mar 10:00 CET`: a time on a clock, with its zone's abbreviation.
    private mutating func clock(_ instant: Date, _ zone: TimeZone) -> String {
        CalendarOutput.formatter("EEE d MMM HH:mm", zone).string(from: instant) + " "
            + zones.abbreviation(zone, at: instant)
    }

    /// `Europe/Berlin (CET)` on a date: the abbreviation at the date's noon.
    private mutating func zoneName(_ zone: TimeZone, on date: CalendarDay) -> String {
        "\(zone.identifier) (\(zones.abbreviation(zone, at: date.start(in: zone).addingTimeInterval(12 * 3600))))"
    }

    private func route(_ leg: Itinerary.Leg) -> String {
        "\(leg.from.iataCode) → \(leg.to.iataCode)"
    }

    /// Every trip in a block, the conflicts, the flights that could not be placed, then where the person is each
    /// day. Titles and flight numbers come from calendars: ``Format/table(_:)`` and
    /// ``UntrustedText/forTerminal(_:)`` make them safe.
    mutating func text(_ itinerary: Itinerary, style: Style) -> [String] {
        let homeZone = itinerary.home.timeZone
        let day = CalendarOutput.formatter("EEE d MMM", homeZone)
        var lines: [String] = []
        let airports = itinerary.homeAirports.map(\.iataCode).joined(separator: ", ")
        let origin =
            switch zoneOrigin {
            case .option: ""
            case .calendar(let source):
                " (the zone of the main calendar of '\(UntrustedText.forTerminal(source))')"
            case .system: " (this system's zone: no calendar names one)"
            }
        lines.append(
            style.bold("Home: ") + homeZone.identifier + origin
                + (airports.isEmpty ? " · no home airport in the flights" : " · \(airports)")
        )
        if itinerary.trips.isEmpty {
            lines.append("")
            lines.append(
                "No trips from \(Format.iso8601(itinerary.window.start) ?? "") to "
                    + "\(Format.iso8601(itinerary.window.end) ?? "")."
            )
        }
        for trip in itinerary.trips {
            lines.append("")
            let destination = trip.destination.airport
            var heading =
                "Trip to \(destination.city.isEmpty ? destination.name : destination.city) (\(destination.iataCode))"
            heading += " · \(trip.nightsAway) \(trip.nightsAway == 1 ? "night" : "nights")"
            heading += " · \(day.string(from: trip.interval.start)) → \(day.string(from: trip.interval.end))"
            if trip.beganBeforeData { heading += " · began before the window" }
            if trip.isOpen { heading += " · open: no flight home in the window" }
            lines.append(style.bold(UntrustedText.forTerminal(heading)))
            var legs: [[Format.Cell]] = []
            for (index, leg) in trip.legs.enumerated() {
                let connection = index > 0 && trip.legs[index - 1].isConnection(to: leg)
                legs.append(
                    Format.cells([
                        "  " + (leg.flightNumber ?? "—"), route(leg), clock(leg.departure, leg.departureTimeZone),
                        "→ " + clock(leg.arrival, leg.arrivalTimeZone), connection ? "connection" : "",
                    ])
                )
            }
            lines += Format.table(legs)
            if !trip.events.isEmpty {
                lines.append("  While away (local · home):")
                var rows: [[Format.Cell]] = []
                for away in trip.events {
                    let start = away.event.interval(in: homeZone).start
                    rows.append(
                        Format.cells([
                            "    " + clock(start, away.timeZone), clock(start, homeZone),
                            away.event.title.isEmpty ? "(no title)" : away.event.title,
                        ])
                    )
                }
                lines += Format.table(rows)
            }
        }
        if !itinerary.conflicts.isEmpty {
            lines.append("")
            lines.append(style.bold("Overlapping a flight:"))
            var rows: [[Format.Cell]] = []
            for conflict in itinerary.conflicts {
                let start = conflict.event.interval(in: homeZone).start
                let zone = itinerary.timeZone(at: start)
                rows.append(
                    Format.cells([
                        "  " + (conflict.event.title.isEmpty ? "(no title)" : conflict.event.title), clock(start, zone),
                        "during \(conflict.leg.flightNumber ?? "the flight") \(route(conflict.leg))",
                    ])
                )
            }
            lines += Format.table(rows)
        }
        if !itinerary.unplacedFlights.isEmpty {
            lines.append("")
            lines.append(style.bold("Flights without airports or times (not placed):"))
            lines += Format.table(
                itinerary.unplacedFlights.map { event in
                    Format.cells(["  " + (event.title.isEmpty ? "(no title)" : event.title), event.source.rawValue])
                }
            )
        }
        lines.append("")
        lines.append(style.bold("Where:"))
        // A date is the same everywhere: printed from its midnight in UTC.
        let utc = TimeZone(secondsFromGMT: 0) ?? homeZone
        let date = CalendarOutput.formatter("EEE d MMM yyyy", utc)
        var rows: [[Format.Cell]] = []
        for entry in itinerary.days {
            let names = entry.timeZones.map { zoneName($0, on: entry.date) }.joined(separator: " → ")
            rows.append(
                Format.cells([
                    "  " + date.string(from: entry.date.start(in: utc)), names,
                    entry.isTravelDay ? "travel" : "",
                ])
            )
        }
        lines += Format.table(rows)
        // An empty last column leaves the padding of the one before it.
        return lines.map { line in String(line.reversed().drop { $0 == " " }.reversed()) }
    }
}
