/// An airline, identified by its two-character IATA designator.
///
/// Airlines come from the reference data that ships with Tether (see `Data/LICENSE-DATA.md`); look one up with
/// ``Airline/init(iataCode:)``.
public struct Airline: Sendable, Hashable, Codable {
    /// The IATA airline designator, such as `UA`, `LH` or `U2`.
    public var iataCode: String
    /// The airline's name, such as `United Airlines`.
    public var name: String
    /// The last year the airline flew, for a carrier that no longer does (`2015` for US Airways); `nil` for one
    /// that flies today. Bookings and travel organisers' feeds of past trips name such carriers, and the detector
    /// reports them as written, never as their successor.
    public var lastYearFlown: Int?

    /// Creates an airline that flies today from its designator and name.
    ///
    /// - Parameters:
    ///   - iataCode: The IATA airline designator.
    ///   - name: The airline's name.
    public init(iataCode: String, name: String) {
        self.init(iataCode: iataCode, name: name, lastYearFlown: nil)
    }

    /// Creates an airline from its designator and name.
    ///
    /// - Parameters:
    ///   - iataCode: The IATA airline designator.
    ///   - name: The airline's name.
    ///   - lastYearFlown: The last year a carrier that no longer flies did; `nil` for one that flies today.
    public init(iataCode: String, name: String, lastYearFlown: Int?) {
        self.iataCode = iataCode
        self.name = name
        self.lastYearFlown = lastYearFlown
    }

    /// Looks an airline up in the reference data by its IATA designator.
    ///
    /// - Parameter iataCode: A designator such as `UA`; case does not matter.
    /// A designator a carrier flying today has taken over (`AZ`, once Alitalia's) gives today's carrier; one no
    /// carrier flies under today (`US`) gives the carrier that last did.
    ///
    /// - Returns: `nil` when the reference data has no airline with that designator.
    public init?(iataCode: String) {
        let code = iataCode.uppercased()
        let data = FlightReferenceData.shared
        guard let airline = data.airlines[code] ?? data.retiredAirlines[code] else { return nil }
        self = airline
    }
}
