import Foundation
import HTTPTypes
import Testing
import TetherCalendar
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport
import TetherURLSession

@testable import TetherCLI

/// `tether calendar trips` as a subprocess, against the development provider's Google Calendar and Microsoft Graph
/// endpoints on 127.0.0.1, with flights put in two users' calendars through the provider's admin endpoints.
@Suite(.timeLimit(.minutes(3)))
struct CalendarTripsCommandTests {
    static let tripKeys: Set<String> = [
        "destination", "start", "end", "nightsAway", "open", "beganBeforeData", "returned", "legs", "stops", "events",
    ]
    static let legKeys: Set<String> = [
        "flightNumber", "airline", "from", "to", "departure", "arrival", "connection", "events",
    ]
    static let timeKeys: Set<String> = ["utc", "local", "timeZone", "abbreviation"]

    @Test func aFlightInTwoCalendarsMakesOneTripWithItsEventsAwayAndConflicts() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginCalendar("ada-google", api: "google").status == 0)
        #expect(try await cli.loginCalendar("grace-outlook", api: "microsoft", as: "grace").status == 0)
        // Six weeks after the seeded events, so that only these flights are in the window.
        let day0 = await cli.provider.admin.calendarEpoch() + 42 * 86_400
        func at(_ day: Int, _ hours: Double) -> Date { day0 + Double(day) * 86_400 + hours * 3600 }

        let outbound = (at(2, 9), at(2, 16.75))
        for user in ["ada", "grace"] {
            try await cli.addEvent(user: user, "LH 400 FRA → JFK", outbound, zone: "Europe/Berlin")
        }
        try await cli.addEvent(user: "ada", "LH 401 JFK → FRA", (at(7, 22), at(8, 6)), zone: "America/New_York")
        try await cli.addEvent(
            user: "ada",
            "UA 900 FRA → SFO",
            (at(4, 9), at(4, 20)),
            zone: "Europe/Berlin",
            status: "cancelled"
        )
        try await cli.addEvent(
            user: "ada",
            "Cancelled: UA 901 JFK → SFO",
            (at(5, 15), at(5, 21)),
            zone: "America/New_York"
        )
        try await cli.addEvent(user: "ada", "Board call", (at(2, 12), at(2, 13)), zone: "Europe/Berlin")
        try await cli.addEvent(user: "ada", "Customer visit", (at(4, 14), at(4, 15)), zone: "America/New_York")
        try await cli.addEvent(
            user: "ada",
            "Dinner \(HostileTextTests.hostile)",
            (at(5, 23), at(6, 1)),
            zone: "America/New_York"
        )

        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        formatter.timeZone = TimeZone(identifier: "Europe/Berlin")
        let window = ["--from", formatter.string(from: day0), "--to", formatter.string(from: at(10, 0))]
        let home = ["--home-zone", "Europe/Berlin"]

        let json = try await cli.json(["calendar", "trips", "--json"] + window + home)
        #expect(json.result.status == 0, "\(json.result.stderr)")
        let document = try #require(json.object as? [String: Any])
        #expect(Set(document.keys) == ["window", "home", "trips", "days", "conflicts", "unplacedFlights"])
        #expect((document["home"] as? [String: Any])?["timeZone"] as? String == "Europe/Berlin")
        #expect((document["home"] as? [String: Any])?["airports"] as? [String] == ["FRA"])
        let trips = try #require(document["trips"] as? [[String: Any]])
        #expect(trips.count == 1, "\(trips)")
        let trip = try #require(trips.first)
        #expect(Set(trip.keys) == Self.tripKeys)
        #expect(trip["nightsAway"] as? Int == 6)
        #expect(trip["open"] as? Bool == false)
        #expect(trip["returned"] as? Bool == true)
        #expect(
            (trip["destination"] as? [String: Any]).flatMap { $0["airport"] as? [String: Any] }?["iataCode"] as? String
                == "JFK"
        )

        let legs = try #require(trip["legs"] as? [[String: Any]])
        #expect(legs.map { $0["flightNumber"] as? String } == ["LH400", "LH401"], "no cancelled flight: \(legs)")
        #expect(legs.allSatisfy { Set($0.keys) == Self.legKeys })
        // The flight both calendars hold is one leg with both events.
        let sources = (legs[0]["events"] as? [[String: Any]])?.compactMap { $0["source"] as? String }
        #expect(Set(sources ?? []) == ["ada-google", "grace-outlook"])
        let departure = try #require(legs[0]["departure"] as? [String: Any])
        #expect(Set(departure.keys) == Self.timeKeys)
        #expect(departure["timeZone"] as? String == "Europe/Berlin")
        #expect(departure["utc"] as? String == Format.iso8601(outbound.0))
        let arrival = try #require(legs[0]["arrival"] as? [String: Any])
        #expect(arrival["timeZone"] as? String == "America/New_York")
        #expect(["EST", "EDT"].contains(arrival["abbreviation"] as? String), "\(arrival)")
        #expect((arrival["local"] as? String)?.hasSuffix(":00") == true)

        let away = try #require(trip["events"] as? [[String: Any]])
        let visit = try #require(away.first { $0["title"] as? String == "Customer visit" })
        #expect((visit["local"] as? [String: Any])?["timeZone"] as? String == "America/New_York")
        #expect((visit["home"] as? [String: Any])?["timeZone"] as? String == "Europe/Berlin")
        #expect((visit["local"] as? [String: Any])?["utc"] as? String == Format.iso8601(at(4, 14)))

        let conflicts = try #require(document["conflicts"] as? [[String: Any]])
        #expect(conflicts.compactMap { ($0["event"] as? [String: Any])?["title"] as? String } == ["Board call"])
        #expect((conflicts.first?["flight"] as? [String: Any])?["flightNumber"] as? String == "LH400")

        let days = try #require(document["days"] as? [[String: Any]])
        #expect(days.count == 10)
        let travel = try #require(days.first { $0["date"] as? String == formatter.string(from: at(2, 12)) })
        #expect(travel["timeZones"] as? [String] == ["Europe/Berlin", "America/New_York"])
        #expect(travel["travel"] as? Bool == true)
        let away5 = try #require(days.first { $0["date"] as? String == formatter.string(from: at(5, 12)) })
        #expect(away5["timeZones"] as? [String] == ["America/New_York"])

        let text = try await cli.run(["calendar", "trips"] + window + home)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Trip to New York (JFK) · 6 nights"), "\(text.stdout)")
        #expect(text.stdout.contains("LH400"))
        #expect(text.stdout.contains("FRA → JFK"))
        #expect(text.stdout.contains("EST") || text.stdout.contains("EDT"), "zone abbreviations: \(text.stdout)")
        #expect(text.stdout.contains("Customer visit"))
        #expect(text.stdout.contains("Board call"))
        #expect(!text.stdout.contains("UA900") && !text.stdout.contains("UA901"))
        HostileTextTests.expectInert(text.stdout, "calendar trips")
        HostileTextTests.expectInert(text.stderr, "calendar trips (standard error)")

        try await cli.expectNoTokens(in: [json.result, text])
    }

    /// A device's zone travels with the person; the zone of their main calendar stays at home. Ada's Google primary
    /// calendar is in America/Los_Angeles, while the process runs in Tokyo's zone.
    @Test func theHomeZoneIsTheMainCalendarsWhenNoneIsGiven() async throws {
        let started = try await CLI.start()
        defer { Task { await started.stop() } }
        let cli = started.with(["TZ": "Asia/Tokyo"])
        #expect(try await cli.loginCalendar("ada-google", api: "google").status == 0)
        let day0 = await cli.provider.admin.calendarEpoch() + 42 * 86_400
        func at(_ day: Int, _ hours: Double) -> Date { day0 + Double(day) * 86_400 + hours * 3600 }
        try await cli.addEvent(user: "ada", "UA 58 SFO → FRA", (at(2, 22), at(3, 9)), zone: "America/Los_Angeles")
        try await cli.addEvent(user: "ada", "UA 59 FRA → SFO", (at(6, 10), at(6, 21)), zone: "Europe/Berlin")
        // On the window's last Los Angeles day, after Tokyo's last day has ended: in the window.
        try await cli.addEvent(user: "ada", "UA 60 SFO → NRT", (at(9, 20), at(10, 7)), zone: "America/Los_Angeles")
        // On its first Tokyo day, before Los Angeles's first day has begun: not in the window.
        try await cli.addEvent(user: "ada", "UA 61 SFO → LAX", (at(0, 0), at(0, 1.5)), zone: "America/Los_Angeles")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        formatter.timeZone = TimeZone(identifier: "America/Los_Angeles")
        let window = ["--from", formatter.string(from: at(0, 12)), "--to", formatter.string(from: at(10, 12))]

        let json = try await cli.json(["calendar", "trips", "--json"] + window)
        #expect(json.result.status == 0, "\(json.result.stderr)")
        let document = try #require(json.object as? [String: Any])
        let home = try #require(document["home"] as? [String: Any])
        #expect(home["timeZone"] as? String == "America/Los_Angeles", "\(home)")
        #expect(home["timeZoneFrom"] as? String == "calendar")
        #expect(home["timeZoneSource"] as? String == "ada-google")
        #expect(home["airports"] as? [String] == ["SFO"])
        // The window is read in that zone: its dates are Los Angeles's, from local midnight.
        let windowObject = try #require(document["window"] as? [String: Any])
        let start = try #require(CalendarDay(formatter.string(from: at(0, 12))))
        let losAngeles = try #require(TimeZone(identifier: "America/Los_Angeles"))
        #expect(windowObject["start"] as? String == Format.iso8601(start.start(in: losAngeles)))
        let days = try #require(document["days"] as? [[String: Any]])
        #expect(days.count == 10)
        #expect(days.first?["timeZones"] as? [String] == ["America/Los_Angeles"])
        let trips = try #require(document["trips"] as? [[String: Any]])
        func flightNumbers(_ trips: [[String: Any]]) -> [[String?]] {
            trips.map { (($0["legs"] as? [[String: Any]]) ?? []).map { $0["flightNumber"] as? String } }
        }
        #expect(flightNumbers(trips) == [["UA58", "UA59"], ["UA60"]], "\(trips)")
        #expect(trips.first?["returned"] as? Bool == true)
        #expect(trips.last?["open"] as? Bool == true)

        // Once the cache knows the zone, the fetch is the window itself, with the same trips.
        let cached = try await cli.json(["calendar", "trips", "--json"] + window)
        let again = try #require(cached.object as? [String: Any])
        #expect((again["home"] as? [String: Any])?["timeZoneFrom"] as? String == "calendar")
        #expect(flightNumbers((again["trips"] as? [[String: Any]]) ?? []) == [["UA58", "UA59"], ["UA60"]])
        #expect((again["window"] as? [String: Any])?["start"] as? String == windowObject["start"] as? String)

        let text = try await cli.run(["calendar", "trips"] + window)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(
            text.stdout.contains("Home: America/Los_Angeles (the zone of the main calendar of 'ada-google') · SFO"),
            "\(text.stdout)"
        )

        // --home-zone wins over the calendar's.
        let given = try await cli.json(["calendar", "trips", "--json", "--home-zone", "Europe/Berlin"] + window)
        let givenHome = try #require((given.object as? [String: Any])?["home"] as? [String: Any])
        #expect(givenHome["timeZone"] as? String == "Europe/Berlin")
        #expect(givenHome["timeZoneFrom"] as? String == "option")
        #expect(givenHome["timeZoneSource"] is NSNull)
    }

    /// Graph's calendars name no zone: the system's stands in, and the output says so.
    @Test func withoutACalendarZoneTheSystemsIsHome() async throws {
        let started = try await CLI.start()
        defer { Task { await started.stop() } }
        let cli = started.with(["TZ": "Asia/Tokyo"])
        #expect(try await cli.loginCalendar("grace-outlook", api: "microsoft", as: "grace").status == 0)
        let json = try await cli.json(["calendar", "trips", "--json"])
        #expect(json.result.status == 0, "\(json.result.stderr)")
        let home = try #require((json.object as? [String: Any])?["home"] as? [String: Any])
        #expect(home["timeZone"] as? String == "Asia/Tokyo", "\(home)")
        #expect(home["timeZoneFrom"] as? String == "system")
        #expect(home["timeZoneSource"] is NSNull)
        let text = try await cli.run(["calendar", "trips"])
        #expect(text.stdout.contains("Home: Asia/Tokyo (this system's zone: no calendar names one)"), "\(text.stdout)")
    }

    @Test func anUnknownHomeZoneOrAirportIsAUsageError() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let zone = try await cli.run(["calendar", "trips", "--home-zone", "Mars/Olympus_Mons"])
        #expect(zone.status == 2)
        #expect(zone.stderr.contains("is not an IANA time zone"), "\(zone.stderr)")
        let airport = try await cli.run(["calendar", "trips", "--home-airport", "FRA,ZZZ"])
        #expect(airport.status == 2)
        #expect(airport.stderr.contains("'ZZZ' is not a known IATA airport"), "\(airport.stderr)")
        #expect(zone.stdout.isEmpty && airport.stdout.isEmpty)
        // No calendar source: exit 3, as `tether calendar events`.
        #expect(try await cli.run(["calendar", "trips", "--home-zone", "Europe/Berlin"]).status == 3)
    }

    @Test func zoneAbbreviationsComeFromTheTimeZoneDatabase() throws {
        func names(_ text: String) -> [String]? {
            ZoneAbbreviations.names(posixTZ: text).map { [$0.standard] + ($0.daylight.map { [$0] } ?? []) }
        }
        #expect(names("PST8PDT,M3.2.0,M11.1.0") == ["PST", "PDT"])
        #expect(names("CET-1CEST,M3.5.0,M10.5.0/3") == ["CET", "CEST"])
        #expect(names("JST-9") == ["JST"])
        #expect(names("<+04>-4") == ["+04"])
        #expect(names("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0") == ["+1030", "+11"])
        #expect(names("") == nil)
        #expect(names("<+04") == nil)

        var zones = ZoneAbbreviations()
        let january = Date(timeIntervalSince1970: 1_799_625_600)  // 2027-01-11
        let july = january + 180 * 86_400
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        if FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Europe/Berlin") {
            #expect(zones.abbreviation(berlin, at: january) == "CET")
            #expect(zones.abbreviation(berlin, at: july) == "CEST")
            #expect(zones.abbreviation(tokyo, at: july) == "JST")
        }
        // Without the database's files, Foundation's names stand; a name that is a path is never read.
        var missing = ZoneAbbreviations(directory: URL(fileURLWithPath: "/nonexistent"))
        #expect(missing.abbreviation(tokyo, at: july) == tokyo.abbreviation(for: july))
        #expect(ZoneAbbreviations.read("../../etc/passwd", in: URL(fileURLWithPath: "/usr/share/zoneinfo")) == nil)
    }
}

extension CLI {
    /// Puts an event in a user's primary calendar through `POST /admin/calendar/events` over HTTP.
    func addEvent(
        user: String,
        _ summary: String,
        _ times: (Date, Date),
        zone: String,
        status: String = "confirmed"
    ) async throws {
        let body: [String: Any] = [
            "username": user,
            "summary": summary,
            "start": ["dateTime": Format.iso8601(times.0) ?? "", "timeZone": zone],
            "end": ["dateTime": Format.iso8601(times.1) ?? "", "timeZone": zone],
            "status": status,
        ]
        var request = HTTPRequest(method: .post, url: provider.url("/admin/calendar/events"))
        request.headerFields[.contentType] = "application/json"
        request.headerFields[try #require(HTTPField.Name("X-Tether-Admin"))] = provider.adminKey
        let (response, data) = try await URLSessionTransport().send(
            request,
            body: try JSONSerialization.data(withJSONObject: body)
        )
        #expect(response.status == .created, "\(String(decoding: data, as: UTF8.self))")
    }
}
