public import Foundation

extension Itinerary {
    /// An event that overlaps a flight: the person is in the air while it takes place.
    public struct Conflict: Sendable, Hashable {
        /// The event: timed, not cancelled, not one of the flight's own events.
        public var event: CalendarEvent
        /// The flight it overlaps.
        public var leg: Leg

        /// Creates a conflict.
        ///
        /// - Parameters:
        ///   - event: The event.
        ///   - leg: The flight.
        public init(event: CalendarEvent, leg: Leg) {
            self.event = event
            self.leg = leg
        }

        /// The events among `events` that overlap a leg, flight by flight, each flight's in order of start.
        static func conflicts(between legs: [Leg], and events: TimedEvents) -> [Conflict] {
            legs.flatMap { leg in
                let own = Set(leg.events.map(\.key))
                return events.overlapping(leg.interval).filter { !own.contains($0.key) }
                    .map { Conflict(event: $0, leg: leg) }
            }
        }
    }

    /// An event during a trip, with the time zone the person is in when it starts: show its time on that clock
    /// beside the home time.
    public struct EventAway: Sendable, Hashable {
        /// The event.
        public var event: CalendarEvent
        /// Where the person is when it starts: the stay's time zone, or the departure airport's during a flight.
        public var timeZone: TimeZone

        /// Creates an event away.
        ///
        /// - Parameters:
        ///   - event: The event.
        ///   - timeZone: The time zone the person is in when it starts.
        public init(event: CalendarEvent, timeZone: TimeZone) {
            self.event = event
            self.timeZone = timeZone
        }
    }
}
