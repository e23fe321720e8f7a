import Foundation
import Testing
import TetherFlights

/// Bookings of several flights, reservation-system itineraries, carriers that no longer fly, and the trains and
/// coaches whose numbers look like flight numbers.
struct FlightLegTests {
    /// 2027-03-14 22:40 UTC: 15:40 in San Francisco.
    let start = Date(timeIntervalSince1970: 1_805_064_000)

    @Test func amadeusItineraryGivesEveryLegWithItsTimes() throws {
        let description = """
            RP/MUC1S2100/MUC1S2100            AA/SU  14FEB27/0932Z   5LQW8T
              1.HOFMANN/KATRIN MRS   2.HOFMANN/JONAS MR
              3  LH 455 Y 14MAR 7 SFOFRA HK2  1540  1125+1
              4  LH1234 Y 15MAR 1 FRAVIE HK2  1300  1420
            """
        let detection = FlightDetector().detect(
            title: "Trip to Vienna",
            description: description,
            start: start,
            end: start.addingTimeInterval(14 * 3600)
        )
        #expect(detection.isFlight)
        #expect(detection.flightNumber == "LH455")
        #expect(detection.legs.map(\.flightNumber) == ["LH455", "LH1234"])
        #expect(detection.legs.map { $0.departureAirport?.iataCode } == ["SFO", "FRA"])
        #expect(detection.legs.map { $0.arrivalAirport?.iataCode } == ["FRA", "VIE"])
        // 15:40 in San Francisco (PDT) and 11:25 the next day in Frankfurt (CET); 13:00 and 14:20 in CET.
        #expect(detection.legs[0].departure == start)
        #expect(detection.legs[0].arrival == Date(timeIntervalSince1970: 1_805_106_300))
        #expect(detection.legs[1].departure == Date(timeIntervalSince1970: 1_805_112_000))
        #expect(detection.legs[1].arrival == Date(timeIntervalSince1970: 1_805_116_800))
    }

    @Test func theLegTheTitleNamesIsTheEvents() {
        let description = """
            UA 926 San Francisco (SFO) → Frankfurt (FRA)
            LH 1234 Frankfurt (FRA) → Vienna (VIE)
            Booking reference: K7XQ2P
            """
        let detection = FlightDetector().detect(title: "LH 1234 to Vienna", description: description, start: start)
        #expect(detection.flightNumber == "LH1234")
        #expect(detection.departureAirport?.iataCode == "FRA")
        #expect(detection.arrivalAirport?.iataCode == "VIE")
        #expect(detection.legs.count == 2)
    }

    @Test func reportWritesTheLegsAndReadsThemBack() throws {
        let detection = FlightDetector().detect(
            title: "Trip",
            description:
                " 1 AA 100Y 15MAR 1 JFKLHR SS1   600P  650A /DCAA*ABC /E\n 2 BA 306M 18MAR 4 LHRCDG SS1   915A 1130A",
            start: start
        )
        let report = FlightDetector.Report(detection)
        let data = try JSONEncoder().encode(report)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let legs = try #require(json["legs"] as? [[String: Any]])
        #expect(legs.map { $0["flightNumber"] as? String } == ["AA100", "BA306"])
        #expect(legs.first?["departure"] as? String == "2027-03-15T22:00:00Z")
        #expect(try JSONDecoder().decode(FlightDetector.Report.self, from: data) == report)
        let single = try JSONEncoder().encode(FlightDetector.Report(FlightDetector().detect(title: "UA 857")))
        #expect(String(decoding: single, as: UTF8.self).contains("legs") == false)
    }

    @Test func carriersThatNoLongerFlyAreReportedAsTheTextNamesThem() {
        let usAirways = FlightDetector().detect(title: "US Airways(US) #403", description: "From: PHL To: CLT")
        #expect(usAirways.flightNumber == "US403")
        #expect(usAirways.airline?.name == "US Airways")
        #expect(usAirways.airline?.lastYearFlown == 2015)
        let alitalia = FlightDetector().detect(title: "Alitalia AZ 608 Roma → New York")
        #expect(alitalia.flightNumber == "AZ608")
        #expect(alitalia.airline?.name == "Alitalia")
        #expect(Airline(iataCode: "AZ")?.name == "ITA Airways")
        #expect(Airline(iataCode: "US")?.lastYearFlown == 2015)
        let tegel = FlightDetector().detect(title: "Flug AB 8075 Berlin Tegel → Palma de Mallorca")
        #expect(tegel.departureAirport?.iataCode == "TXL")
        #expect(tegel.departureAirport?.timeZoneIdentifier == "Europe/Berlin")
    }

    @Test func icaoCodedFlightNumbersGetTheIATADesignator() {
        #expect(FlightDetector().detect(title: "Vlucht EZY8868 AMS → LGW").flightNumber == "U28868")
        #expect(FlightDetector().detect(title: "KLM 643 to New York").flightNumber == "KL643")
    }

    @Test(
        arguments: [
            ("EC 170 Brno → Berlin", "České dráhy e-ticket, coach 255, seat 61"),
            ("Frecciarossa FR 9611 Milano - Roma", "Trenitalia, carrozza 7, posto 8A, codice PNR ABC123"),
            ("RegioJet RJ 1234 Wien → Prag", "Abfahrt Wien Hbf 10:05, Wagen 3 Sitz 22"),
            ("Rede Expressos Lisboa → Faro", "Terminal Rodoviário de Sete Rios, lugar 23"),
            ("Baleària Barcelona → Palma", "Buque Abel Matutes · vehículo: turismo 2174 KLM"),
        ]
    )
    func trainsCoachesAndFerriesAreNotFlights(title: String, description: String) {
        let detection = FlightDetector().detect(title: title, description: description, start: start)
        #expect(!detection.isFlight, "\(title)")
    }

    @Test func aFlightThatMentionsATrainIsStillAFlight() {
        let detection = FlightDetector().detect(
            title: "Ryanair FR 9611 Milano Bergamo → Roma Ciampino",
            description: "Booking reference QWE12R. Take the train from Bergamo station to the airport.",
            start: start
        )
        #expect(detection.isFlight)
        #expect(detection.flightNumber == "FR9611")
    }
}
