import Foundation
import SignInTestSupport
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// `tether calendar calendars` and `tether calendar select` as subprocesses, against the development provider's
/// Google Calendar and Microsoft Graph endpoints on 127.0.0.1. grace has three calendars there: her own,
/// "Conferences", and "Team", shared with her read-only and not shown by default.
@Suite(.timeLimit(.minutes(3)))
struct CalendarSelectCommandTests {
    static let calendarKeys: Set<String> = [
        "source", "id", "name", "primary", "read", "listed", "accessRole", "canEdit", "color", "timeZone",
    ]

    /// Shares "Team" with grace, with one event on day 0, and makes her two calendar sources.
    static func start() async throws -> (cli: CLI, team: String) {
        let cli = try await CLI.start()
        let admin = cli.provider.admin
        let team = await admin.addCalendar(
            named: "Team",
            user: "grace",
            timeZone: "Europe/Berlin",
            sharedBy: "lead@example.com",
            canEdit: false,
            selected: false
        )
        let start = await admin.calendarEpoch().addingTimeInterval(10 * 3_600)
        try await admin.addCalendarEvent(
            DevProvider.CalendarEvent(
                summary: "Team planning",
                start: .dateTime(start, timeZone: "Europe/Berlin"),
                end: .dateTime(start.addingTimeInterval(3_600), timeZone: "Europe/Berlin")
            ),
            user: "grace",
            calendar: team
        )
        #expect(try await cli.loginCalendar("grace-google", api: "google", as: "grace").status == 0)
        #expect(try await cli.loginCalendar("grace-outlook", api: "microsoft", as: "grace").status == 0)
        return (cli, team)
    }

    static func rows(_ object: Any, source: String) throws -> [[String: Any]] {
        try #require(object as? [[String: Any]]).filter { $0["source"] as? String == source }
    }

    static func titles(_ object: Any, source: String) throws -> Set<String> {
        let events = try #require((object as? [String: Any])?["events"] as? [[String: Any]])
        return Set(events.filter { $0["source"] as? String == source }.compactMap { $0["title"] as? String })
    }

    static func source(_ object: Any, _ name: String) throws -> [String: Any] {
        let list =
            (object as? [[String: Any]]) ?? ((object as? [String: Any])?["sources"] as? [[String: Any]]) ?? []
        return try #require(list.first { $0["name"] as? String == name })
    }

    @Test func everyCalendarIsListedWithWhetherItIsReadAndAllReadsThemAll() async throws {
        let (cli, team) = try await Self.start()
        defer { Task { await cli.stop() } }
        let listing = try await cli.json(["calendar", "calendars", "--json"])
        #expect(listing.result.status == 0, "\(listing.result.stderr)")
        let google = try Self.rows(listing.object, source: "grace-google")
        let graph = try Self.rows(listing.object, source: "grace-outlook")
        #expect(google.count == 3 && graph.count == 3)
        #expect(((listing.object as? [[String: Any]]) ?? []).allSatisfy { Set($0.keys) == Self.calendarKeys })
        // By default: Google's primary and shown calendars, Graph's default calendar.
        #expect(google.map { $0["read"] as? Bool } == [true, true, false])
        #expect(graph.map { $0["read"] as? Bool } == [true, false, false])
        #expect(google.map { $0["primary"] as? Bool } == [true, false, false])
        let googleTeam = try #require(google.first { $0["id"] as? String == team })
        #expect(googleTeam["name"] as? String == "Team")
        #expect(googleTeam["accessRole"] as? String == "reader")
        #expect(googleTeam["canEdit"] as? Bool == false)
        #expect(googleTeam["color"] as? String == "#9a9cff")
        #expect(googleTeam["listed"] as? Bool == true)
        #expect(googleTeam["timeZone"] as? String == "Europe/Berlin")
        let graphTeam = try #require(graph.first { $0["id"] as? String == team })
        #expect(graphTeam["accessRole"] is NSNull)
        #expect(graphTeam["canEdit"] as? Bool == false)
        #expect(graphTeam["timeZone"] is NSNull)

        let table = try await cli.run(["calendar", "calendars", "grace-outlook"])
        #expect(table.status == 0)
        #expect(table.stdout.contains("Team") && table.stdout.contains("read only"), "\(table.stdout)")
        #expect(!table.stdout.contains("grace-google"))

        let select = try await cli.run(["calendar", "select", "grace-outlook", "--all"])
        #expect(select.status == 0, "\(select.stderr)")
        #expect(select.stdout.contains("'grace-outlook' now reads every calendar"), "\(select.stdout)")
        let sources = try await cli.json(["calendar", "sources", "--json"])
        #expect(try Self.source(sources.object, "grace-outlook")["calendars"] as? String == "all")
        #expect(try Self.source(sources.object, "grace-google")["calendars"] as? String == "default")

        let events = try await cli.json(["calendar", "events", "--json"] + (try await cli.window()))
        #expect(events.result.status == 0, "\(events.result.stderr)")
        let outlook = try Self.titles(events.object, source: "grace-outlook")
        #expect(outlook.isSuperset(of: ["Team planning", "YOW! Tokyo", "Weekly review"]), "\(outlook)")
        let googleTitles = try Self.titles(events.object, source: "grace-google")
        #expect(googleTitles.contains("YOW! Tokyo") && !googleTitles.contains("Team planning"))
        let flights = try await cli.run(["calendar", "flights", "--json"] + (try await cli.window()))
        #expect(flights.status == 0)

        let after = try await cli.json(["calendar", "calendars", "grace-outlook", "--json"])
        #expect(try Self.rows(after.object, source: "grace-outlook").allSatisfy { $0["read"] as? Bool == true })
        try await cli.expectNoTokens(in: [listing.result, table, select, sources.result, events.result])
    }

