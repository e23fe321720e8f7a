import ArgumentParser
import Foundation
import TetherCalendar
import TetherCommandSupport
import TetherFlights

/// `tether calendar flights`: the flights among the events of every calendar source, or among events given as
/// JSON with `--input`.
struct FlightsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flights",
        abstract: "Find the flights among calendar events.",
        discussion: """
            Without --input, syncs every calendar source as `tether calendar events` does and runs the flight \
            detector on the events of the window (cancelled events left out). The table shows each departure \
            and arrival on the clock of its airport, with the zone's abbreviation (PST, CET), as a boarding \
            pass does; a time whose airport is not known is in this system's zone. --json then prints an array with \
            one object per flight: "event" (source, id, title, start, end) and "detection" (the fields --input \
            prints). The exit statuses, and the lines on standard error for sources that did not load or sent \
            events that could not be read, are those of `tether calendar events`.

            --input reads a JSON array of events, each with any of title, \
            description, location, start and end (ISO 8601, or a date for an \
            all-day event), and prints a JSON array with one result per event, \
            in order: isFlight, confidence, and airline, flightNumber, from, to, \
            departure and arrival when found, and legs (each with flightNumber, \
            airline, from, to, departure, arrival) for a booking of several flights.

            EXAMPLES
              tether calendar flights
              tether calendar flights --from 2026-12-01 --to 2027-01-01 --json
              tether calendar flights --input events.json
              echo '[{"title": "UA 857 SFO → PEK"}]' | tether calendar flights --input -
            """
    )

    @Option(help: ArgumentHelp("A JSON array of events; - for standard input.", valueName: "file"))
    var input: String?

    @OptionGroup var window: CalendarWindowOptions

    @Flag(help: "Print JSON instead of a table (--input always prints JSON).")
    var json = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if input != nil, window.from != nil || window.to != nil {
            throw ValidationError("--from and --to select events from the calendar sources; not with --input")
        }
    }

    func run() async throws {
        guard let input else { return try await runOnSources() }
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

    func runOnSources() async throws {
        try await CalendarSources.fetchAndShow(global, window: window) { fetch, interval, workspace in
            let flights = CalendarOutput.flights(in: fetch.events)
            if json {
                workspace.terminal.out(try CalendarOutput.encoder().encode(flights))
                workspace.terminal.out("")
            } else if flights.isEmpty {
                workspace.terminal.out(
                    "No flights from \(Format.iso8601(interval.start) ?? "") to \(Format.iso8601(interval.end) ?? "")."
                )
            } else {
                let style = Style(enabled: workspace.terminal.colors(onStandardError: false))
                for line in CalendarOutput.flightTable(flights, timeZone: .current, style: style) {
                    workspace.terminal.out(line)
                }
            }
        }
    }
}
