import Foundation
import Testing
import TetherFlights

/// Fixed instants for the tests: 2027-04-02 at 18:30 UTC, and three hours later.
private let start = Date(timeIntervalSince1970: 1_806_604_200)
private let end = start.addingTimeInterval(3 * 3600)

private func detect(
    _ title: String?,
    description: String? = nil,
    location: String? = nil,
    timeZone: TimeZone? = nil
) -> FlightDetection {
    FlightDetector().detect(
        title: title,
        description: description,
        location: location,
        start: start,
        end: end,
        timeZone: timeZone
    )
}

private func flightInstant(_ text: String) throws -> Date {
    try Date(text, strategy: .iso8601)
}

/// The shapes of flights the detector recognises, one behaviour per test.
struct FlightDetectorTests {
    @Test(
        arguments: [
            ("UA 857", "UA", "United Airlines", "UA857"), ("LH400", "LH", "Lufthansa", "LH400"),
            ("U2 1234", "U2", "easyJet", "U21234"), ("AF7512", "AF", "Air France", "AF7512"),
            ("BA0283", "BA", "British Airways", "BA283"), ("UA857", "UA", "United Airlines", "UA857"),
            ("3U 8882", "3U", "Sichuan Airlines", "3U8882"), ("QF1 SYD-LHR", "QF", "Qantas", "QF1"),
        ]
    )
    func designatorsInTheirRealShapes(title: String, code: String, name: String, number: String) {
        let detection = detect(title)
        #expect(detection.isFlight)
        #expect(detection.airline == Airline(iataCode: code, name: name))
        #expect(detection.flightNumber == number)
    }

    @Test(
        arguments: [
            ("SFO → PEK", "SFO", "PEK"), ("FRA-JFK", "FRA", "JFK"), ("SFO to PEK", "SFO", "PEK"),
            ("✈️ LIS → AMS", "LIS", "AMS"), ("DUB > BOS", "DUB", "BOS"),
            ("London Heathrow to Los Angeles", "LHR", "LAX"), ("Flight Paris-Orly → Nice", "ORY", "NCE"),
            ("羽田→那覇 フライト", "HND", "OKA"), ("深圳飞上海 航班", "SZX", "SHA"),
        ]
    )
    func routes(title: String, from: String, to: String) {
        let detection = detect(title)
        #expect(detection.isFlight)
        #expect(detection.departureAirport?.iataCode == from)
        #expect(detection.arrivalAirport?.iataCode == to)
    }

    @Test func airportsCarryNamesAndCitiesFromTheReferenceData() throws {
        let detection = detect("UA857 SFO to PEK")
        let departure = try #require(detection.departureAirport)
        #expect(departure.name == "San Francisco International Airport")
        #expect(departure.city == "San Francisco")
        #expect(departure.timeZoneIdentifier == "America/Los_Angeles")
        #expect(detection.arrivalAirport?.city == "Beijing")
    }

    @Test(
        arguments: [
            ("Flight to Tokyo ✈️", "TYO"), ("Vuelo a Madrid", "MAD"), ("Vol pour Paris", "PAR"),
            ("Flug nach Berlin", "BER"), ("Volo per Roma", "ROM"), ("Voo para Lisboa", "LIS"),
            ("Vlucht naar Amsterdam", "AMS"), ("東京行きのフライト", "TYO"), ("飞往北京的航班", "BJS"),
            ("Rückflug nach München", "MUC"), ("Voo para o Porto", "OPO"), ("Terugvlucht naar Eindhoven", "EIN"),
        ]
    )
    func flightToTitlesInNineLanguages(title: String, destination: String) {
        let detection = detect(title)
        #expect(detection.isFlight)
        #expect(detection.arrivalAirport?.iataCode == destination)
    }

    @Test(arguments: ["フライト", "航班", "Flight"])
    func aFlightWordAloneWithAnAirportAsLocation(title: String) {
        #expect(detect(title, location: "Terminal 2, Munich Airport").isFlight)
    }

    @Test func aCityCodeStandsForAllOfTheCitysAirports() throws {
        let arrival = try #require(detect("Flight to London").arrivalAirport)
        #expect(arrival.iataCode == "LON")
        #expect(arrival.isCity)
        #expect(Airport(iataCode: "LHR")?.isCity == false)
    }

