/// The airlines, airports and place names the flight detector validates codes and names against.
///
/// `Scripts/generate-flight-data.py` generates the airport table into `Resources/airports.tsv` (see
/// ``AirportTable``) and the small tables into `Data/` as string literals; all are parsed once, on first use.
struct FlightReferenceData: Sendable {
    /// A city's IATA code that stands for several airports.
    struct MetropolitanArea: Sendable {
        var airport: Airport
        var members: [String]
    }

    /// The parsed tables, built on first use. Without its airport table the detector still runs, knowing no airport.
    static let shared = FlightReferenceData(
        airportTable: Result { () throws(AirportTable.LoadError) in
            try AirportTable.loadBundled()
        }
    )

    /// Why the airport table could not be read, `nil` when it was. Then no airport, city code or place name is
    /// known: the detector recognises flights by their airline designators and words alone.
    let airportTableError: AirportTable.LoadError?

    /// Airlines flying today by IATA designator.
    let airlines: [String: Airline]
    /// Airlines that no longer fly, by the designator they flew under.
    let retiredAirlines: [String: Airline]
    /// The folded names (keys of ``airlineNames``) of airlines that no longer fly.
    let retiredAirlineNames: Set<String>
    /// Airports by IATA code.
    let airports: [String: Airport]
    /// City codes (`LON`, `PAR`, ...) by IATA code.
    let metropolitanAreas: [String: MetropolitanArea]
    /// IATA codes by folded place name (see ``FlightText/fold(_:)``): city and airport names in Latin script.
    let places: [String: String]
    /// IATA codes by place name written in Chinese or Japanese script.
    let cjkPlaces: FlightCJKIndex<String>
    /// Airline designators by folded airline name, of the airlines flying today and of those that no longer fly.
    let airlineNames: [String: String]
    /// Airline designators by airline name written in Chinese or Japanese script.
    let cjkAirlineNames: FlightCJKIndex<String>
    /// The folded names of the airports' cities, by IATA code.
    let cityKeys: [String: String]
    /// The airports of each city, by the city's name key, international airports first.
    let cityAirports: [String: [String]]
    /// The first words of the keys of ``places``, to skip the words that start no place name.
    let placeFirstWords: Set<String>
    /// The first words of the keys of ``airlineNames``.
    let airlineFirstWords: Set<String>
    /// The largest number of words in a key of ``places`` or ``airlineNames``.
    let longestNameWords: Int

    /// The folded name of an airport's city ("frankfurt" for FRA), the key under which ``places`` holds it.
    func cityKey(_ code: String) -> String {
        cityKeys[code] ?? ""
    }

    /// Whether `code` is the designator of an airline, flying today or not.
    func isAirlineCode(_ code: String) -> Bool {
        airlines[code] != nil || retiredAirlines[code] != nil
    }

    /// Returns the airport or city with the given (upper-case) IATA code.
    func airport(_ code: String) -> Airport? {
        airports[code] ?? metropolitanAreas[code]?.airport
    }

    /// Whether `code` is an airport or city code of the reference data.
    func isAirportCode(_ code: String) -> Bool {
        airports[code] != nil || metropolitanAreas[code] != nil
    }

    /// Parses the tables.
    ///
    /// - Parameter airportTable: The airports by IATA code, or why they could not be read.
    init(airportTable: Result<[String: Airport], AirportTable.LoadError>) {
        var airlines: [String: Airline] = [:]
        var airlineNames: [String: String] = [:]
        var cjkAirlineNames: [(name: String, code: String)] = []
        var longest = 1
        for line in Self.airlineRecords.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 2 else { continue }
            let code = String(fields[0])
            let name = String(fields[1])
            airlines[code] = Airline(iataCode: code, name: name)
            var names = [name]
            if fields.count > 2 {
                names += fields[2].split(separator: "|").map(String.init)
            }
            for name in names {
                if FlightText.containsCJK(name) {
                    cjkAirlineNames.append((name, code))
                } else {
                    let key = FlightText.nameKey(name)
                    guard !key.isEmpty else { continue }
                    if airlineNames[key] == nil { airlineNames[key] = code }
                    longest = max(longest, key.split(separator: " ").count)
                }
            }
        }

