import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import TetherDevProvider

@Suite(.timeLimit(.minutes(3)))
struct CalendarAdminTests {
    @Test func seededCalendarsAreRelativeToTheWeekTheProviderStartedIn() async throws {
        let (provider, _) = makeProvider()
        #expect(await provider.admin.calendarEpoch() == Date(timeIntervalSince1970: 1_799_625_600))
        #expect(await provider.admin.calendarIDs(ofUser: "ada").first == "ada@example.com")
        #expect(await provider.admin.calendarIDs(ofUser: "grace").first == "grace@example.com")
        try await provider.application().test(.router) { client in
            let overview = try await client.get(
                "/admin/calendar",
                headers: [HTTPField.Name("X-Tether-Admin")!: provider.configuration.adminKey]
            )
            #expect(overview.status == .ok)
            let json = try overview.json()
            #expect(json["epoch"] as? String == CalendarFixture.epoch)
            let ada = try #require(json[path: "users", "ada"] as? [[String: Any]])
            #expect(ada.compactMap { $0["name"] as? String } == ["Calendar", "Work", "Travel", "Holidays"])
            let refused = try await client.get("/admin/calendar")
            #expect(refused.status == .unauthorized)
        }
    }

    @Test func eventsAreAddedChangedAndDeletedOverHTTP() async throws {
        try await withCalendarClient { provider, client, token in
            let added = try await client.adminRequest(
                "/admin/calendar/events",
                method: .post,
                json: """
                    {"username": "ada", "calendar": "primary", "summary": "AF 7512 CDG → NCE",
                     "start": {"dateTime": "2027-01-19T07:00:00+01:00", "timeZone": "Europe/Paris"},
                     "end": "2027-01-19T08:25:00+01:00"}
                    """,
                adminKey: provider.configuration.adminKey
            )
            #expect(added.status == .created)
            let id = try #require(try added.json()["id"] as? String)
            let events = "/calendar/v3/calendars/primary/events?singleEvents=true"
            let listed = try await client.api(events, token: token).items()
            let flight = try #require(listed.first { $0["id"] as? String == id })
            #expect(
                flight["start"] as? [String: String]
                    == ["dateTime": "2027-01-19T07:00:00+01:00", "timeZone": "Europe/Paris"]
            )
            #expect(flight[path: "end", "timeZone"] as? String == "America/Los_Angeles")

            let changed = try await client.adminRequest(
                "/admin/calendar/events/\(id)",
                method: .patch,
                json: #"{"summary": "AF 7512 CDG → NCE (delayed)", "location": "CDG 2F"}"#,
                adminKey: provider.configuration.adminKey
            )
            #expect(changed.status == .ok)
            #expect(await provider.admin.calendarEvent(id: id)?.summary == "AF 7512 CDG → NCE (delayed)")

            #expect(
                try await client.adminRequest(
                    "/admin/calendar/events/\(id)",
                    method: .delete,
                    adminKey: provider.configuration.adminKey
                ).status == .ok
            )
            #expect(
                try await client.adminRequest(
                    "/admin/calendar/events/\(id)",
                    method: .delete,
                    adminKey: provider.configuration.adminKey
                ).status == .notFound
            )
            #expect(await provider.admin.calendarEvent(id: id) == nil)

            let allDay = try await client.adminRequest(
                "/admin/calendar/events",
                method: .post,
                json:
                    #"{"username": "ada", "summary": "Holiday", "start": {"date": "2027-01-22"}, "end": {"date": "2027-01-23"}}"#,
                adminKey: provider.configuration.adminKey
            )
            #expect(allDay.status == .created)
            let mixed = try await client.adminRequest(
                "/admin/calendar/events",
                method: .post,
                json:
                    #"{"username": "ada", "summary": "Bad", "start": {"date": "2027-01-22"}, "end": "2027-01-23T00:00:00Z"}"#,
                adminKey: provider.configuration.adminKey
            )
            #expect(mixed.status == .badRequest)
        }
    }

    @Test func generateAndResetOverHTTP() async throws {
        try await withCalendarClient { provider, client, token in
            let generated = try await client.adminRequest(
                "/admin/calendar/generate",
                method: .post,
                json: #"{"username": "grace", "count": 40, "start": "2027-03-01T00:00:00Z", "interval_minutes": 60}"#,
                adminKey: provider.configuration.adminKey
            )
            #expect(try generated.json()["generated"] as? Int == 40)
            let grace = try await calendarToken(provider, user: "grace")
            let window = query([("startDateTime", "2027-03-01T00:00:00Z"), ("endDateTime", "2027-03-03T00:00:00Z")])
            let view = try await client.api("/v1.0/me/calendarView" + window + "&$top=100", token: grace)
            #expect(try view.items("value").count == 40)

            let events = "/calendar/v3/calendars/primary/events"
            let syncToken = try #require(try await client.api(events, token: token).json()["nextSyncToken"] as? String)
            let reset = try await client.adminRequest(
                "/admin/calendar/reset",
                method: .post,
                json: #"{"epoch": "2026-03-02T00:00:00Z"}"#,
                adminKey: provider.configuration.adminKey
            )
            #expect(try reset.json()["epoch"] as? String == "2026-03-02T00:00:00Z")
            #expect(try await client.api(events + query([("syncToken", syncToken)]), token: token).status == .gone)
            let after = try await client.api("/v1.0/me/calendarView" + window + "&$top=100", token: grace)
            #expect(try after.items("value").isEmpty)
        }
    }

    @Test(arguments: [
        ("/admin/calendar/generate", #"{"username": "ada", "count": 1, "start": "tomorrow"}"#, "start"),
        ("/admin/calendar/reset", #"{"epoch": "2026-03-02"}"#, "epoch"),
    ])
    func instantsThatAreNotRFC3339AreRefusedByName(path: String, json: String, field: String) async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let response = try await client.adminRequest(
                path,
                method: .post,
                json: json,
                adminKey: provider.configuration.adminKey
            )
            #expect(response.status == .badRequest)
            #expect(try response.json()["error_description"] as? String == "\(field) must be an RFC 3339 instant.")
        }
    }

    @Test func everySeededUserHasFlightsAmongTheirEvents() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            var titles: [String: [String]] = [:]
            for user in ["ada", "grace"] {
                let token = try await calendarToken(provider, user: user)
                for calendar in await provider.admin.calendarIDs(ofUser: user) {
                    let items = try await client.api(
                        "/calendar/v3/calendars/\(percentEncoded(calendar))/events?singleEvents=true",
                        token: token
                    ).items()
                    titles[user, default: []] += items.compactMap { $0["summary"] as? String }
                }
            }
            #expect(
                Set(["UA 857 SFO → PEK", "Flight to Berlin (LH 455)", "NH 7 NRT → SFO"])
                    .isSubset(of: Set(titles["ada"] ?? []))
            )
            #expect(
                Set(["BA 283 London Heathrow to Los Angeles", "Flug nach Tokio (LH 716)"])
                    .isSubset(of: Set(titles["grace"] ?? []))
            )
        }
    }
}
