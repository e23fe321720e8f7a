/// An airport, or a city's group of airports, identified by its three-letter IATA code.
///
/// Airports come from the reference data that ships with Tether (see `Data/LICENSE-DATA.md`). A city code such as
/// `LON`, `PAR` or `TYO` stands for all of the city's airports; the detector answers with one when the text names
/// the city but not the airport ("Flight to Paris").
public struct Airport: Sendable, Hashable, Codable {
    /// The IATA airport or city code, such as `SFO` or `LON`.
    public var iataCode: String
    /// The airport's name, such as `San Francisco International Airport`; for a city code, the city and
    /// "all airports".
    public var name: String
    /// The city the airport serves.
    public var city: String
    /// The ISO 3166-1 alpha-2 code of the airport's country.
    public var countryCode: String
    /// The IANA identifier of the airport's time zone, such as `America/Los_Angeles`; empty when unknown.
    public var timeZoneIdentifier: String

    /// Creates an airport from its fields.
    ///
    /// - Parameters:
    ///   - iataCode: The IATA airport or city code.
    ///   - name: The airport's name.
    ///   - city: The city the airport serves.
    ///   - countryCode: The ISO 3166-1 alpha-2 country code.
    ///   - timeZoneIdentifier: The IANA time zone identifier, or an empty string.
    public init(iataCode: String, name: String, city: String, countryCode: String, timeZoneIdentifier: String) {
        self.iataCode = iataCode
        self.name = name
        self.city = city
        self.countryCode = countryCode
        self.timeZoneIdentifier = timeZoneIdentifier
    }

    /// Looks an airport or city code up in the reference data.
    ///
    /// - Parameter iataCode: A code such as `SFO` or `PAR`; case does not matter.
    /// - Returns: `nil` when the reference data has no airport or city with that code.
    public init?(iataCode: String) {
        guard let airport = FlightReferenceData.shared.airport(iataCode.uppercased()) else { return nil }
        self = airport
    }

    /// Whether the code stands for all the airports of a city (such as `LON`) rather than one airport.
    public var isCity: Bool {
        FlightReferenceData.shared.metropolitanAreas[iataCode] != nil
    }
}