    @Test(
        arguments: [
            (
                "Lufthansa flight LH 455\nConfirmation code: 6ZK3QP\nDeparts San Francisco SFO\nArrives Frankfurt FRA",
                "SFO", "FRA"
            ),
            ("Código de reserva: XK2P9L\nSalida: Madrid (MAD) 23:55\nLlegada: Bogotá (BOG) 04:25", "MAD", "BOG"),
            (
                "Référence de réservation : 5TQK9M\nDépart : Nice (NCE) 07:10\nArrivée : Paris Orly (ORY) 08:35", "NCE",
                "ORY"
            ),
            ("Buchungscode: 7PZK2Q\nAbflug: Frankfurt (FRA) 10:20\nAnkunft: New York (JFK) 13:05", "FRA", "JFK"),
            (
                "Codice di prenotazione: Q9KTP2\nPartenza: Milano Linate (LIN) 07:00\nArrivo: Roma (FCO) 08:10", "LIN",
                "FCO"
            ),
            ("Código de reserva: TPK2QM\nPartida: Porto (OPO) 07:00\nChegada: Lisboa (LIS) 07:55", "OPO", "LIS"),
            ("Boekingscode: KLQ2P7\nVertrek: Amsterdam (AMS) 09:15\nAankomst: Barcelona (BCN) 11:25", "AMS", "BCN"),
            ("予約番号：JLQ7K2\n出発：東京（羽田）HND 10:25\n到着：ニューヨーク（JFK）09:45", "HND", "JFK"),
            ("预订编号：NXK2PQ\n出发：上海虹桥 (SHA) 10:00\n到达：北京首都 (PEK) 12:15", "SHA", "PEK"),
        ]
    )
    func confirmationBlocksInSeveralLanguages(description: String, from: String, to: String) {
        let detection = detect("Trip", description: description)
        #expect(detection.isFlight)
        #expect(detection.departureAirport?.iataCode == from)
        #expect(detection.arrivalAirport?.iataCode == to)
    }

    @Test func timesComeFromTheEventWhenTheTextHasNone() {
        let detection = detect("UA857 SFO to PEK")
        #expect(detection.departure == start)
        #expect(detection.arrival == end)
    }

    @Test func timesOfDayAreReadInEachAirportsTimeZone() throws {
        // 2027-04-15: Frankfurt is on CEST (UTC+2), New York on EDT (UTC-4).
        let detection = FlightDetector().detect(
            title: "Flug LH400",
            description: "Abflug: Frankfurt (FRA) 10:20\nAnkunft: New York (JFK) 13:05",
            start: try flightInstant("2027-04-15T08:00:00Z"),
            end: try flightInstant("2027-04-15T17:00:00Z")
        )
        #expect(detection.departure == (try flightInstant("2027-04-15T08:20:00Z")))
        #expect(detection.arrival == (try flightInstant("2027-04-15T17:05:00Z")))
    }

    @Test func anArrivalOnTheNextDayIsAfterTheDeparture() throws {
        let detection = FlightDetector().detect(
            title: "SQ 321 LHR-SIN",
            description: "Departure 21:25 Arrival 18:20 (+1)",
            start: try flightInstant("2027-11-15T21:00:00Z"),
            end: try flightInstant("2027-11-16T10:00:00Z")
        )
        #expect(detection.departure == (try flightInstant("2027-11-15T21:25:00Z")))
        #expect(detection.arrival == (try flightInstant("2027-11-16T10:20:00Z")))
    }

    @Test func twelveHourTimesAreRead() throws {
        let detection = FlightDetector().detect(
            title: "Flight DL 1482 ATL-BOS",
            description: "Depart: 7:15 AM Atlanta (ATL)\nArrive: 9:45 AM Boston (BOS)",
            start: try flightInstant("2027-04-12T11:00:00Z"),
            end: try flightInstant("2027-04-12T14:00:00Z")
        )
        #expect(detection.departure == (try flightInstant("2027-04-12T11:15:00Z")))
        #expect(detection.arrival == (try flightInstant("2027-04-12T13:45:00Z")))
    }

