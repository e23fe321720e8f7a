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
            calendars name none), which does not travel with the device; else this system's (TZ).

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

    /// The home the options give; its zone is `--home-zone`, or this system's until a calendar names one.
    /// - Throws: `ValidationError` for a zone or an airport code that is not known.
    func home() throws -> Itinerary.Home {
        var home = Itinerary.Home(timeZone: .current)
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

    /// The zones two places can be apart at most (UTC−12 to UTC+14), and an hour more.
    static let widestZoneGap: TimeInterval = 27 * 3_600

    func run() async throws {
        var home = try home()
        let now = Date()
        var origin = TripsOutput.ZoneOrigin.option
        var settled = homeZone != nil
        // The window's dates are the home zone's. Without --home-zone: the zone the cache keeps of a source's main
        // calendar (read without the network); else, when a Google source may name one, the fetch takes in 27 hours
        // more on each side and the window is read again in the zone it names; else this system's.
        let fetched = { (sources: CalendarSources) throws -> DateInterval in
            var margin: TimeInterval = 0
            if !settled {
                if let cached = sources.cachedTimeZone() {
                    home.timeZone = cached.zone
                    origin = .calendar(source: cached.source)
                    settled = true
                } else {
                    origin = .system
                    if sources.profiles.contains(where: { $0.calendar?.api == .google }) { margin = Self.widestZoneGap }
                }
            }
            let window = try interval(in: home.timeZone, now: now)
            return DateInterval(start: window.start - margin, end: window.end + margin)
        }
        try await CalendarSources.fetchAndShow(global, interval: fetched) { fetch, _, workspace in
            if !settled, let row = fetch.rows.first(where: { $0.timeZone != nil }), let zone = row.timeZone {
                home.timeZone = zone
                origin = .calendar(source: row.name)
            }
            let exact = try interval(in: home.timeZone, now: now)
            let events = fetch.events.filter { $0.overlaps(exact, in: home.timeZone) }
            let itinerary = Itinerary(events: events, window: exact, home: home)
            var output = TripsOutput()
            output.zoneOrigin = origin
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

    /// The window of --from and --to, their dates read in `zone`.
    func interval(in zone: TimeZone, now: Date) throws -> DateInterval {
        try CalendarWindowOptions.window(from: window.from, to: window.to, now: now, timeZone: zone)
    }
}
