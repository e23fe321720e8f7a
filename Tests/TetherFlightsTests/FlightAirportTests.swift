import Foundation
import Testing
import TetherFlights

/// Fixed instants for the tests: 2027-04-02 at 18:30 UTC, and three hours later.
private let start = Date(timeIntervalSince1970: 1_806_604_200)
private let end = start.addingTimeInterval(3 * 3600)

private func route(_ title: String, description: String? = nil, location: String? = nil) -> (String?, String?) {
    let detection = FlightDetector().detect(
        title: title,
        description: description,
        location: location,
        start: start,
        end: end
    )
    #expect(detection.isFlight)
    return (detection.departureAirport?.iataCode, detection.arrivalAirport?.iataCode)
}

/// Which airports a booking text names, when the text names more places than the route, or names the route's
/// cities before their airports.
struct FlightAirportTests {
    /// A city with several airports is the one of its airports the text names, wherever it names it.
    @Test func cityWithSeveralAirportsIsTheAirportTheTextNames() {
        let description = """
            Flight Booking Confirmed
            Jeju Air 7C1302 | Economy
            09:05  Kansai International Airport T1
            11:00  Incheon International Airport T1
            """
        #expect(route("Trip: Osaka – Seoul", description: description) == ("KIX", "ICN"))
        // Named by its code in brackets after the city, or by the airport's name after the city's.
        let bergamo = "Madrid (MAD) 06:25\nMilán (BGY) Aeropuerto de Bérgamo 08:35\nRyanair FR 5226"
        #expect(route("eDreams: Madrid → Milán", description: bergamo) == ("MAD", "BGY"))
        let linate = "ITA Airways AZ 208\nPartenza: Milano Linate 07:05\nArrivo: Londra Heathrow 08:10"
        #expect(route("Trasferta Londra", description: linate) == ("LIN", "LHR"))
    }

    /// A city named alone stays the city: no airport of its is guessed.
    @Test func cityNamedAloneStaysTheCity() {
        #expect(route("Flight Osaka – Seoul 7C1302", description: "Booking confirmed, 1 passenger") == ("OSA", "SEL"))
    }

    /// "Jeju Air", "Brussels Airlines": an airline's name is not a place of the route.
    @Test func airlineNamesAreNoPlaces() {
        let description = "Operated by Jeju Air\nDeparture 09:05 Kansai\nArrival 11:00 Incheon"
        let (from, to) = route("7C1302", description: description)
        #expect(from != "CJU" && to != "CJU")
        #expect(to == "ICN")
    }

    /// The lines of a forwarded email start after their quotation marks, so that its labels are read.
    @Test func quotedLinesOfAForwardedEmailAreRead() {
        let description = """
            ---------- Forwarded message ---------
            > Flight: Thai AirAsia FD 3435
            > From: Bangkok - Don Mueang International Airport (DMK), Terminal 1
            > To: Chiang Mai International Airport (CNX)
            > Please note Don Mueang (DMK) is NOT Suvarnabhumi (BKK).
            """
        #expect(route("Fwd: E-ticket Chiang Mai trip", description: description) == ("DMK", "CNX"))
    }

    /// "MRS NIAMH DOYLE", "DUPONT/MARIE MME": a title beside a passenger's name is no airport code.
    @Test func passengerTitlesAreNoAirportCodes() {
        let description = "Dublin T1\nto\nLanzarote\nFlight FR 7062\nPassengers: MR SEAN DOYLE, MRS NIAMH DOYLE"
        #expect(route("Ryanair booking LK4T9Z", description: description) == ("DUB", "ACE"))
    }

    /// A timetable: the departure time and airport on one line, the arrival's a line or two below.
    @Test func timetableLinesGiveTheRoute() {
        let description = """
            TP 432
            07:00  Lisboa, Aeroporto Humberto Delgado (LIS) – Terminal 1
            10:25  Paris Orly (ORY) – Orly 1
            Nota: este voo chega a Orly e não a Paris-Charles de Gaulle (CDG).
            """
        #expect(route("TAP – Confirmação da reserva 8KQ2ZM", description: description) == ("LIS", "ORY"))
    }

    /// Japanese and Chinese names of domestic airports; a family name before 様 is a person, not a place.
    @Test func domesticAirportsInJapaneseAndChinese() {
        #expect(route("石垣→那覇 NU602", description: "ご搭乗者：宮崎 大輔 様") == ("ISG", "OKA"))
        #expect(route("ANA563便", description: "東京(羽田) 11:10 発 → 高知龍馬空港 12:30 着") == ("HND", "KCZ"))
        #expect(route("国航 CA1311 北京→桂林") == ("BJS", "KWL"))
        // "台北(松山)": the name in brackets is read with the city before it.
        #expect(route("エバー航空 BR191 東京(羽田)－台北(松山)") == ("HND", "TSA"))
    }

    /// A confirmation printed in columns: a word of the next column ("Class") says nothing of the flight number, and
    /// each leg's airports stand on the lines below it.
    @Test func columnsOfAConfirmation() {
        let description = """
            FLIGHT 1 OF 2   UA1153                                Class: United Economy (K)
            Fri, Sep 18, 2026
            06:00                                                  08:41
            Chicago, IL, US (ORD)                                  San Francisco, CA, US (SFO)

            FLIGHT 2 OF 2   UA1725                                Class: United Economy (K)
            10:15                                                  12:58
            San Francisco, CA, US (SFO)                           Honolulu, HI, US (HNL)
            """
        let detection = FlightDetector().detect(
            title: "United: your trip to Honolulu",
            description: description,
            start: start,
            end: end
        )
        #expect(detection.flightNumber == "UA1153")
        #expect(detection.departureAirport?.iataCode == "ORD")
        #expect(detection.arrivalAirport?.iataCode == "SFO")
        #expect(detection.legs.map(\.flightNumber) == ["UA1153", "UA1725"])
    }

    /// Of the two sides of a leg's flight number, the one that writes airport codes, not a forwarded email's header
    /// that names the sender's town.
    @Test func legsReadTheSideThatWritesTheCodes() {
        let description = """
            Von: ReiseAtelier Basel
            Betreff: Bestätigung Flug nach London

            SWISS LX 456
            ab Zürich Flughafen (ZRH) 09:40
            an London City Airport (LCY) 10:25

            Rückflug ab London Heathrow (LHR) am 22.01. mit LX 325 um 18:25.
            """
        #expect(route("WG: Flug Zürich - London City", description: description) == ("ZRH", "LCY"))
    }

    /// Common words that some small airfield's town is called ("Fare", "Intl", "Praia") are not places.
    @Test func commonWordsAreNoPlaces() {
        let description = """
            DATE   FLIGHT  FROM / TO                      DEPART  ARRIVE
            20OCT  PR 103  LOS ANGELES TOM BRADLEY INTL   2250    0440+2
                           MANILA NINOY AQUINO T1
            FARE   USD 612.00
            """
        #expect(route("PAL e-ticket LAX-MNL", description: description) == ("LAX", "MNL"))
    }
}
