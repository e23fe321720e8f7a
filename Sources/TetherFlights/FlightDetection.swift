public import Foundation

/// What the flight detector found in an event.
///
/// Fields other than ``isFlight`` and ``confidence`` are filled in only when the event says them; a detection
/// that is not a flight leaves them empty.
public struct FlightDetection: Sendable, Hashable {
    /// Whether the event is a flight: ``confidence`` reached the detector's minimum.
    public var isFlight: Bool
    /// How sure the detector is that the event is a flight, from 0 to 1.
    public var confidence: Double
    /// The operating or marketing airline, from the flight number or the airline's name.
    public var airline: Airline?
    /// The flight number with the airline's designator and without leading zeros, such as `UA857` or `BA283`.
    public var flightNumber: String?
    /// Where the flight leaves from: an airport, or a city code such as `LON` when the text names only the city.
    public var departureAirport: Airport?
    /// Where the flight goes: an airport, or a city code such as `TYO` when the text names only the city.
    public var arrivalAirport: Airport?
    /// When the flight leaves: from the text when it says, otherwise the event's start.
    public var departure: Date?
    /// When the flight arrives: from the text when it says, otherwise the event's end.
    public var arrival: Date?
    /// Every flight of a booking that lists more than one (an agency's itinerary, a return trip, a connection),
    /// in the order the text gives them; empty when the event is about one flight.
    public var legs: [FlightLeg]

    /// Creates a detection.
    ///
    /// - Parameters:
    ///   - isFlight: Whether the event is a flight.
    ///   - confidence: How sure the detection is, from 0 to 1.
    ///   - airline: The airline.
    ///   - flightNumber: The flight number, such as `UA857`.
    ///   - departureAirport: The departure airport or city.
    ///   - arrivalAirport: The arrival airport or city.
    ///   - departure: The departure time.
    ///   - arrival: The arrival time.
    public init(
        isFlight: Bool,
        confidence: Double,
        airline: Airline? = nil,
        flightNumber: String? = nil,
        departureAirport: Airport? = nil,
        arrivalAirport: Airport? = nil,
        departure: Date? = nil,
        arrival: Date? = nil
    ) {
        self.isFlight = isFlight
        self.confidence = confidence
        self.airline = airline
        self.flightNumber = flightNumber
        self.departureAirport = departureAirport
        self.arrivalAirport = arrivalAirport
        self.departure = departure
        self.arrival = arrival
        self.legs = []
    }

    /// Creates a detection of a booking of several flights.
    ///
    /// - Parameters:
    ///   - isFlight: Whether the event is a flight.
    ///   - confidence: How sure the detection is, from 0 to 1.
    ///   - airline: The airline.
    ///   - flightNumber: The flight number, such as `UA857`.
    ///   - departureAirport: The departure airport or city.
    ///   - arrivalAirport: The arrival airport or city.
    ///   - departure: The departure time.
    ///   - arrival: The arrival time.
    ///   - legs: Every flight of a booking that lists more than one.
    public init(
        isFlight: Bool,
        confidence: Double,
        airline: Airline? = nil,
        flightNumber: String? = nil,
        departureAirport: Airport? = nil,
        arrivalAirport: Airport? = nil,
        departure: Date? = nil,
        arrival: Date?,
        legs: [FlightLeg]
    ) {
        self.isFlight = isFlight
        self.confidence = confidence
        self.airline = airline
        self.flightNumber = flightNumber
        self.departureAirport = departureAirport
        self.arrivalAirport = arrivalAirport
        self.departure = departure
        self.arrival = arrival
        self.legs = legs
    }

    /// A detection of an event that is not a flight.
    ///
    /// - Parameter confidence: How sure the detector was that it is one.
    /// - Returns: A detection with no flight fields.
    public static func notAFlight(confidence: Double = 0) -> FlightDetection {
        FlightDetection(isFlight: false, confidence: confidence)
    }
}
