import Foundation
import TetherFlights

// Measures flight detections per second over the labelled corpus, or prints the reports for a JSON array of
// events (the output of `tether calendar flights --input FILE`).
//
//   swift run -c release FlightBench [CORPUS] [--seconds N]
//   swift run FlightBench --detect FILE

let arguments = Array(CommandLine.arguments.dropFirst())
let detector = FlightDetector()

func readEvents(_ path: String) throws -> [FlightDetector.Event] {
    let data =
        path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: path))
    return try JSONDecoder().decode([FlightDetector.Event].self, from: data)
}

if arguments.first == "--detect", arguments.count == 2 {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let reports = detector.reports(for: try readEvents(arguments[1]))
    print(String(decoding: try encoder.encode(reports), as: UTF8.self))
    exit(0)
}

var seconds = 3.0
var path = "Tests/TetherFlightsTests/Fixtures/flight-corpus.json"
var remaining = arguments[...]
while let argument = remaining.popFirst() {
    if argument == "--seconds", let value = remaining.popFirst().flatMap(Double.init) {
        seconds = value
    } else {
        path = argument
    }
}
let events = try readEvents(path)

let clock = ContinuousClock()
let firstStart = clock.now
var flights = detector.reports(for: [events[0]]).filter(\.isFlight).count
let firstUse = clock.now - firstStart

var detections = 0
let start = clock.now
while clock.now - start < .seconds(seconds) {
    for event in events {
        if detector.detect(event).isFlight { flights += 1 }
    }
    detections += events.count
}
let elapsed = clock.now - start
let perSecond =
    Double(detections) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
print("first detection (reference data parsed): \(firstUse)")
print(
    "\(detections) detections over \(events.count) corpus events in \(elapsed): \(Int(perSecond)) detections per second"
)
print("(flights counted: \(flights))")
