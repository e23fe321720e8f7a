public import Foundation
public import TetherFlights

extension Itinerary {
    /// A journey away from home and back: its legs, where the person stays, and how many nights.
    public struct Trip: Sendable, Hashable {
        /// The legs, in order.
        public var legs: [Leg]
        /// The places the person stays between legs, in order, connections left out. The first has no
        /// ``Stop/arrival`` when the trip began before the data; the last has no ``Stop/departure`` when the trip
        /// is open.
        public var stops: [Stop]
        /// Where the person stays longest (the first such place on a tie). On a trip made only of connections,
        /// the airport of the longest connection; on a single flight away that never returns, its arrival.
        public var destination: Stop
        /// Whether the first leg leaves from outside the home area: the trip began before the first flight in the
        /// data, and the person is away when the window starts.
        public var beganBeforeData: Bool
        /// Whether the data ends before the person flies home: no later leg lands in the home area or leaves from
        /// it.
        public var isOpen: Bool
        /// The nights away: the dates, in the home time zone, from the day the trip starts to the day it ends.
        /// A trip that began before the data counts from the start of the window and an open trip to its end, so
        /// either counts at least this many.
        public var nightsAway: Int
        /// The events (timed, not cancelled, not flights) that start while the person is away, with the time zone
        /// they are in.
        public var events: [EventAway]
        /// When the person is away: from the first departure (or the start of the window, for a trip that began
        /// before it) to the last arrival (or the end of the window, for an open trip).
        public var interval: DateInterval

        /// The flight that lands in the home area; `nil` when the trip is open or ended elsewhere (the next
        /// flight leaves from home, but no flight in the data took the person there).
        public var returnLeg: Leg? { endsAtHome ? legs.last : nil }

        /// Whether the last leg lands in the home area.
        var endsAtHome: Bool
    }

    /// A place where the person stays on a trip, between two flights that are not a connection.
    public struct Stop: Sendable, Hashable {
        /// The airport the person arrives at and leaves from (the arrival of the leg before).
        public var airport: Airport
        /// The airport's time zone.
        public var timeZone: TimeZone
        /// When the person arrives; `nil` when they are there before the data begins.
        public var arrival: Date?
        /// When the person leaves; `nil` when they are still there when the data ends.
        public var departure: Date?

        /// Creates a stop.
        ///
        /// - Parameters:
        ///   - airport: The airport.
        ///   - timeZone: Its time zone.
        ///   - arrival: When the person arrives.
        ///   - departure: When the person leaves.
        public init(airport: Airport, timeZone: TimeZone, arrival: Date?, departure: Date?) {
            self.airport = airport
            self.timeZone = timeZone
            self.arrival = arrival
            self.departure = departure
        }
    }
}

/// Joins legs into trips: a trip starts with a flight that leaves the home area and ends with one that lands
/// there again.
struct TripBuilder {
    let area: HomeArea
    let window: DateInterval

    func trips(from legs: [Itinerary.Leg]) -> [Itinerary.Trip] {
        var trips: [Itinerary.Trip] = []
        var current: [Itinerary.Leg] = []
        for leg in legs {
            let fromHome = area.contains(leg.from)
            if fromHome, !current.isEmpty {
                // Back home without a flight there (a train, a drive, an airport not named home): the trip ended
                // with its last arrival.
                trips.append(trip(current, isOpen: false, endsAtHome: false))
                current = []
            }
            if current.isEmpty, fromHome, area.contains(leg.to) {
                // A flight within the home area is no trip.
                continue
            }
            current.append(leg)
            if area.contains(leg.to) {
                trips.append(trip(current, isOpen: false, endsAtHome: true))
                current = []
            }
        }
        if !current.isEmpty {
            trips.append(trip(current, isOpen: true, endsAtHome: false))
        }
        return trips
    }

    private func trip(_ legs: [Itinerary.Leg], isOpen: Bool, endsAtHome: Bool) -> Itinerary.Trip {
        let first = legs[0]
        let last = legs[legs.count - 1]
        let beganBeforeData = !area.contains(first.from)
        let start = beganBeforeData ? min(window.start, first.departure) : first.departure
        let end = isOpen ? max(window.end, last.arrival) : last.arrival
        let interval = DateInterval(start: start, end: max(start, end))

        var stops: [Itinerary.Stop] = []
        var connections: [Itinerary.Stop] = []
        if beganBeforeData {
            stops.append(
                Itinerary.Stop(
                    airport: first.from,
                    timeZone: first.departureTimeZone,
                    arrival: nil,
                    departure: first.departure
                )
            )
        }
        for (previous, next) in zip(legs, legs.dropFirst()) {
            let stop = Itinerary.Stop(
                airport: previous.to,
                timeZone: previous.arrivalTimeZone,
                arrival: previous.arrival,
                departure: next.departure
            )
            if previous.isConnection(to: next) {
                connections.append(stop)
            } else {
                stops.append(stop)
            }
        }
        if isOpen {
            stops.append(
                Itinerary.Stop(airport: last.to, timeZone: last.arrivalTimeZone, arrival: last.arrival, departure: nil)
            )
        }
        let lastStay = Itinerary.Stop(
            airport: last.to,
            timeZone: last.arrivalTimeZone,
            arrival: last.arrival,
            departure: nil
        )
        let destination =
            longest(stops, within: interval) ?? longest(connections, within: interval) ?? lastStay

        let home = area.timeZone
        let nights =
            CalendarDay(interval.end, in: home).daysSinceEpoch - CalendarDay(interval.start, in: home).daysSinceEpoch
        return Itinerary.Trip(
            legs: legs,
            stops: stops,
            destination: destination,
            beganBeforeData: beganBeforeData,
            isOpen: isOpen,
            nightsAway: max(0, nights),
            events: [],
            interval: interval,
            endsAtHome: endsAtHome
        )
    }

    /// The longest of `stops`, an open end measured to the edge of `interval`; the first on a tie.
    private func longest(_ stops: [Itinerary.Stop], within interval: DateInterval) -> Itinerary.Stop? {
        var best: (stop: Itinerary.Stop, length: TimeInterval)?
        for stop in stops {
            let length = (stop.departure ?? interval.end).timeIntervalSince(stop.arrival ?? interval.start)
            if let best, best.length >= length { continue }
            best = (stop, length)
        }
        return best?.stop
    }
}
