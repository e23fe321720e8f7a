import Foundation
import Tether
import TetherCommandSupport
import TetherDevProvider
import TetherOAuth

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DemoRun {
    /// Two calendar sources on the provider's own calendar APIs; one grant revoked while the other keeps loading.
    func calendarStep(_ configuration: ProviderConfiguration) -> Step {
        Step(title: "Two calendar sources, a second calendar chosen, a trip; one is revoked, the other keeps loading") {
            try await signInCalendar("ada-google", user: ("ada", "lovelace"), api: .google, configuration)
            try await signInCalendar("grace-outlook", user: ("grace", "hopper"), api: .microsoft, configuration)
            let epoch = await provider.admin.calendarEpoch()
            let formatter = ISO8601DateFormatter()
            let window = ["--from", formatter.string(from: epoch), "--to", formatter.string(from: epoch + 17 * 86_400)]

            try await chooseSecondCalendarAndShowTrip(window: window, epoch: epoch)
            let first = try CalendarEvents(try await cli(["calendar", "events", "--json"] + window, expecting: 0))
            for name in ["ada-google", "grace-outlook"] {
                try check(first.count(name) > 0, "no events from \(name)")
                try check(first.source(name)?["stale"] as? Bool == false, "\(name) is stale after a fetch")
            }
            timeline.say(
                "`tether calendar events`: \(first.count("ada-google")) events from ada-google (Google Calendar API), "
                    + "\(first.count("grace-outlook")) from grace-outlook (Microsoft Graph), both fresh"
            )

            await provider.admin.revokeGrants(ofUser: "grace")
            let second = try CalendarEvents(
                try await cli(["calendar", "events", "--json"] + window, expecting: ExitStatus.needsSignIn.rawValue)
            )
            let grace = second.source("grace-outlook")
            try check(grace?["state"] as? String == "needs-sign-in", "grace-outlook is \(String(describing: grace))")
            try check(grace?["stale"] as? Bool == true, "grace-outlook's events are not marked stale")
            try check(second.count("grace-outlook") == first.count("grace-outlook"), "grace's cached events are gone")
            try check(second.source("ada-google")?["stale"] as? Bool == false, "ada-google stopped loading")
            timeline.say(
                "grace's grant revoked: exit \(ExitStatus.needsSignIn.rawValue); grace-outlook needs sign-in and shows "
                    + "its \(second.count("grace-outlook")) cached events, stale; ada-google loads fresh"
            )
            let sources = try await cli(["calendar", "sources"], expecting: 0)
            for line in sources.stdout.split(separator: "\n") { timeline.say("  " + line) }
        }
    }

    /// Gives grace a second calendar, "Travel", with her flight home from Tokyo: Microsoft Graph reads the default
    /// calendar only, until `tether calendar select --all`; then `tether calendar trips` joins the flight out (in her
    /// default calendar) and the flight home into one trip.
    func chooseSecondCalendarAndShowTrip(window: [String], epoch: Date) async throws {
        let travel = await provider.admin.addCalendar(named: "Travel", user: "grace", timeZone: "Asia/Tokyo")
        try await provider.admin.addCalendarEvent(
            DevProvider.CalendarEvent(
                summary: "NH 223 Tokyo Haneda → Frankfurt",
                description:
                    "ANA booking reference 7QWX2K\nDeparture: Tokyo Haneda (HND) 11:00\nArrival: Frankfurt (FRA) 16:55",
                start: .dateTime(epoch + 16 * 86_400 + 2 * 3600, timeZone: "Asia/Tokyo"),
                end: .dateTime(epoch + 16 * 86_400 + 15 * 3600 + 55 * 60, timeZone: "Europe/Berlin")
            ),
            user: "grace",
            calendar: travel
        )
        let calendars = try await cli(["calendar", "calendars", "grace-outlook", "--json"], expecting: 0)
        let listed = try JSONSerialization.jsonObject(with: Data(calendars.stdout.utf8)) as? [[String: Any]] ?? []
        let names = listed.compactMap { $0["name"] as? String }
        try check(names.contains("Travel"), "grace's calendars are \(names)")
        timeline.say(
            "`tether calendar calendars grace-outlook`: \(names.joined(separator: ", ")); Graph reads the default one"
        )
        _ = try await cli(["calendar", "select", "grace-outlook", "--all"], expecting: 0)
        let trips = try await cli(
            ["calendar", "trips", "--json", "--home-zone", "Europe/Berlin", "--home-airport", "FRA"] + window,
            expecting: 0
        )
        let document = try JSONSerialization.jsonObject(with: Data(trips.stdout.utf8)) as? [String: Any]
        // Both users' sources are read: the trip home to Frankfurt is grace's.
        func legs(_ trip: [String: Any]) -> [String] {
            (trip["legs"] as? [[String: Any]])?.compactMap { $0["flightNumber"] as? String } ?? []
        }
        let trip = (document?["trips"] as? [[String: Any]])?.first { legs($0).contains("NH223") }
        let legs = trip.map(legs) ?? []
        try check(legs.contains("LH716") && legs.contains("NH223"), "the trip's legs are \(legs)")
        timeline.say(
            "`tether calendar select grace-outlook --all`, then `tether calendar trips`: FRA → HND → FRA, "
                + "legs \(legs.joined(separator: ", ")), \(trip?["nightsAway"] as? Int ?? 0) nights away"
        )
        let text = try await cli(
            ["calendar", "trips", "--home-zone", "Europe/Berlin", "--home-airport", "FRA"] + window,
            expecting: 0
        )
        let lines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        if let start = lines.firstIndex(where: { $0.contains("LH716") }) {
            let block = lines[..<start].lastIndex(where: \.isEmpty).map { $0 + 1 } ?? 0
            for line in lines[block...].prefix(while: { !$0.isEmpty }) { timeline.say("  " + line) }
        }
    }

    /// Signs `name` in through the provider's page with the calendar scope of `api`, and saves it as a calendar
    /// source on the provider's own endpoint for that API.
    func signInCalendar(
        _ name: String,
        user: (name: String, password: String),
        api: CalendarAPI,
        _ configuration: ProviderConfiguration
    ) async throws {
        var calendarConfiguration = configuration
        calendarConfiguration.scopes = [
            "openid", "email", "profile", "offline_access",
            api == .google ? "https://www.googleapis.com/auth/calendar.readonly" : "Calendars.Read",
        ]
        let client = try workspace.client(for: calendarConfiguration)
        let session = workspace.session(name, client: client)
        let result = try await client.signIn(using: presenter(username: user.name, password: user.password))
        guard let account = result.account else { throw Failure("no account for \(name)") }
        try await session.signIn(account: account, tokens: result.tokens)
        try workspace.profiles.save(
            Profile(
                name: name,
                preset: ProviderPreset.dev.rawValue,
                provider: calendarConfiguration,
                calendar: CalendarSetting(
                    api: api,
                    baseURL: provider.issuer.appendingPathComponent(api.developmentPath)
                )
            )
        )
    }

    /// The output of `tether calendar events --json`.
    struct CalendarEvents {
        let sources: [[String: Any]]
        let events: [[String: Any]]

        init(_ output: Output) throws {
            let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
            sources = object?["sources"] as? [[String: Any]] ?? []
            events = object?["events"] as? [[String: Any]] ?? []
        }

        func source(_ name: String) -> [String: Any]? { sources.first { $0["name"] as? String == name } }
        func count(_ name: String) -> Int { events.filter { $0["source"] as? String == name }.count }
    }
}
