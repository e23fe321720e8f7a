import ArgumentParser
import Foundation
import Tether
import TetherCalendar
import TetherCommandSupport
import TetherFlights

/// `tether calendar trips`: where the person will be, from the flights among the events of every calendar source.
struct CalendarTripsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trips",
        abstract: "Trips, and where you are each day, from the flights in your calendars.",
        discussion: """
            Syncs every calendar source as `tether calendar events` does, finds the flights (left out: events \
            cancelled by their status, their title or the first line of their notes; the same flight in two \
            calendars counts once) and joins them into trips: a trip leaves the home area and ends with the \
            flight back; a departure from the airport of the last arrival within 24 hours is a connection. \
            Without a flight back in the window the trip is open. The home area is --home-airport and its city, \
            or else the airport the flights leave from in the home time zone.

            Printed: each trip with its legs in local times (zone abbreviations), destination and nights away; \
            the events while away at the local time beside the home time; the events that overlap a flight; and \
            for each day of the window the time zone(s) you are in (both on a travel day). --from and --to are \
            read in the home time zone.

            The home time zone is --home-zone; else the zone of the first source's main calendar that names \
            one (Google Calendar's primary calendar has the zone set for the account; Microsoft Graph's \
            calendars name none), which stays at home while the device's zone travels; else this system's (TZ).

            --json prints one object: "window" {start, end}; "home" {timeZone, timeZoneFrom ("option", \
            "calendar" or "system"), timeZoneSource (the source whose calendar gave it), airports}; "trips" [{destination \
            (a stop), start and end (home time), nightsAway, open, beganBeforeData, returned, legs, stops, \
            events}]; "days" [{date, timeZones, travel}]; "conflicts" [{event, flight (a leg)}]; \
            "unplacedFlights" [event]. A time is {utc, local (ISO 8601 with the local offset), timeZone, \
            abbreviation}; an airport {iataCode, name, city, countryCode, timeZone}; a leg {flightNumber, \
            airline, from, to, departure, arrival, connection, events [{source, id}]}; a stop {airport, arrival, \
            departure} (null: before or after the data); an event as `tether calendar events --json` prints one; \
            an event away {source, id, title, local, home}. Keys are always present, null when unknown. Exit \
            statuses and the lines on standard error are those of `tether calendar events`.

            EXAMPLES
              tether calendar trips --from 2027-03-01 --to 2027-04-01
              tether calendar trips --home-zone Europe/Berlin --home-airport FRA --json
            """
    )

    @OptionGroup var window: CalendarWindowOptions

    @Option(
        help: ArgumentHelp(
            "The home time zone, such as Europe/Berlin (IANA). Default: a source's main calendar's, else this "
                + "system's (TZ).",
            valueName: "zone"
        )
    )
    var homeZone: String?

    @Option(
        name: .customLong("home-airport"),
        help: ArgumentHelp(
            "A home airport or city code, such as SFO or LON; repeat or separate with commas. Default: found in "
                + "the flights.",
            valueName: "code"
        )
    )
    var homeAirports: [String] = []

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        _ = try home()
    }

    /// The home the options give; its zone is `zone`, or `--home-zone`, or this system's.
    /// - Throws: `ValidationError` for a zone or an airport code that is not known.
    func home(zone: TimeZone? = nil) throws -> Itinerary.Home {
        var home = Itinerary.Home(timeZone: zone ?? .current)
        if let homeZone {
            guard !homeZone.isEmpty, let named = TimeZone(identifier: homeZone) else {
                let shown = UntrustedText.forTerminal(String(homeZone.prefix(40)))
                throw ValidationError("--home-zone '\(shown)' is not an IANA time zone such as Europe/Berlin")
            }
            home.timeZone = named
        }
        for code in homeAirports.flatMap({ $0.split(separator: ",") }) {
            let trimmed = code.trimmingCharacters(in: .whitespaces)
            guard trimmed.count == 3, let airport = Airport(iataCode: trimmed) else {
                let shown = UntrustedText.forTerminal(String(trimmed.prefix(40)))
                throw ValidationError("--home-airport '\(shown)' is not a known IATA airport or city code")
            }
            home.airports.append(airport)
        }
        return home
    }

    /// The home zone when `--home-zone` is not given: the first source's (in the order the rows list them) whose
    /// main calendar names one, else this system's.
    static func homeZone(rows: [CalendarSourceRow]) -> (zone: TimeZone, origin: TripsOutput.ZoneOrigin) {
        if let row = rows.first(where: { $0.timeZone != nil }), let zone = row.timeZone {
            return (zone, .calendar(source: row.name))
        }
        return (.current, .system)
    }

    func run() async throws {
        let given = try home()
        let now = Date()
        // The window's dates are the home zone's. Without --home-zone that zone is known only once the sources
        // answered, so the fetch takes in a day more on each side (zones are at most 26 hours apart), and the
        // window is read again in the zone found.
        let provisional = try CalendarWindowOptions.window(
            from: window.from,
            to: window.to,
            now: now,
            timeZone: given.timeZone
        )
        let margin: TimeInterval = homeZone == nil ? 86_400 + 3_600 * 3 : 0
        var options = window
        options.from = Format.iso8601(provisional.start.addingTimeInterval(-margin))
        options.to = Format.iso8601(provisional.end.addingTimeInterval(margin))
        try await CalendarSources.fetchAndShow(global, window: options) { fetch, _, workspace in
            var output = TripsOutput()
            var home = given
            var interval = provisional
            var events = fetch.events
            if homeZone == nil {
                let found = Self.homeZone(rows: fetch.rows)
                output.zoneOrigin = found.origin
                home.timeZone = found.zone
                interval = try CalendarWindowOptions.window(
                    from: window.from,
                    to: window.to,
                    now: now,
                    timeZone: found.zone
                )
                events = events.filter { $0.overlaps(interval, in: found.zone) }
            }
            let itinerary = Itinerary(events: events, window: interval, home: home)
            if json {
                workspace.terminal.out(try CalendarOutput.encoder().encode(output.document(itinerary)))
                workspace.terminal.out("")
            } else {
                let style = Style(enabled: workspace.terminal.colors(onStandardError: false))
                for line in output.text(itinerary, style: style) {
                    workspace.terminal.out(line)
                }
            }
        }
    }
}