    @Test func withoutAirportsTimesAreReadInTheEventsTimeZone() throws {
        let zone = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let detection = FlightDetector().detect(
            title: "JL 5",
            description: "Departure: 10:25\nArrival: 09:45",
            start: try flightInstant("2027-05-05T01:00:00Z"),
            end: try flightInstant("2027-05-05T14:00:00Z"),
            timeZone: zone
        )
        #expect(detection.departure == (try flightInstant("2027-05-05T01:25:00Z")))
        #expect(detection.arrival == (try flightInstant("2027-05-06T00:45:00Z")))
    }

    @Test func schemaOrgMarkupAsJSONLD() throws {
        let description = """
            <script type="application/ld+json">{"@context":"http://schema.org","@type":"FlightReservation",
            "reservationNumber":"RXJ34P","reservationFor":{"@type":"Flight","flightNumber":"110",
            "airline":{"@type":"Airline","name":"Delta","iataCode":"DL"},
            "departureAirport":{"@type":"Airport","iataCode":"SFO"},"departureTime":"2027-03-04T20:15:00-08:00",
            "arrivalAirport":{"@type":"Airport","iataCode":"JFK"},"arrivalTime":"2027-03-05T06:30:00"}}</script>
            """
        let detection = detect("Trip to New York", description: description)
        #expect(detection.isFlight)
        #expect(detection.confidence >= 0.98)
        #expect(detection.flightNumber == "DL110")
        #expect(detection.airline?.name == "Delta Air Lines")
        #expect(detection.departureAirport?.iataCode == "SFO")
        #expect(detection.arrivalAirport?.iataCode == "JFK")
        #expect(detection.departure == (try flightInstant("2027-03-05T04:15:00Z")))
        // Written without an offset: in the arrival airport's time zone (EST).
        #expect(detection.arrival == (try flightInstant("2027-03-05T11:30:00Z")))
    }

    @Test func schemaOrgMarkupAsMicrodata() {
        let description = """
            <div itemscope itemtype="http://schema.org/FlightReservation">
            <div itemprop="reservationFor" itemscope itemtype="http://schema.org/Flight">
            <span itemprop="flightNumber">83</span>
            <div itemprop="airline" itemscope itemtype="http://schema.org/Airline">
            <meta itemprop="iataCode" content="AF"/></div>
            <div itemprop="departureAirport" itemscope><meta itemprop="iataCode" content="SFO"/></div>
            <div itemprop="arrivalAirport" itemscope><meta itemprop="iataCode" content="CDG"/></div>
            </div></div>
            """
        let detection = detect("Paris", description: description)
        #expect(detection.isFlight)
        #expect(detection.flightNumber == "AF83")
        #expect(detection.departureAirport?.iataCode == "SFO")
        #expect(detection.arrivalAirport?.iataCode == "CDG")
    }

    @Test func markupWithUnknownCodesIsNotTrusted() {
        let description = """
            {"@type":"FlightReservation","reservationFor":{"flightNumber":"1","airline":{"iataCode":"ZZ"},
            "departureAirport":{"iataCode":"QQQ"}}}
            """
        #expect(!detect("Notes", description: description).isFlight)
    }

    @Test func anAirlineNameWithANumberGivesTheFlightNumber() {
        let detection = detect(
            "Flight home",
            description: "Alaska Airlines flight 1139 from Seattle to San Diego. Record locator: MKQ7XZ"
        )
        #expect(detection.isFlight)
        #expect(detection.flightNumber == "AS1139")
        #expect(detection.departureAirport?.iataCode == "SEA")
        #expect(detection.arrivalAirport?.iataCode == "SAN")
    }

    @Test func fullWidthCharactersAreRead() {
        let detection = detect("ＪＬ　１２３　羽田→伊丹")
        #expect(detection.flightNumber == "JL123")
        #expect(detection.arrivalAirport?.iataCode == "ITM")
    }

    @Test func aHigherMinimumConfidenceAsksForMoreEvidence() {
        let strict = FlightDetector(configuration: .init(minimumConfidence: 0.9))
        #expect(!strict.detect(title: "Flight to Tokyo").isFlight)
        #expect(strict.detect(title: "UA857 SFO to PEK").isFlight)
    }
}
