public import Foundation

/// One flight of a booking that lists several: an itinerary from a travel agency, a return trip, a connection.
///
/// ``FlightDetection/legs`` holds them in the order the text gives them; the detection's own fields describe the
/// leg the event is about (the one leaving nearest the event's start).
public struct FlightLeg: Sendable, Hashable, Codable {
    /// The airline whose designator the flight number carries.
    public var airline: Airline?
    /// The flight number, such as `LH455`.
    public var flightNumber: String
    /// Where the leg leaves from.
    public var departureAirport: Airport?
    /// Where the leg goes.
    public var arrivalAirport: Airport?
    /// When the leg leaves, when the text says.
    public var departure: Date?
    /// When the leg arrives, when the text says.
    public var arrival: Date?

    /// Creates a leg.
    ///
    /// - Parameters:
    ///   - airline: The airline.
    ///   - flightNumber: The flight number, such as `LH455`.
    ///   - departureAirport: The departure airport.
    ///   - arrivalAirport: The arrival airport.
    ///   - departure: The departure time.
    ///   - arrival: The arrival time.
    public init(
        airline: Airline?,
        flightNumber: String,
        departureAirport: Airport? = nil,
        arrivalAirport: Airport? = nil,
        departure: Date? = nil,
        arrival: Date? = nil
    ) {
        self.airline = airline
        self.flightNumber = flightNumber
        self.departureAirport = departureAirport
        self.arrivalAirport = arrivalAirport
        self.departure = departure
        self.arrival = arrival
    }

    private enum CodingKeys: String, CodingKey {
        case airline, flightNumber, from, to, departure, arrival
    }

    /// Reads a leg as ``encode(to:)`` writes it.
    ///
    /// - Parameter decoder: The decoder to read from.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        airline = try container.decodeIfPresent(Airline.self, forKey: .airline)
        flightNumber = try container.decode(String.self, forKey: .flightNumber)
        departureAirport = try container.decodeIfPresent(Airport.self, forKey: .from)
        arrivalAirport = try container.decodeIfPresent(Airport.self, forKey: .to)
        departure = try container.decodeFlightDate(forKey: .departure)
        arrival = try container.decodeFlightDate(forKey: .arrival)
    }

    /// Writes the leg as a report does: `from` and `to` for the airports, times as ISO 8601 in UTC.
    ///
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(airline, forKey: .airline)
        try container.encode(flightNumber, forKey: .flightNumber)
        try container.encodeIfPresent(departureAirport, forKey: .from)
        try container.encodeIfPresent(arrivalAirport, forKey: .to)
        try container.encodeIfPresent(departure.map(FlightDates.format), forKey: .departure)
        try container.encodeIfPresent(arrival.map(FlightDates.format), forKey: .arrival)
    }
}
