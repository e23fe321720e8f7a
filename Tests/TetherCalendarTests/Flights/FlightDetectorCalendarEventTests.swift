import Foundation
import Testing
import TetherCalendar
import TetherFlights

/// What the flight detector reads from a calendar event.
struct FlightDetectorCalendarEventTests {
    @Test func aCalendarEventIsReadWithItsNotesTimesAndZone() throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let zone = try #require(TimeZone(identifier: "America/Los_Angeles"))
        let event = CalendarEvent(
            id: "e1",
            source: "work",
            calendarID: "primary",
            title: "Flight to Berlin",
            timing: .timed(start: start, end: start.addingTimeInterval(11 * 3600)),
            timeZone: zone,
            location: "SFO",
            notes: "Lufthansa LH 455 · Departure: San Francisco (SFO) · Arrival: Frankfurt (FRA)"
        )
        let input = FlightDetector.Event(event)
        #expect(input.title == "Flight to Berlin")
        #expect(input.description == event.notes)
        #expect(input.location == "SFO")
        #expect(input.start == start)
        #expect(input.end == start.addingTimeInterval(11 * 3600))
        #expect(input.timeZone == zone)
        #expect(FlightDetector().detect(input).flightNumber == "LH455")

        let day = try #require(CalendarDay("2027-03-04"))
        let allDay = CalendarEvent(
            id: "e2",
            source: "work",
            calendarID: "primary",
            title: "Offsite",
            timing: .allDay(first: day, end: day.next)
        )
        let utc = try #require(TimeZone(secondsFromGMT: 0))
        #expect(FlightDetector.Event(allDay).start == day.start(in: utc))
        #expect(FlightDetector.Event(allDay).end == day.next.start(in: utc))
    }
}
