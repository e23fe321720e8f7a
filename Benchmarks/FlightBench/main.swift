import Foundation
import TetherFlights

// Measures flight detections per second over the labelled corpus (or other JSON arrays of events), on the wall
// clock and per second of the thread's CPU time (what one core does, whatever else runs on the machine), or
// prints the reports for a JSON array of events (the output of `tether calendar flights --input FILE`).
//
//   swift run -c release FlightBench [CORPUS...] [--seconds N]
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
var paths: [String] = []
var remaining = arguments[...]
while let argument = remaining.popFirst() {
    if argument == "--seconds", let value = remaining.popFirst().flatMap(Double.init) {
        seconds = value
    } else {
        paths.append(argument)
    }
}
if paths.isEmpty { paths = ["Tests/TetherFlightsTests/Fixtures/flight-corpus.json"] }
let events = try paths.flatMap(readEvents)

/// The CPU time of the calling thread, in seconds.
func threadCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

let clock = ContinuousClock()
let firstStart = clock.now
var flights = detector.reports(for: [events[0]]).filter(\.isFlight).count
let firstUse = clock.now - firstStart

var detections = 0
let start = clock.now
let cpuStart = threadCPUTime()
while clock.now - start < .seconds(seconds) {
    for event in events {
        if detector.detect(event).isFlight { flights += 1 }
    }
    detections += events.count
}
let elapsed = clock.now - start
let cpu = threadCPUTime() - cpuStart
let perSecond =
    Double(detections) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
print("first detection (reference data parsed): \(firstUse)")
print(
    "\(detections) detections over \(events.count) corpus events in \(elapsed): \(Int(perSecond)) detections per second"
)
print("\(Int(Double(detections) / cpu)) detections per second of CPU time (\(String(format: "%.2f", cpu)) s)")
print("(flights counted: \(flights))")