    @Test func calendarsAreChosenByIdentifierAndAnythingElseChangesNothing() async throws {
        let (cli, team) = try await Self.start()
        defer { Task { await cli.stop() } }
        let chosen = try await cli.run(["calendar", "select", "grace-google", "grace@example.com", team])
        #expect(chosen.status == 0, "\(chosen.stderr)")
        #expect(chosen.stdout.contains("now reads 2 calendars: 'grace@example.com', 'Team'"), "\(chosen.stdout)")
        let settings = cli.home.appendingPathComponent("connections.json")
        let saved = try Data(contentsOf: settings)
        let expected = ["grace@example.com", team].sorted()
        let sources = try await cli.json(["calendar", "sources", "--json"])
        #expect(try Self.source(sources.object, "grace-google")["calendars"] as? [String] == expected)

        let refusals: [([String], Int32, String)] = [
            (["grace-google", "nope"], 2, "has no calendar with the identifier 'nope'; nothing was changed"),
            (["grace-google", "Team"], 2, "'Team' is a name; its identifier is \(team)"),
            (["grace-google"], 2, "Give --all, --default, or calendar identifiers"),
            (["grace-google", "--all", "--default"], 2, "Give --all, --default, or calendar identifiers"),
            (["grace-google", "--all", team], 2, "Give --all, --default, or calendar identifiers"),
            (["nobody", "--all"], 3, "No calendar source is named 'nobody'"),
            (["grace-gogle", "--all"], 3, "Did you mean 'grace-google'? The calendar sources are"),
        ]
        for (arguments, status, message) in refusals {
            let refused = try await cli.run(["calendar", "select"] + arguments)
            #expect(refused.status == status, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
            #expect(refused.stdout.isEmpty)
        }
        #expect(try Data(contentsOf: settings) == saved, "a refused choice changed connections.json")

        // The same choice as JSON: what is read, and the calendars named as the provider lists them.
        let again = try await cli.json(["calendar", "select", "grace-google", "--json", team, "grace@example.com"])
        #expect(again.result.status == 0, "\(again.result.stderr)")
        let choice = try #require(again.object as? [String: Any])
        #expect(Set(choice.keys) == ["source", "calendars", "chosen"])
        #expect(choice["source"] as? String == "grace-google")
        #expect(choice["calendars"] as? [String] == expected)
        let named = try #require(choice["chosen"] as? [[String: Any]])
        #expect(named.compactMap { $0["name"] as? String } == ["Team", "grace@example.com"])
        #expect(named.compactMap { $0["id"] as? String } == [team, "grace@example.com"])
        let every = try await cli.json(["calendar", "select", "grace-outlook", "--all", "--json"])
        #expect((every.object as? [String: Any])?["calendars"] as? String == "all")
        #expect(((every.object as? [String: Any])?["chosen"] as? [Any])?.isEmpty == true)
        try await cli.expectNoTokens(in: [again.result, every.result])

        let events = try await cli.json(["calendar", "events", "--json"] + (try await cli.window()))
        let titles = try Self.titles(events.object, source: "grace-google")
        #expect(titles.isSuperset(of: ["Team planning", "Weekly review"]) && !titles.contains("YOW! Tokyo"))
        // The settings still carry their MAC: the connection loads.
        #expect(try await cli.status().count == 2)
    }

