import Foundation
import Testing
import TetherCalendar

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

    @Test func generatedDataFilesStayUnderOneMebibyte() throws {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/TetherCalendar/Flights/Data")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.fileSizeKey])
        let swiftFiles = files.filter { $0.pathExtension == "swift" }
        #expect(swiftFiles.count == 4)
        for file in swiftFiles {
            let size = try file.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? .max
            #expect(size < 1 << 20, "\(file.lastPathComponent) is \(size) bytes")
        }
        #expect(files.contains { $0.lastPathComponent == "LICENSE-DATA.md" })
    }
}
