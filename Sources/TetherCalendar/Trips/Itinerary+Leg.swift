public import Foundation
public import TetherFlights

extension Itinerary {
    /// One flight from one airport to another, with its local times.
    public struct Leg: Sendable, Hashable {
        /// The flight number, such as `UA857`, when the event says it.
        public var flightNumber: String?
        /// The airline, when the event says it.
        public var airline: Airline?
        /// Where the flight leaves from.
        public var from: Airport
        /// Where the flight lands.
        public var to: Airport
        /// When it leaves.
        public var departure: Date
        /// When it lands.
        public var arrival: Date
        /// The time zone of the departure airport (or, when the airport's is unknown, of the event).
        public var departureTimeZone: TimeZone
        /// The time zone of the arrival airport.
        public var arrivalTimeZone: TimeZone
        /// The events that describe this flight, more than one when several calendars hold it; the first is the
        /// one whose details the leg shows.
        public var events: [CalendarEvent]

        /// Creates a leg.
        ///
        /// - Parameters:
        ///   - flightNumber: The flight number.
        ///   - airline: The airline.
        ///   - from: The departure airport.
        ///   - to: The arrival airport.
        ///   - departure: When it leaves.
        ///   - arrival: When it lands.
        ///   - departureTimeZone: The departure airport's time zone.
        ///   - arrivalTimeZone: The arrival airport's time zone.
        ///   - events: The events that describe it.
        public init(
            flightNumber: String? = nil,
            airline: Airline? = nil,
            from: Airport,
            to: Airport,
            departure: Date,
            arrival: Date,
            departureTimeZone: TimeZone,
            arrivalTimeZone: TimeZone,
            events: [CalendarEvent] = []
        ) {
            self.flightNumber = flightNumber
            self.airline = airline
            self.from = from
            self.to = to
            self.departure = departure
            self.arrival = arrival
            self.departureTimeZone = departureTimeZone
            self.arrivalTimeZone = arrivalTimeZone
            self.events = events
        }

        /// From departure to arrival.
        public var interval: DateInterval { DateInterval(start: departure, end: max(departure, arrival)) }
    }
}

extension Itinerary.Leg {
    /// The legs a detection describes; none when it lacks an airport, a time or a known time zone, or when its
    /// times cannot be a flight's.
    ///
    /// This is the one place that reads a ``FlightDetection``: a detection that names several legs of one
    /// journey maps each here.
    static func legs(of event: CalendarEvent, detection: FlightDetection) -> [Itinerary.Leg] {
        // A booking of several flights (an agency's itinerary, a connection): every leg whose times the text gives.
        let booked = detection.legs.compactMap { leg -> Itinerary.Leg? in
            guard let from = leg.departureAirport, let to = leg.arrivalAirport, let departure = leg.departure,
                let arrival = leg.arrival
            else { return nil }
            return makeLeg(
                flightNumber: leg.flightNumber,
                airline: leg.airline,
                from: from,
                to: to,
                departure: departure,
                arrival: arrival,
                event: event
            )
        }
        if booked.count > 1 { return booked }
        guard let from = detection.departureAirport, let to = detection.arrivalAirport,
            let departure = detection.departure, let arrival = detection.arrival,
            let leg = makeLeg(
                flightNumber: detection.flightNumber,
                airline: detection.airline,
                from: from,
                to: to,
                departure: departure,
                arrival: arrival,
                event: event
            )
        else { return [] }
        return [leg]
    }

    /// One leg from its parts; `nil` when they cannot be a flight.
    private static func makeLeg(
        flightNumber: String?,
        airline: Airline?,
        from: Airport,
        to: Airport,
        departure: Date,
        arrival: Date,
        event: CalendarEvent
    ) -> Itinerary.Leg? {
        let duration = arrival.timeIntervalSince(departure)
        guard from.iataCode != to.iataCode, duration > 0, duration <= Itinerary.maximumFlightTime,
            let departureZone = TimeZone(identifier: from.timeZoneIdentifier) ?? event.timeZone,
            let arrivalZone = TimeZone(identifier: to.timeZoneIdentifier)
        else { return nil }
        return Itinerary.Leg(
            flightNumber: flightNumber,
            airline: airline,
            from: from,
            to: to,
            departure: departure,
            arrival: arrival,
            departureTimeZone: departureZone,
            arrivalTimeZone: arrivalZone,
            events: [event]
        )
    }

    /// Whether `next` continues this flight as a connection: it leaves from the airport (or city) this one lands
    /// at, at most ``Itinerary/connectionTime`` after it lands.
    ///
    /// - Parameter next: A later leg.
    /// - Returns: Whether the person changes planes rather than stays.
    public func isConnection(to next: Itinerary.Leg) -> Bool {
        let wait = next.departure.timeIntervalSince(arrival)
        return wait >= 0 && wait <= Itinerary.connectionTime && HomeArea.isSamePlace(to, next.from)
    }

    /// Whether two legs are the same flight written in two events: the same flight number leaving the same place
    /// on the same local day (a through flight keeps its number from stop to stop, so the place matters), or the
    /// same airports and departures at most ``Itinerary/duplicateTolerance`` apart.
    func isSameFlight(as other: Itinerary.Leg) -> Bool {
        guard HomeArea.isSamePlace(from, other.from) else { return false }
        if let number = flightNumber, number == other.flightNumber {
            return CalendarDay(departure, in: departureTimeZone)
                == CalendarDay(other.departure, in: other.departureTimeZone)
        }
        return HomeArea.isSamePlace(to, other.to)
            && abs(departure.timeIntervalSince(other.departure)) <= Itinerary.duplicateTolerance
    }

    /// `legs` ordered by departure with each flight once. Of two events for one flight, the leg of a confirmed
    /// event wins over a tentative one, then the one with a flight number, then the earlier; the other's events
    /// are added to it.
    static func mergingDuplicates(_ legs: [Itinerary.Leg]) -> [Itinerary.Leg] {
        var merged: [Itinerary.Leg] = []
        for leg in legs {
            guard let index = merged.firstIndex(where: { $0.isSameFlight(as: leg) }) else {
                merged.append(leg)
                continue
            }
            let kept = merged[index]
            var winner = leg.isPreferred(over: kept) ? leg : kept
            let loser = leg.isPreferred(over: kept) ? kept : leg
            winner.events += loser.events.filter { event in !winner.events.contains { $0.key == event.key } }
            if winner.flightNumber == nil { winner.flightNumber = loser.flightNumber }
            if winner.airline == nil { winner.airline = loser.airline }
            merged[index] = winner
        }
        return merged.sorted { lhs, rhs in
            lhs.departure != rhs.departure ? lhs.departure < rhs.departure : lhs.arrival < rhs.arrival
        }
    }

    private func isPreferred(over other: Itinerary.Leg) -> Bool {
        let confirmed = events.first?.status == .confirmed
        let otherConfirmed = other.events.first?.status == .confirmed
        if confirmed != otherConfirmed { return confirmed }
        return flightNumber != nil && other.flightNumber == nil
    }
}
