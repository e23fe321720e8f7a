import Foundation
import Testing
import TetherCalendar
import TetherFlights

/// Events of one or more calendars for the itinerary tests, with what the flight detector is to find in each: the
/// tests fix the detections, so that they test the itinerary and not the detector.
struct TravelCalendar {
    var events: [CalendarEvent] = []
    var detections: [CalendarEvent.Key: FlightDetection] = [:]

    /// Adds a flight event and its detection.
    @discardableResult
    mutating func flight(
        _ number: String?,
        _ from: String,
        _ to: String,
        departs: String,
        arrives: String,
        source: CalendarSourceID = "google",
        title: String? = nil,
        notes: String? = nil,
        status: CalendarEvent.Status = .confirmed
    ) throws -> CalendarEvent {
        let departure = try moment(departs)
        let arrival = try moment(arrives)
        let origin = try #require(Airport(iataCode: from))
        let destination = try #require(Airport(iataCode: to))
        let event = CalendarEvent(
            id: "e\(events.count + 1)",
            source: source,
            calendarID: "primary",
            title: title ?? "\(number ?? "Flight") \(from) → \(to)",
            timing: .timed(start: departure, end: arrival),
            timeZone: TimeZone(identifier: origin.timeZoneIdentifier),
            status: status,
            notes: notes
        )
        events.append(event)
        detections[event.key] = FlightDetection(
            isFlight: true,
            confidence: 0.9,
            airline: number.flatMap { Airline(iataCode: String($0.prefix(2))) },
            flightNumber: number,
            departureAirport: origin,
            arrivalAirport: destination,
            departure: departure,
            arrival: arrival
        )
        return event
    }

    /// Adds an event that is not a flight.
    @discardableResult
    mutating func meeting(
        _ title: String,
        from start: String,
        to end: String,
        source: CalendarSourceID = "google",
        status: CalendarEvent.Status = .confirmed
    ) throws -> CalendarEvent {
        let event = CalendarEvent(
            id: "e\(events.count + 1)",
            source: source,
            calendarID: "primary",
            title: title,
            timing: .timed(start: try moment(start), end: try moment(end)),
            status: status
        )
        events.append(event)
        return event
    }

    /// Adds an all-day event.
    mutating func allDay(_ title: String, first: String, end: String) throws {
        let event = CalendarEvent(
            id: "e\(events.count + 1)",
            source: "google",
            calendarID: "primary",
            title: title,
            timing: .allDay(first: try #require(CalendarDay(first)), end: try #require(CalendarDay(end)))
        )
        events.append(event)
    }

    /// The itinerary of the events, with the detections fixed above.
    func itinerary(from start: String, to end: String, home: Itinerary.Home) throws -> Itinerary {
        let window = DateInterval(start: try moment(start), end: try moment(end))
        return Itinerary(events: events, window: window, home: home) { event in
            detections[event.key] ?? .notAFlight()
        }
    }
}

/// An RFC 3339 instant with its offset, as written on a boarding pass's clock: `2027-01-11T07:00:00+01:00`.
func moment(_ text: String) throws -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return try #require(formatter.date(from: text), "not RFC 3339: \(text)")
}

func zone(_ identifier: String) throws -> TimeZone {
    try #require(TimeZone(identifier: identifier))
}

/// The local wall-clock reading of `instant` in `zone`: `2027-01-14 09:30`.
func wallClock(_ instant: Date, _ zone: TimeZone) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = zone
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    return formatter.string(from: instant)
}

extension Itinerary {
    /// The zones of a date, by identifier.
    func zones(on date: String) -> [String]? {
        days.first { $0.date.description == date }?.timeZones.map(\.identifier)
    }

    func isTravelDay(_ date: String) -> Bool? {
        days.first { $0.date.description == date }?.isTravelDay
    }
}
