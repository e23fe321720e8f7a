public import Foundation

extension FlightDetector {
    /// A detection in the JSON shape `tether calendar flights` prints.
    ///
    /// ```json
    /// {"isFlight": true, "confidence": 0.95,
    ///  "airline": {"iataCode": "UA", "name": "United Airlines"}, "flightNumber": "UA857",
    ///  "from": {"iataCode": "SFO", "name": "San Francisco International Airport", "city": "San Francisco", ...},
    ///  "to": {"iataCode": "PEK", ...},
    ///  "departure": "2027-04-02T18:30:00Z", "arrival": "2027-04-03T06:15:00Z"}
    /// ```
    ///
    /// `isFlight` and `confidence` are always present; the other keys only when found. `legs` lists every flight
    /// of a booking that names several, each with `flightNumber` and, when found, `airline`, `from`, `to`,
    /// `departure` and `arrival`. Dates are ISO 8601 in UTC
    /// whatever the encoder's date strategy.
    public struct Report: Sendable, Hashable, Codable {
        /// Whether the event is a flight.
        public var isFlight: Bool
        /// How sure the detector is, from 0 to 1, rounded to two decimals.
        public var confidence: Double
        /// The airline.
        public var airline: Airline?
        /// The flight number, such as `UA857`.
        public var flightNumber: String?
        /// The departure airport or city.
        public var from: Airport?
        /// The arrival airport or city.
        public var to: Airport?
        /// The departure time.
        public var departure: Date?
        /// The arrival time.
        public var arrival: Date?
        /// Every flight of a booking that lists several (``FlightDetection/legs``); absent from the JSON when empty.
        public var legs: [FlightLeg]

        /// Creates the report of a detection.
        ///
        /// - Parameter detection: The detection to report.
        public init(_ detection: FlightDetection) {
            isFlight = detection.isFlight
            confidence = (detection.confidence * 100).rounded() / 100
            airline = detection.airline
            flightNumber = detection.flightNumber
            from = detection.departureAirport
            to = detection.arrivalAirport
            departure = detection.departure
            arrival = detection.arrival
            legs = detection.legs
        }

        private enum CodingKeys: String, CodingKey {
            case isFlight, confidence, airline, flightNumber, from, to, departure, arrival, legs
        }

        /// Decodes a report from its JSON form.
        ///
        /// - Parameter decoder: The decoder to read from.
        /// - Throws: `DecodingError` when a key has the wrong type or a date is not ISO 8601.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            isFlight = try container.decode(Bool.self, forKey: .isFlight)
            confidence = try container.decode(Double.self, forKey: .confidence)
            airline = try container.decodeIfPresent(Airline.self, forKey: .airline)
            flightNumber = try container.decodeIfPresent(String.self, forKey: .flightNumber)
            from = try container.decodeIfPresent(Airport.self, forKey: .from)
            to = try container.decodeIfPresent(Airport.self, forKey: .to)
            departure = try container.decodeFlightDate(forKey: .departure)
            arrival = try container.decodeFlightDate(forKey: .arrival)
            legs = try container.decodeIfPresent([FlightLeg].self, forKey: .legs) ?? []
        }

        /// Encodes the report in its JSON form.
        ///
        /// - Parameter encoder: The encoder to write to.
        /// - Throws: What the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(isFlight, forKey: .isFlight)
            try container.encode(confidence, forKey: .confidence)
            try container.encodeIfPresent(airline, forKey: .airline)
            try container.encodeIfPresent(flightNumber, forKey: .flightNumber)
            try container.encodeIfPresent(from, forKey: .from)
            try container.encodeIfPresent(to, forKey: .to)
            try container.encodeIfPresent(departure.map(FlightDates.format), forKey: .departure)
            try container.encodeIfPresent(arrival.map(FlightDates.format), forKey: .arrival)
            if !legs.isEmpty { try container.encode(legs, forKey: .legs) }
        }

    }
}
