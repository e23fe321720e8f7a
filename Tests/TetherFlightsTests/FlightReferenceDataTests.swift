import Foundation
import Testing

@testable import TetherFlights

/// The reference data the detector validates codes against.
struct FlightReferenceDataTests {
    @Test func airlinesAreLookedUpByDesignator() {
        #expect(Airline(iataCode: "LH")?.name == "Lufthansa")
        #expect(Airline(iataCode: "u2")?.name == "easyJet")
        #expect(Airline(iataCode: "ZZ") == nil)
    }

    @Test func airportsAreLookedUpByCode() throws {
        let airport = try #require(Airport(iataCode: "sfo"))
        #expect(airport.iataCode == "SFO")
        #expect(airport.city == "San Francisco")
        #expect(airport.countryCode == "US")
        #expect(Airport(iataCode: "NRT")?.timeZoneIdentifier == "Asia/Tokyo")
        #expect(Airport(iataCode: "PAR")?.isCity == true)
        #expect(Airport(iataCode: "QQQ") == nil)
    }

    @Test func theBundledAirportTableLoadsWhole() throws {
        let airports = try AirportTable.loadBundled()
        #expect(airports.count == 7887)
        #expect(
            airports["AAA"]
                == Airport(
                    iataCode: "AAA",
                    name: "Anaa Airport",
                    city: "",
                    countryCode: "PF",
                    timeZoneIdentifier: "Pacific/Tahiti"
                )
        )
        #expect(airports["LHR"]?.city == "London")
        #expect(airports["FRA"]?.countryCode == "DE")
        #expect(
            airports["ZZV"]
                == Airport(
                    iataCode: "ZZV",
                    name: "Zanesville Municipal Airport",
                    city: "Zanesville",
                    countryCode: "US",
                    timeZoneIdentifier: "America/New_York"
                )
        )
        #expect(FlightReferenceData.shared.airportTableError == nil)
        #expect(FlightReferenceData.shared.airports.count == 7887)
    }

    @Test(
        arguments: [
            ("SFO\tSan Francisco International Airport\tSan Francisco\tUS\n", 1),
            ("# comment\nSFO\tSan Francisco International Airport\tSan Francisco\tUS\tAmerica/Los_Angeles\tx\n", 2),
            ("sfo\tSan Francisco International Airport\tSan Francisco\tUS\tAmerica/Los_Angeles\n", 1),
            ("SFO\t\tSan Francisco\tUS\tAmerica/Los_Angeles\n", 1),
            ("SFO\tSan Francisco International Airport\tSan Francisco\tUSA\tAmerica/Los_Angeles\n", 1),
            ("SFO\tA\t\tUS\t\nSFO\tB\t\tUS\t\n", 2),
        ]
    )
    func aMalformedAirportTableIsRefusedWithItsLine(text: String, line: Int) {
        #expect(throws: AirportTable.LoadError.malformed(line: line)) { try AirportTable.parse(Data(text.utf8)) }
    }

    @Test func anAirportTableThatIsNotTextOrHoldsNoAirportIsRefused() {
        #expect(throws: AirportTable.LoadError.notText) { try AirportTable.parse(Data([0x53, 0xFF, 0xFE, 0x0A])) }
        #expect(throws: AirportTable.LoadError.empty) { try AirportTable.parse(Data("# only a comment\n\n".utf8)) }
    }

    @Test func withoutItsAirportTableTheDetectorStillFindsFlightsAndNoAirport() {
        let data = FlightReferenceData(airportTable: .failure(.missing))
        #expect(data.airportTableError == .missing)
        #expect(data.airports.isEmpty && data.metropolitanAreas.isEmpty && data.places.isEmpty)
        #expect(!data.isAirportCode("SFO"))
        #expect(data.airlines["UA"]?.name == "United Airlines")

        let event = FlightDetector.Event(
            title: "Flight UA 857 SFO to PEK",
            description: #"<script type="application/ld+json">{"@type":"FlightReservation","reservationFor":"#
                + #"{"flightNumber":"857","airline":{"iataCode":"UA"},"departureAirport":{"iataCode":"SFO"}}}</script>"#
        )
        let detection = FlightAnalysis(event: event, data: data).detection(minimumConfidence: 0.5)
        #expect(detection.isFlight)
        #expect(detection.flightNumber == "UA857")
        #expect(detection.departureAirport == nil)
        #expect(detection.arrivalAirport == nil)
    }

    @Test func generatedDataFilesStayUnderOneMebibyte() throws {
        let target = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/TetherFlights")
        let folder = target.appendingPathComponent("Data")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.fileSizeKey])
        let swiftFiles = files.filter { $0.pathExtension == "swift" }
        #expect(swiftFiles.count == 4)
        let table = target.appendingPathComponent("Resources/airports.tsv")
        for file in swiftFiles + [table] {
            let size = try file.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? .max
            #expect(size < 1 << 20, "\(file.lastPathComponent) is \(size) bytes")
        }
        #expect(files.contains { $0.lastPathComponent == "LICENSE-DATA.md" })
    }
}