        var retiredAirlines: [String: Airline] = [:]
        var retiredAirlineNames: Set<String> = []
        for line in Self.retiredAirlineRecords.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 4 else { continue }
            let code = String(fields[0])
            let name = String(fields[1])
            retiredAirlines[code] = Airline(iataCode: code, name: name, lastYearFlown: Int(fields[3]))
            for name in [name] + fields[2].split(separator: "|").map(String.init) {
                if FlightText.containsCJK(name) {
                    cjkAirlineNames.append((name, code))
                    continue
                }
                let key = FlightText.nameKey(name)
                guard !key.isEmpty, airlineNames[key] == nil else { continue }
                airlineNames[key] = code
                retiredAirlineNames.insert(key)
                longest = max(longest, key.split(separator: " ").count)
            }
        }

        let airports: [String: Airport]
        switch airportTable {
        case .success(let table):
            airports = table
            airportTableError = nil
        case .failure(let error):
            airports = [:]
            airportTableError = error
        }

        // City codes and place names stand for airports: without the airport table, none is known.
        let hasAirports = !airports.isEmpty
        var metropolitanAreas: [String: MetropolitanArea] = [:]
        for line in Self.metropolitanAreaRecords.split(separator: "\n") where hasAirports {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 4 else { continue }
            let code = String(fields[0])
            let members = fields[3].split(separator: ",").map(String.init)
            // A code that is also an airport's (DXB, BKK, SHA) stays that airport.
            guard airports[code] == nil else { continue }
            let city = String(fields[1])
            metropolitanAreas[code] = MetropolitanArea(
                airport: Airport(
                    iataCode: code,
                    name: "\(city) (all airports)",
                    city: city,
                    countryCode: String(fields[2]),
                    timeZoneIdentifier: members.first.flatMap { airports[$0]?.timeZoneIdentifier } ?? ""
                ),
                members: members
            )
        }

        // Names written by hand come first and are never replaced; then city codes, then the airports' cities
        // (an international airport before a small field of the same city), then the airports' own names.
        var places: [String: String] = [:]
        var cjkPlaces: [(name: String, code: String)] = []
        func add(_ name: String, _ code: String) {
            if FlightText.containsCJK(name) {
                cjkPlaces.append((name, code))
                return
            }
            let key = FlightText.nameKey(name)
            guard key.count >= 3, places[key] == nil, !FlightVocabulary.notPlaceNames.contains(key) else { return }
            places[key] = code
            longest = max(longest, key.split(separator: " ").count)
        }
        for line in Self.placeNameRecords.split(separator: "\n") where hasAirports {
            let fields = line.split(separator: "\t")
            guard fields.count == 2 else { continue }
            for name in fields[1].split(separator: "|") {
                add(String(name), String(fields[0]))
            }
        }
        for (code, area) in metropolitanAreas.sorted(by: { $0.key < $1.key }) {
            add(area.airport.city, code)
        }
        let ranked = airports.values
            .map { (airport: $0, isInternational: $0.name.utf8.count > 13 && $0.name.hasInternational) }
            .sorted { lhs, rhs in
                lhs.isInternational != rhs.isInternational
                    ? lhs.isInternational : lhs.airport.iataCode < rhs.airport.iataCode
            }
            .map(\.airport)
        var cityKeys: [String: String] = [:]
        var cityAirports: [String: [String]] = [:]
        for airport in ranked {
            let cityKey = FlightText.nameKey(airport.city)
            cityKeys[airport.iataCode] = cityKey
            if !cityKey.isEmpty { cityAirports[cityKey, default: []].append(airport.iataCode) }
            add(airport.city, airport.iataCode)
        }
        for airport in ranked {
            for variant in Self.nameVariants(airport) {
                add(variant, airport.iataCode)
            }
        }

        self.airlines = airlines
        self.retiredAirlines = retiredAirlines
        self.cityKeys = cityKeys
        self.cityAirports = cityAirports
        self.retiredAirlineNames = retiredAirlineNames
        self.airports = airports
        self.metropolitanAreas = metropolitanAreas
        self.places = places
        self.cjkPlaces = FlightCJKIndex(cjkPlaces.map { ($0.name, $0.code) })
        self.airlineNames = airlineNames
        self.cjkAirlineNames = FlightCJKIndex(cjkAirlineNames.map { ($0.name, $0.code) })
        self.longestNameWords = min(longest, 6)
        self.placeFirstWords = Set(places.keys.map { String($0.prefix { $0 != " " }) })
        self.airlineFirstWords = Set(airlineNames.keys.map { String($0.prefix { $0 != " " }) })
    }

    /// The ways people write an airport's name: "London Heathrow Airport", "London Heathrow", "Heathrow".
    private static func nameVariants(_ airport: Airport) -> [String] {
        var variants = [airport.name]
        var short = airport.name
        for suffix in [" International Airport", " Intl Airport", " Airport", " International", " Airfield"]
        where short.hasSuffix(suffix) {
            short = String(short.dropLast(suffix.count))
            break
        }
        if short != airport.name { variants.append(short) }
        if short.hasPrefix(airport.city + " ") {
            let rest = String(short.dropFirst(airport.city.count + 1))
            if rest.count >= 4 { variants.append(rest) }
        }
        return variants
    }
}

extension String {
    /// Whether the string contains the word "International", found without Foundation's slower search.
    fileprivate var hasInternational: Bool {
        split(separator: " ").contains("International")
    }
}
