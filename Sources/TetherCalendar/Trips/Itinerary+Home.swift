public import Foundation
public import TetherFlights

extension Itinerary {
    /// Where the person lives: a time zone, and the airports they fly from and back to.
    public struct Home: Sendable, Hashable {
        /// The home time zone: where the person is when not on a trip, and the zone of ``Itinerary/days``.
        public var timeZone: TimeZone
        /// The home airports; empty to let the itinerary find the home airport in the flights (see
        /// ``Itinerary/homeAirports``). A flight to any of them, or to another airport of the same city (same
        /// city name, country and time zone, or the city's own code such as `LON`), ends a trip.
        public var airports: [Airport]

        /// Creates a home.
        ///
        /// - Parameters:
        ///   - timeZone: The home time zone.
        ///   - airports: The home airports; empty to find one in the flights.
        public init(timeZone: TimeZone, airports: [Airport] = []) {
            self.timeZone = timeZone
            self.airports = airports
        }
    }
}

/// The area a flight must reach to end a trip: the home airports and their cities, or the home time zone when no
/// airport is known (docs/decisions.md §40).
struct HomeArea: Sendable {
    let timeZone: TimeZone
    let airports: [Airport]

    init(home: Itinerary.Home, legs: [Itinerary.Leg]) {
        timeZone = home.timeZone
        airports = home.airports.isEmpty ? Self.inferredAirports(legs: legs, timeZone: home.timeZone) : home.airports
    }

    /// Whether `airport` is in the home area.
    func contains(_ airport: Airport) -> Bool {
        guard !airports.isEmpty else { return Self.zoneIdentifier(airport) == timeZone.identifier }
        return airports.contains { Self.isSamePlace($0, airport) }
    }

    /// The same airport, or two airports (or an airport and a city code) of the same city: same name, country and
    /// time zone, so that Portland, Oregon is not Portland, Maine.
    static func isSamePlace(_ lhs: Airport, _ rhs: Airport) -> Bool {
        if lhs.iataCode == rhs.iataCode { return true }
        guard !lhs.city.isEmpty, !lhs.countryCode.isEmpty else { return false }
        return lhs.city.caseInsensitiveCompare(rhs.city) == .orderedSame && lhs.countryCode == rhs.countryCode
            && zoneIdentifier(lhs) == zoneIdentifier(rhs)
    }

    /// The canonical identifier of the airport's time zone; `nil` when unknown.
    static func zoneIdentifier(_ airport: Airport) -> String? {
        TimeZone(identifier: airport.timeZoneIdentifier)?.identifier
    }

    /// The home airport the flights show: the first journey (legs joined by connections) that leaves from the home
    /// time zone gives its first airport; failing that, the first that lands in it gives its last.
    static func inferredAirports(legs: [Itinerary.Leg], timeZone: TimeZone) -> [Airport] {
        var journeys: [[Itinerary.Leg]] = []
        for leg in legs {
            if let last = journeys.last?.last, last.isConnection(to: leg) {
                journeys[journeys.count - 1].append(leg)
            } else {
                journeys.append([leg])
            }
        }
        for journey in journeys {
            guard let first = journey.first, let last = journey.last else { continue }
            if first.departureTimeZone.identifier == timeZone.identifier { return [first.from] }
            if last.arrivalTimeZone.identifier == timeZone.identifier { return [last.to] }
        }
        return []
    }
}
