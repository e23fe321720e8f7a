import Foundation
import Testing
import TetherCommandSupport
import TetherTestSupport

/// `tether calendar flights --input`: the detector behind the command line, as a subprocess.
@Suite(.timeLimit(.minutes(3)))
struct CalendarFlightsCommandTests {
    @Test func printsOneResultPerEventInOrder() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let events = """
            [
              {"title": "UA 857 SFO → PEK", "start": "2027-01-12T13:05:00-08:00", "end": "2027-01-13T18:40:00+08:00"},
              {"title": "A320 review", "location": "Room B12"},
              {"title": "Flug nach Tokio (LH 716)", "start": "2027-01-14T17:45:00+01:00"}
            ]
            """
        let file = cli.home.appendingPathComponent("events.json")
        try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
        try Data(events.utf8).write(to: file)

        let result = try await cli.run(["calendar", "flights", "--input", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        let reports = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        )
        #expect(reports.count == 3)
        #expect(reports.map { $0["isFlight"] as? Bool } == [true, false, true])
        #expect(reports[0]["flightNumber"] as? String == "UA857")
        #expect((reports[0]["from"] as? [String: Any])?["iataCode"] as? String == "SFO")
        #expect((reports[0]["to"] as? [String: Any])?["iataCode"] as? String == "PEK")
        #expect(reports[0]["departure"] as? String == "2027-01-12T21:05:00Z")
        #expect(reports[1]["flightNumber"] == nil)
        #expect(reports[2]["flightNumber"] as? String == "LH716")
    }

    @Test func inputThatIsNotAnArrayOfEventsIsAUsageError() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let file = cli.home.appendingPathComponent("events.json")
        try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
        try Data(#"{"title": "not an array"}"#.utf8).write(to: file)
        let result = try await cli.run(["calendar", "flights", "--input", file.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("is not a JSON array of events"))
        #expect(result.stdout.isEmpty)

        let missing = try await cli.run(["calendar", "flights", "--input", "/nonexistent/events.json"])
        #expect(missing.status == 2)
    }
}
