import ArgumentParser
import Foundation
import TetherCalendar

/// `tether calendar`: what the calendar connections hold.
struct CalendarCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "Calendar events and the flights among them.",
        subcommands: [FlightsCommand.self]
    )
}

/// `tether calendar flights --input FILE`: runs the flight detector on events given as JSON.
struct FlightsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flights",
        abstract: "Find the flights among calendar events.",
        discussion: """
            --input reads a JSON array of events, each with any of title, \
            description, location, start and end (ISO 8601, or a date for an \
            all-day event), and prints a JSON array with one result per event, \
            in order: isFlight, confidence, and airline, flightNumber, from, to, \
            departure and arrival when found.

            EXAMPLES
              tether calendar flights --input events.json
              echo '[{"title": "UA 857 SFO → PEK"}]' | tether calendar flights --input -
            """
    )

    @Option(help: ArgumentHelp("A JSON array of events; - for standard input.", valueName: "file"))
    var input: String

    func run() async throws {
        let terminal = Terminal()
        let data: Data
        do {
            data =
                input == "-"
                ? FileHandle.standardInput.readDataToEndOfFile()
                : try Data(contentsOf: URL(fileURLWithPath: input))
        } catch {
            throw CLIFailure(.usage, "Could not read \(input)", fix: "Give a readable file, or - for standard input")
        }
        let events: [FlightDetector.Event]
        do {
            events = try JSONDecoder().decode([FlightDetector.Event].self, from: data)
        } catch {
            throw CLIFailure(
                .usage,
                "\(input == "-" ? "Standard input" : input) is not a JSON array of events",
                fix: "Give objects with title, description, location, start and end (ISO 8601)"
            )
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        terminal.out(try encoder.encode(FlightDetector().reports(for: events)))
        terminal.out("")
    }
}
