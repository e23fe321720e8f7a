import Foundation
import SignInTestSupport
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// `tether login --calendar`, `tether calendar sources`, `events` and `flights` as subprocesses, against the
/// development provider's Google Calendar and Microsoft Graph endpoints on 127.0.0.1.
@Suite(.timeLimit(.minutes(3)))
struct CalendarCommandTests {
    static let eventKeys: Set<String> = [
        "source", "calendar", "id", "title", "start", "end", "allDay", "timeZone", "status", "location",
    ]
    static let sourceKeys: Set<String> = ["name", "api", "state", "lastSync", "stale", "error"]

    @Test func loginWithCalendarMakesSourcesAndEventsLoadFromBothAPIs() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let login = try await cli.loginCalendar("ada-google", api: "google")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stderr.contains("A calendar source (google, \(cli.issuer)/calendar/v3)"), "\(login.stderr)")
        #expect(try await cli.loginCalendar("grace-outlook", api: "microsoft", as: "grace").status == 0)
        let settings = try String(contentsOf: cli.home.appendingPathComponent("connections.json"), encoding: .utf8)
        #expect(settings.contains("\"baseURL\" : \"\(cli.issuer)/v1.0\""), "\(settings)")

        // Before any fetch: connected, never synced.
        let before = try await cli.json(["calendar", "sources", "--json"])
        #expect(before.result.status == 0)
        let unsynced = try #require(before.object as? [[String: Any]])
        #expect(unsynced.map { $0["name"] as? String } == ["ada-google", "grace-outlook"])
        #expect(unsynced.map { $0["api"] as? String } == ["google", "microsoft"])
        #expect(unsynced.map { $0["account"] as? String } == ["a***@example.com", "g***@example.com"])
        #expect(unsynced.allSatisfy { $0["state"] as? String == "connected" && $0["lastSync"] is NSNull })

        let events = try await cli.json(["calendar", "events", "--json"] + (try await cli.window()))
        #expect(events.result.status == 0, "\(events.result.stderr)")
        let document = try #require(events.object as? [String: Any])
        #expect(Set(document.keys) == ["sources", "events"])
        let sources = try #require(document["sources"] as? [[String: Any]])
        #expect(sources.count == 2)
        for source in sources {
            #expect(Set(source.keys) == Self.sourceKeys)
            #expect(source["state"] as? String == "connected")
            #expect(source["stale"] as? Bool == false)
            #expect(source["error"] is NSNull)
            #expect(source["lastSync"] as? String != nil)
        }
        let list = try #require(document["events"] as? [[String: Any]])
        #expect(list.allSatisfy { Set($0.keys) == Self.eventKeys })
        #expect(Set(list.compactMap { $0["source"] as? String }) == ["ada-google", "grace-outlook"])
        let offsite = try #require(list.first { $0["title"] as? String == "Team offsite" })
        #expect(offsite["allDay"] as? Bool == true)
        #expect((offsite["start"] as? String)?.count == 10, "an all-day start is a date: \(offsite)")
        let dentist = try #require(list.first { $0["title"] as? String == "Dentist" })
        #expect(dentist["allDay"] as? Bool == false)
        #expect((dentist["start"] as? String)?.hasSuffix("Z") == true)
        #expect(dentist["status"] as? String == "tentative")
        #expect(dentist["location"] as? String != nil)
        #expect(dentist["timeZone"] as? String == "America/Los_Angeles")

        let table = try await cli.run(["calendar", "events"] + (try await cli.window()))
        #expect(table.status == 0)
        #expect(table.stdout.contains("Weekly review"))
        #expect(table.stdout.contains("all day"))
        #expect(table.stderr.isEmpty, "\(table.stderr)")

        let synced = try await cli.json(["calendar", "sources", "--json"])
        let rows = try #require(synced.object as? [[String: Any]])
        #expect(rows.allSatisfy { $0["stale"] as? Bool == false && $0["lastSync"] as? String != nil })
        let text = try await cli.run(["calendar", "sources"])
        #expect(text.stdout.contains("grace-outlook"))
        #expect(text.stdout.contains("g***@example.com"))
        #expect(text.stdout.contains("fresh"))

        try await cli.expectNoTokens(in: [login, before.result, events.result, table, synced.result, text])
    }

    @Test func flightsAreFoundAmongTheEventsOfTheSources() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginCalendar("ada-google", api: "google").status == 0)
        #expect(try await cli.loginCalendar("grace-outlook", api: "microsoft", as: "grace").status == 0)
        let flights = try await cli.json(["calendar", "flights", "--json"] + (try await cli.window()))
        #expect(flights.result.status == 0, "\(flights.result.stderr)")
        let list = try #require(flights.object as? [[String: Any]])
        let numbers = Set(list.compactMap { ($0["detection"] as? [String: Any])?["flightNumber"] as? String })
        #expect(numbers.isSuperset(of: ["UA857", "LH455", "BA283", "LH716"]), "\(numbers)")
        for flight in list {
            let event = try #require(flight["event"] as? [String: Any])
            #expect(Set(event.keys) == ["source", "id", "title", "start", "end"])
            #expect((flight["detection"] as? [String: Any])?["isFlight"] as? Bool == true)
        }
        let titles = list.compactMap { ($0["event"] as? [String: Any])?["title"] as? String }
        #expect(!titles.contains("A320 review"))
        #expect(!titles.contains("Room 101 booking"))
        let ua857 = try #require(
            list.first { ($0["detection"] as? [String: Any])?["flightNumber"] as? String == "UA857" }
        )
        #expect((ua857["event"] as? [String: Any])?["source"] as? String == "ada-google")

        let table = try await cli.run(["calendar", "flights"] + (try await cli.window()))
        #expect(table.status == 0)
        #expect(table.stdout.contains("SFO → PEK"))
        #expect(table.stdout.contains("LH716"))
        // Departure and arrival on the clocks of their airports, each with its zone's abbreviation.
        let ua857Line = try #require(table.stdout.split(separator: "\n").first { $0.contains("SFO → PEK") })
        #expect(ua857Line.contains(" PST") || ua857Line.contains(" PDT"), "\(ua857Line)")
        #expect(ua857Line.contains(" CST"), "\(ua857Line)")
        try await cli.expectNoTokens(in: [flights.result, table])
    }

    @Test func aRevokedSourceNeedsSignInWhileTheOtherLoadsAndItsCacheIsShownStale() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginCalendar("ada-google", api: "google").status == 0)
        #expect(try await cli.loginCalendar("grace-outlook", api: "microsoft", as: "grace").status == 0)
        let window = try await cli.window()
        #expect(try await cli.run(["calendar", "events", "--json"] + window).status == 0)

        let earlier = try await cli.tokens()
        await cli.provider.admin.revokeGrants(ofUser: "ada")
        let events = try await cli.json(["calendar", "events", "--json"] + window)
        #expect(events.result.status == 3, "\(events.result.stderr)")
        let document = try #require(events.object as? [String: Any])
        let sources = try #require(document["sources"] as? [[String: Any]])
        let ada = try #require(sources.first { $0["name"] as? String == "ada-google" })
        #expect(ada["state"] as? String == "needs-sign-in")
        #expect(ada["stale"] as? Bool == true)
        #expect(ada["lastSync"] as? String != nil)
        #expect(ada["error"] as? String != nil)
        let grace = try #require(sources.first { $0["name"] as? String == "grace-outlook" })
        #expect(grace["state"] as? String == "connected")
        #expect(grace["stale"] as? Bool == false)
        // The revoked source's last events still show, from the cache.
        let list = try #require(document["events"] as? [[String: Any]])
        #expect(list.contains { $0["source"] as? String == "ada-google" && $0["title"] as? String == "Dentist" })
        #expect(list.contains { $0["source"] as? String == "grace-outlook" })
        #expect(events.result.stderr.contains("tether login ada-google"), "\(events.result.stderr)")

        let status = try await cli.json(["calendar", "sources", "--json"])
        let rows = try #require(status.object as? [[String: Any]])
        let row = try #require(rows.first { $0["name"] as? String == "ada-google" })
        #expect(row["state"] as? String == "needs-sign-in")
        #expect(row["stale"] as? Bool == true)
        #expect(row["account"] as? String == "a***@example.com")
        #expect(rows.first { $0["name"] as? String == "grace-outlook" }?["stale"] as? Bool == false)

        let flights = try await cli.run(["calendar", "flights", "--json"] + window)
        #expect(flights.status == 3)
        #expect(flights.stdout.contains("UA857"), "the cached flight is still found")
        try await cli.expectNoTokens(in: [events.result, status.result, flights], earlier: earlier)

        // Forgetting a connection removes its cached events; signing out alone keeps them.
        // Each source's cache is a header (`NAME.calendar-cache`) and files named after it.
        let cache = cli.home.appendingPathComponent("calendar-cache")
        func headers() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasSuffix(".calendar-cache") }
        }
        #expect(try headers().count == 2)
        #expect(try await cli.run(["logout", "grace-outlook"]).status == 0)
        #expect(try headers().count == 2)
        #expect(try await cli.run(["logout", "ada-google", "--forget"]).status == 0)
        let kept = try #require(try headers().first.map { String($0.dropLast(".calendar-cache".count)) })
        #expect(try headers().count == 1)
        let graceBase = Data("grace-outlook".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        #expect(kept == graceBase, "the Outlook source's cache is the one kept")
        let left = try FileManager.default.contentsOfDirectory(atPath: cache.path)
        #expect(left.allSatisfy { $0.hasPrefix(kept + ".") }, "nothing of the forgotten source is left: \(left)")

        // Forgetting every connection leaves no file that names one — not even an entry for a name that has neither
        // settings nor a record, as a connection removed by hand leaves.
        let statusFile = cli.home.appendingPathComponent("status.json")
        var entries =
            (try? Data(contentsOf: statusFile)).flatMap { try? JSONSerialization.jsonObject(with: $0) }
            as? [String: Any] ?? [:]
        entries["ghost"] = ["lastError": "The provider could not be reached", "at": "2026-11-01T00:00:00Z"]
        try JSONSerialization.data(withJSONObject: entries).write(to: statusFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: statusFile.path)
        #expect(try await cli.status().contains { $0["name"] as? String == "ghost" } == false)
        #expect(try await cli.run(["logout", "--all", "--forget"]).status == 0)
        #expect(try headers().isEmpty)
        for name in ["status.json", "calendar-status.json", "rejected-tokens.json"] {
            let path = cli.home.appendingPathComponent(name).path
            #expect(!FileManager.default.fileExists(atPath: path), "\(name) is left")
        }
    }

    @Test func aRateLimitOrAStoppedProviderExitsFourWithTheCachedEvents() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginCalendar("ada-google", api: "google").status == 0)
        let window = try await cli.window()
        #expect(try await cli.run(["calendar", "events", "--json"] + window).status == 0)

        // A Retry-After beyond what the client waits for ends the fetch of that source at once.
        await cli.provider.admin.rateLimitNext(5, requestsTo: .googleCalendar, retryAfterSeconds: 600)
        let limited = try await cli.json(["calendar", "events", "--json"] + window)
        #expect(limited.result.status == 4, "\(limited.result.stderr)")
        let source = try #require((limited.object as? [String: Any])?["sources"] as? [[String: Any]]).first
        #expect(source?["state"] as? String == "offline")
        #expect(source?["stale"] as? Bool == true)
        let cached = try #require((limited.object as? [String: Any])?["events"] as? [[String: Any]])
        #expect(cached.contains { $0["title"] as? String == "Dentist" })
        await cli.provider.admin.rateLimitNext(0, requestsTo: .googleCalendar)
        #expect(try await cli.run(["calendar", "events", "--json"] + window).status == 0)

        let tokens = try await cli.tokens()
        await cli.provider.stop()
        let offline = try await cli.json(["calendar", "events", "--json"] + window)
        #expect(offline.result.status == 4, "\(offline.result.stderr)")
        let stale = try #require((offline.object as? [String: Any])?["events"] as? [[String: Any]])
        #expect(stale.contains { $0["title"] as? String == "Dentist" })
        #expect(offline.result.stderr.contains("from the cache"), "\(offline.result.stderr)")
        let sources = try await cli.json(["calendar", "sources", "--json"])
        let row = try #require((sources.object as? [[String: Any]])?.first)
        #expect(row["state"] as? String == "offline")
        #expect(row["stale"] as? Bool == true)
        #expect(row["error"] as? String != nil)
        for result in [limited.result, offline.result, sources.result] {
            for token in tokens { #expect(!result.stdout.contains(token) && !result.stderr.contains(token)) }
        }
        #expect(!tokens.isEmpty)
    }

    @Test func calendarAPIURLsMustBeHTTPSOrLoopback() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let base = ["login", "dev", "--issuer", cli.issuer, "--device", "--calendar", "google"]
        let plain = try await cli.run(base + ["--calendar-api", "http://calendar.example.com/calendar/v3"])
        #expect(plain.status == 2)
        #expect(plain.stderr.contains("must use https"), "\(plain.stderr)")
        let garbage = try await cli.run(base + ["--calendar-api", "not a url"])
        #expect(garbage.status == 2)
        #expect(garbage.stderr.contains("is not a URL"))
        let alone = try await cli.run(["login", "dev", "--device", "--calendar-api", "https://calendar.example.com"])
        #expect(alone.status == 2)
        #expect(alone.stderr.contains("--calendar-api needs --calendar"))
        #expect(try await cli.run(base.dropLast() + ["outlook"]).status == 2)
        #expect(await cli.provider.admin.counters().requests(to: .deviceAuthorization) == 0)
        // Loopback may be plain http.
        let loopback = try await cli.loginWithDeviceCode(
            base + ["--name", "local", "--calendar-api", "http://localhost:9/calendar/v3"]
        )
        #expect(loopback.status == 0, "\(loopback.stderr)")
    }

    @Test func anOldProfileWithoutCalendarFieldsStillLoads() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let file = cli.home.appendingPathComponent("connections.json")
        let settings = try String(contentsOf: file, encoding: .utf8)
        #expect(!settings.contains("calendar"), "a connection without --calendar wrote calendar fields")
        #expect(try await cli.status().first?["state"] as? String == "connected")
        let sources = try await cli.run(["calendar", "sources", "--json"])
        #expect(sources.status == 0)
        #expect(sources.trimmedOutput == "[\n\n]" || sources.trimmedOutput == "[]", "\(sources.stdout)")
        let events = try await cli.run(["calendar", "events"])
        #expect(events.status == 3)
        #expect(events.stderr.contains("No connection is a calendar source"))

        // Signing in again to the old connection with --calendar adds the fields.
        let again = try await cli.loginWithDeviceCode([
            "login", "dev", "--issuer", cli.issuer, "--device", "--calendar", "google", "--scope",
            "openid email offline_access https://www.googleapis.com/auth/calendar.readonly",
        ])
        #expect(again.status == 0, "\(again.stderr)")
        let rows = try #require(try await cli.json(["calendar", "sources", "--json"]).object as? [[String: Any]])
        #expect(rows.first?["name"] as? String == "dev")
        #expect(try await cli.run(["calendar", "events"] + (try await cli.window())).status == 0)
    }
}

