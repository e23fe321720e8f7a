import Foundation
public import TetherFlights

extension FlightDetector.Event {
    /// What the detector reads from a calendar event: its title, plain-text description, location, times and
    /// time zone.
    ///
    /// An all-day event's days are placed in the event's own time zone, or in UTC when it names none.
    ///
    /// - Parameter event: The event from any source.
    public init(_ event: CalendarEvent) {
        let interval = event.interval(in: event.timeZone ?? TimeZone(secondsFromGMT: 0) ?? .current)
        self.init(
            title: event.title,
            description: event.notes,
            location: event.location,
            start: interval.start,
            end: interval.end,
            timeZone: event.timeZone
        )
    }
}
