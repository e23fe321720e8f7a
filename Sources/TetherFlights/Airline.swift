/// An airline, identified by its two-character IATA designator.
///
/// Airlines come from the reference data that ships with Tether (see `Data/LICENSE-DATA.md`); look one up with
/// ``Airline/init(iataCode:)``.
public struct Airline: Sendable, Hashable, Codable {
    /// The IATA airline designator, such as `UA`, `LH` or `U2`.
    public var iataCode: String
    /// The airline's name, such as `United Airlines`.
    public var name: String

    /// Creates an airline from its designator and name.
    ///
    /// - Parameters:
    ///   - iataCode: The IATA airline designator.
    ///   - name: The airline's name.
    public init(iataCode: String, name: String) {
        self.iataCode = iataCode
        self.name = name
    }

    /// Looks an airline up in the reference data by its IATA designator.
    ///
    /// - Parameter iataCode: A designator such as `UA`; case does not matter.
    /// - Returns: `nil` when the reference data has no airline with that designator.
    public init?(iataCode: String) {
        guard let airline = FlightReferenceData.shared.airlines[iataCode.uppercased()] else { return nil }
        self = airline
    }
}