extension CLI {
    /// `tether login dev --device --calendar API` as `user`, with the API's read scope.
    func loginCalendar(_ name: String, api: String, as user: String = "ada") async throws -> Result {
        let scope = api == "google" ? "https://www.googleapis.com/auth/calendar.readonly" : "Calendars.Read"
        let password = user == "grace" ? "hopper" : "lovelace"
        return try await loginWithDeviceCode(
            [
                "login", "dev", "--issuer", issuer, "--device", "--name", name, "--calendar", api, "--scope",
                "openid email profile offline_access \(scope)",
            ],
            as: FormBrowser(username: user, password: password)
        )
    }

    /// `--from` and `--to` around the seeded events: the provider's calendar epoch and 17 days after.
    func window() async throws -> [String] {
        let epoch = await provider.admin.calendarEpoch()
        let formatter = ISO8601DateFormatter()
        return ["--from", formatter.string(from: epoch), "--to", formatter.string(from: epoch + 17 * 86_400)]
    }

    /// Runs a command and decodes its standard output as JSON.
    func json(_ arguments: [String]) async throws -> (result: Result, object: Any) {
        let result = try await run(arguments)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return (result, object)
    }

    /// The current access token of every connection.
    func tokens() async throws -> [String] {
        var tokens: [String] = []
        for row in try await status() {
            guard let name = row["name"] as? String else { continue }
            let token = try await run(["token", name])
            if token.status == 0 { tokens.append(token.trimmedOutput) }
        }
        return tokens
    }

    /// Expects that no current access token (nor any of `earlier`) appears in what the commands printed.
    func expectNoTokens(in results: [Result], earlier: [String] = []) async throws {
        let tokens = try await tokens() + earlier
        #expect(!tokens.isEmpty)
        for result in results {
            for token in tokens {
                #expect(!result.stdout.contains(token), "a token on standard output")
                #expect(!result.stderr.contains(token), "a token on standard error")
            }
        }
    }
}
