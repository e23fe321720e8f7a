import Foundation
import Testing
import TetherFlights

/// Bad, odd and huge input never crashes; the JSON forms the CLI reads and prints.
struct FlightDetectorInputTests {
    @Test(
        arguments: [
            "", " ", "\n\n\t", "✈️", "✈", "\u{FE0F}", "\u{200B}\u{200D}\u{2028}", "e\u{301}\u{301}\u{301}",
            "🇯🇵🇺🇸👨‍👩‍👧", "שלום UA 857 مرحبا", "\u{0}\u{1}\u{7F}", "((((((", "{{{{FlightReservation", "ＵＡ８５７",
            "U", "UA", "UA 0", "UA 00000", "SFO→", "→PEK", "-", "Flight to", "行き", "飞往", "itemprop=\"iataCode",
        ]
    )
    func oddInputNeverCrashes(text: String) {
        let detection = FlightDetector().detect(title: text, description: text, location: text)
        #expect(detection.confidence >= 0 && detection.confidence <= 1)
    }

    @Test func missingFieldsAreFine() {
        let detection = FlightDetector().detect(FlightDetector.Event(title: nil))
        #expect(!detection.isFlight)
        #expect(detection.confidence == 0)
        #expect(FlightDetector().detect(FlightDetector.Event(title: "UA857 SFO-PEK")).departure == nil)
    }

    @Test func hugeInputIsReadWithoutCrashing() {
        let huge = String(repeating: "UA 857 SFO → PEK Room B12 ", count: 40_000)
        let detection = FlightDetector().detect(title: huge, description: huge, location: huge)
        #expect(detection.isFlight)
        let noise = String(repeating: "x", count: 2_000_000)
        #expect(!FlightDetector().detect(title: noise, description: noise).isFlight)
    }

    @Test func deeplyNestedMarkupIsNotParsed() {
        let nested =
            "FlightReservation " + String(repeating: "{\"a\":", count: 50_000) + "1"
            + String(repeating: "}", count: 50_000)
        #expect(!FlightDetector().detect(title: "Notes", description: nested).isFlight)
    }

    @Test func eventsDecodeFromTheCLIsJSON() throws {
        let json = """
            [{"title": "UA857 SFO to PEK", "start": "2027-04-02T18:30:00Z", "end": "2027-04-03T06:15:00.500Z"},
             {"description": "Vuelo a Madrid", "start": "2027-04-02T20:30:00+02:00", "timeZone": "Europe/Madrid"},
             {"title": "Holiday", "start": "2027-04-02", "end": "2027-04-03", "location": null},
             {}]
            """
        let events = try JSONDecoder().decode([FlightDetector.Event].self, from: Data(json.utf8))
        #expect(events.count == 4)
        #expect(events[0].start == (try Date("2027-04-02T18:30:00Z", strategy: .iso8601)))
        #expect(events[1].start == (try Date("2027-04-02T18:30:00Z", strategy: .iso8601)))
        #expect(events[1].timeZone?.identifier == "Europe/Madrid")
        #expect(events[2].start == (try Date("2027-04-02T00:00:00Z", strategy: .iso8601)))
        #expect(events[3].title == nil)
    }

    @Test(
        arguments: [
            #"[{"start": "yesterday"}]"#, #"[{"start": "2027-02-30"}]"#, #"[{"end": "2027-04-02T25:00:00Z"}]"#,
            #"[{"timeZone": "Mars/Olympus"}]"#, #"[{"title": 12}]"#,
        ]
    )
    func malformedEventsAreATypedError(json: String) {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([FlightDetector.Event].self, from: Data(json.utf8))
        }
    }

    @Test func reportsHaveTheCLIsShape() throws {
        let start = try Date("2027-04-02T18:30:00Z", strategy: .iso8601)
        let events = [
            FlightDetector.Event(title: "UA857 SFO to PEK", start: start, end: start.addingTimeInterval(3600)),
            FlightDetector.Event(title: "Lunch with Sam"),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(FlightDetector().reports(for: events))
        let objects = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(objects.count == 2)
        #expect(objects[0]["isFlight"] as? Bool == true)
        #expect(objects[0]["flightNumber"] as? String == "UA857")
        #expect((objects[0]["airline"] as? [String: Any])?["iataCode"] as? String == "UA")
        #expect((objects[0]["from"] as? [String: Any])?["iataCode"] as? String == "SFO")
        #expect((objects[0]["to"] as? [String: Any])?["city"] as? String == "Beijing")
        #expect(objects[0]["departure"] as? String == "2027-04-02T18:30:00Z")
        #expect(Set(objects[1].keys) == ["isFlight", "confidence"])

        let decoded = try JSONDecoder().decode([FlightDetector.Report].self, from: data)
        #expect(decoded == FlightDetector().reports(for: events))
    }

    @Test func eventsRoundTripThroughJSON() throws {
        let event = FlightDetector.Event(
            title: "Flug nach Berlin",
            description: "LH 2068",
            location: "MUC",
            start: try Date("2027-03-12T16:00:00Z", strategy: .iso8601),
            end: try Date("2027-03-12T17:15:00Z", strategy: .iso8601),
            timeZone: TimeZone(identifier: "Europe/Berlin")
        )
        let data = try JSONEncoder().encode(event)
        #expect(try JSONDecoder().decode(FlightDetector.Event.self, from: data) == event)
    }
}