    @Test func aRemovedCalendarIsNamedWhileTheOthersLoadUntilItIsChosenAgain() async throws {
        let (cli, team) = try await Self.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.run(["calendar", "select", "grace-google", "grace@example.com", team]).status == 0)
        #expect(try await cli.run(["calendar", "select", "grace-outlook", "--all"]).status == 0)
        let window = try await cli.window()
        #expect(try await cli.run(["calendar", "events", "--json"] + window).status == 0)

        try await cli.provider.admin.removeCalendar(team, user: "grace")
        let events = try await cli.json(["calendar", "events", "--json"] + window)
        #expect(events.result.status == 0, "the other calendars loaded: \(events.result.stderr)")
        for name in ["grace-google", "grace-outlook"] {
            #expect(
                events.result.stderr.contains("'\(name)': Calendar 'Team' is no longer in the calendar list"),
                "\(events.result.stderr)"
            )
            let row = try Self.source(events.object, name)
            #expect(row["state"] as? String == "calendars-unavailable")
            #expect(row["stale"] as? Bool == false)
            #expect((row["error"] as? String)?.contains("'Team'") == true)
            let titles = try Self.titles(events.object, source: name)
            #expect(titles.contains("Weekly review") && !titles.contains("Team planning"))
        }
        let sources = try await cli.json(["calendar", "sources", "--json"])
        for name in ["grace-google", "grace-outlook"] {
            #expect(try Self.source(sources.object, name)["state"] as? String == "calendars-unavailable")
            #expect(try Self.source(sources.object, name)["stale"] as? Bool == false)
        }
        let table = try await cli.run(["calendar", "sources"])
        #expect(table.stdout.contains("calendars-unavailable") && table.stdout.contains("2 chosen"))

        // The calendar chosen by identifier is listed as gone, by the name the cache kept.
        let listing = try await cli.json(["calendar", "calendars", "grace-google", "--json"])
        let rows = try Self.rows(listing.object, source: "grace-google")
        let gone = try #require(rows.first { $0["id"] as? String == team })
        #expect(gone["name"] as? String == "Team")
        #expect(gone["listed"] as? Bool == false)
        #expect(gone["read"] as? Bool == false)

        // Chosen by identifier, it is named again; under --all the list simply no longer has it.
        let again = try await cli.json(["calendar", "events", "--json"] + window)
        #expect(try Self.source(again.object, "grace-google")["state"] as? String == "calendars-unavailable")
        #expect(try Self.source(again.object, "grace-outlook")["state"] as? String == "connected")
        #expect(!again.result.stderr.contains("'grace-outlook': Calendar"), "\(again.result.stderr)")

        // Choosing again ends it at once.
        #expect(try await cli.run(["calendar", "select", "grace-google", "--default"]).status == 0)
        let chosen = try await cli.json(["calendar", "sources", "--json"])
        #expect(try Self.source(chosen.object, "grace-google")["state"] as? String == "connected")
        #expect(try Self.source(chosen.object, "grace-google")["calendars"] as? String == "default")
        let last = try await cli.run(["calendar", "events"] + window)
        #expect(last.status == 0)
        #expect(last.stderr.isEmpty, "\(last.stderr)")
    }

    @Test func theHelpNamesTheNewCommands() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let help = try await cli.run(["calendar", "--help"])
        #expect(help.status == 0)
        for text in ["calendars", "select", "tether calendar select work --all", "primary calendar"] {
            #expect(help.stdout.contains(text), "\(text) in \(help.stdout)")
        }
        let select = try await cli.run(["calendar", "select", "--help"])
        #expect(select.stdout.contains("--all") && select.stdout.contains("--default"))
    }
}
