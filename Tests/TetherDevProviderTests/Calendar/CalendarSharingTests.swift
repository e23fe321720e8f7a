import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import TetherDevProvider

/// Several calendars per user: a calendar shared read-only, one removed or no longer shared, and each calendar's
/// own delta rounds and sync tokens.
@Suite(.timeLimit(.minutes(3)))
struct CalendarSharingTests {
    /// grace's list with a calendar shared with her read-only and not shown by default; its ID.
    static func shareTeam(_ provider: DevProvider) async throws -> String {
        let team = await provider.admin.addCalendar(
            named: "Team",
            user: "grace",
            timeZone: "Europe/Berlin",
            sharedBy: "lead@example.com",
            canEdit: false,
            selected: false
        )
        let start = Date(timeIntervalSince1970: 1_799_661_600)  // 2027-01-11T10:00:00Z, seeded day 0
        try await provider.admin.addCalendarEvent(
            DevProvider.CalendarEvent(
                summary: "Team planning",
                start: .dateTime(start, timeZone: "Europe/Berlin"),
                end: .dateTime(start.addingTimeInterval(3_600), timeZone: "Europe/Berlin")
            ),
            user: "grace",
            calendar: team
        )
        return team
    }

    static let window = query([
        ("startDateTime", "2027-01-11T00:00:00Z"), ("endDateTime", "2027-01-25T00:00:00Z"),
    ])

    @Test func aSharedReadOnlyCalendarIsListedAsTheVendorsDescribeIt() async throws {
        let (provider, _) = makeProvider()
        let team = try await Self.shareTeam(provider)
        let token = try await calendarToken(provider, user: "grace")
        try await provider.application().test(.router) { client in
            let google = try await client.api("/calendar/v3/users/me/calendarList", token: token).items()
            #expect(strings(google, "summary") == ["grace@example.com", "Conferences", "Team"])
            let entry = try #require(google.first { $0["id"] as? String == team })
            #expect(entry["accessRole"] as? String == "reader")
            // `selected` is left out when false, as Google leaves out false optional flags.
            #expect(entry["selected"] == nil)
            #expect(entry["primary"] == nil)
            #expect(entry["backgroundColor"] as? String == "#9a9cff")
            #expect(google.first?["selected"] as? Bool == true)
            #expect(google.first?["accessRole"] as? String == "owner")

            let graph = try await client.api("/v1.0/me/calendars", token: token).items("value")
            let calendar = try #require(graph.first { $0["id"] as? String == team })
            #expect(calendar["name"] as? String == "Team")
            #expect(calendar["canEdit"] as? Bool == false)
            #expect(calendar["canShare"] as? Bool == false)
            #expect(calendar[path: "owner", "address"] as? String == "lead@example.com")
            #expect(calendar["isDefaultCalendar"] as? Bool == false)
            #expect(graph.first?[path: "owner", "address"] as? String == "grace@example.com")
        }
    }

    @Test func eachCalendarHasItsOwnDeltaRounds() async throws {
        let (provider, _) = makeProvider()
        let team = try await Self.shareTeam(provider)
        let token = try await calendarToken(provider, user: "grace")
        try await provider.application().test(.router) { client in
            let path = "/v1.0/me/calendars/\(percentEncoded(team))/calendarView/delta"
            let first = try await client.api(path + Self.window, token: token)
            #expect(first.status == .ok, "\(first.text)")
            #expect(strings(try first.items("value"), "subject") == ["Team planning"])
            let deltaLink = try #require(try first.json()["@odata.deltaLink"] as? String)
            #expect(deltaLink.contains("/me/calendars/"))
            #expect(deltaLink.contains("calendarView/delta") && deltaLink.contains("deltatoken"))

            let start = Date(timeIntervalSince1970: 1_799_748_000)  // 2027-01-12T10:00:00Z
            try await provider.admin.addCalendarEvent(
                DevProvider.CalendarEvent(
                    summary: "Team retro",
                    start: .dateTime(start, timeZone: "UTC"),
                    end: .dateTime(start.addingTimeInterval(1_800), timeZone: "UTC")
                ),
                user: "grace",
                calendar: team
            )
            let next = try await client.api(deltaLink, token: token)
            #expect(strings(try next.items("value"), "subject") == ["Team retro"])

            // The default calendar's round does not see the shared calendar's events, and its link is refused
            // on the other calendar's path.
            let primary = try await client.api("/v1.0/me/calendarView/delta" + Self.window, token: token)
            #expect(!strings(try primary.items("value"), "subject").contains("Team retro"))
            let primaryLink = try #require(try primary.json()["@odata.deltaLink"] as? String)
            let token2 = try #require(primaryLink.split(separator: "=").last.map(String.init))
            let crossed = try await client.api(path + "?%24deltatoken=" + token2, token: token)
            #expect(crossed.status.code == 410)
            #expect(try crossed.errorReason() == "syncStateNotFound")
        }
    }

    @Test func invalidatingOneCalendarsTokensLeavesTheOthersValid() async throws {
        let (provider, _) = makeProvider()
        let team = try await Self.shareTeam(provider)
        let token = try await calendarToken(provider, user: "grace")
        try await provider.application().test(.router) { client in
            func syncToken(_ calendar: String) async throws -> String {
                let page = try await client.api(
                    "/calendar/v3/calendars/\(percentEncoded(calendar))/events?singleEvents=true",
                    token: token
                )
                return try #require(try page.json()["nextSyncToken"] as? String)
            }
            let teamToken = try await syncToken(team)
            let primaryToken = try await syncToken("grace@example.com")
            try await provider.admin.invalidateCalendarSyncTokens(ofUser: "grace", calendar: team)

            let refused = try await client.api(
                "/calendar/v3/calendars/\(percentEncoded(team))/events" + query([("syncToken", teamToken)]),
                token: token
            )
            #expect(refused.status.code == 410)
            #expect(try refused.errorReason() == "fullSyncRequired")
            let kept = try await client.api(
                "/calendar/v3/calendars/grace%40example.com/events" + query([("syncToken", primaryToken)]),
                token: token
            )
            #expect(kept.status == .ok, "\(kept.text)")
        }
        await #expect(throws: (any Error).self) {
            try await provider.admin.invalidateCalendarSyncTokens(ofUser: "grace", calendar: "nope")
        }
    }

    @Test func aRemovedCalendarIsGoneFromBothAPIs() async throws {
        let (provider, _) = makeProvider()
        let team = try await Self.shareTeam(provider)
        let token = try await calendarToken(provider, user: "grace")
        try await provider.admin.removeCalendar(team, user: "grace")
        try await provider.application().test(.router) { client in
            let google = try await client.api("/calendar/v3/users/me/calendarList", token: token).items()
            #expect(!strings(google, "id").contains(team))
            let events = try await client.api("/calendar/v3/calendars/\(percentEncoded(team))/events", token: token)
            #expect(events.status.code == 410)
            #expect(try events.errorReason() == "deleted")
            let unknown = try await client.api("/calendar/v3/calendars/nobody%40example.com/events", token: token)
            #expect(unknown.status.code == 404)

            let graph = try await client.api("/v1.0/me/calendars", token: token).items("value")
            #expect(!strings(graph, "id").contains(team))
            let view = try await client.api(
                "/v1.0/me/calendars/\(percentEncoded(team))/calendarView" + Self.window,
                token: token
            )
            #expect(view.status.code == 404)
            #expect(try view.errorReason() == "ErrorItemNotFound")
        }
        // Its events went with it; the primary calendar cannot be removed.
        #expect(await provider.admin.calendarIDs(ofUser: "grace").count == 2)
        await #expect(throws: (any Error).self) {
            try await provider.admin.removeCalendar("grace@example.com", user: "grace")
        }
    }

    @Test func anUnsharedCalendarLeavesGooglesListButStaysInGraphsAndIsForbidden() async throws {
        let (provider, _) = makeProvider()
        let team = try await Self.shareTeam(provider)
        let token = try await calendarToken(provider, user: "grace")
        try await provider.admin.unshareCalendar(team, user: "grace")
        try await provider.application().test(.router) { client in
            let google = try await client.api("/calendar/v3/users/me/calendarList", token: token).items()
            #expect(!strings(google, "id").contains(team))
            let events = try await client.api("/calendar/v3/calendars/\(percentEncoded(team))/events", token: token)
            #expect(events.status.code == 404)
            #expect(try events.errorReason() == "notFound")

            let graph = try await client.api("/v1.0/me/calendars", token: token).items("value")
            #expect(strings(graph, "id").contains(team))
            for suffix in ["calendarView", "calendarView/delta"] {
                let view = try await client.api(
                    "/v1.0/me/calendars/\(percentEncoded(team))/\(suffix)" + Self.window,
                    token: token
                )
                #expect(view.status.code == 403)
                #expect(try view.errorReason() == "ErrorAccessDenied")
            }
        }
        // Only a calendar shared with the user can stop being shared.
        await #expect(throws: (any Error).self) {
            try await provider.admin.unshareCalendar("grace@example.com", user: "grace")
        }
    }

    @Test func calendarsAreSharedRemovedAndUnsharedOverHTTP() async throws {
        let (provider, _) = makeProvider()
        let key = provider.configuration.adminKey
        try await provider.application().test(.router) { client in
            let added = try await client.adminRequest(
                "/admin/calendar/calendars",
                method: .post,
                json: #"{"username": "grace", "name": "Team", "shared_by": "lead@example.com", "can_edit": false,"#
                    + #" "selected": false, "time_zone": "Europe/Berlin"}"#,
                adminKey: key
            )
            #expect(added.status == .created, "\(added.text)")
            let id = try #require(try added.json()["id"] as? String)
            let overview = try await client.get("/admin/calendar", headers: [HTTPField.Name("X-Tether-Admin")!: key])
            let grace = try #require(try overview.json()[path: "users", "grace"] as? [[String: Any]])
            let team = try #require(grace.first { $0["id"] as? String == id })
            #expect(team["sharedBy"] as? String == "lead@example.com")
            #expect(team["selected"] as? Bool == false)
            #expect(team["canEdit"] as? Bool == false)

            let invalidated = try await client.adminRequest(
                "/admin/calendar/invalidate-sync",
                method: .post,
                json: #"{"username": "grace", "calendar": "\#(id)"}"#,
                adminKey: key
            )
            #expect(invalidated.status == .ok)
            let unshared = try await client.adminRequest(
                "/admin/calendar/calendars/unshare",
                method: .post,
                json: #"{"username": "grace", "calendar": "\#(id)"}"#,
                adminKey: key
            )
            #expect(unshared.status == .ok)
            let removed = try await client.adminRequest(
                "/admin/calendar/calendars/remove",
                method: .post,
                json: #"{"username": "grace", "calendar": "\#(id)"}"#,
                adminKey: key
            )
            #expect(removed.status == .ok)
            #expect(!(await provider.admin.calendarIDs(ofUser: "grace")).contains(id))

            // Bad requests: an unknown user, calendar or time zone, and a missing field.
            for (path, body) in [
                ("/admin/calendar/calendars", #"{"username": "nobody", "name": "X"}"#),
                ("/admin/calendar/calendars/remove", #"{"username": "grace", "calendar": "\#(id)"}"#),
                ("/admin/calendar/calendars/unshare", #"{"username": "grace", "calendar": "grace@example.com"}"#),
                ("/admin/calendar/invalidate-sync", #"{"username": "grace", "calendar": "nope"}"#),
            ] {
                let refused = try await client.adminRequest(path, method: .post, json: body, adminKey: key)
                #expect(refused.status == .notFound, "\(path): \(refused.text)")
            }
            let badZone = try await client.adminRequest(
                "/admin/calendar/calendars",
                method: .post,
                json: #"{"username": "grace", "name": "X", "time_zone": "Mars/Olympus"}"#,
                adminKey: key
            )
            #expect(badZone.status == .badRequest)
            let missing = try await client.adminRequest(
                "/admin/calendar/calendars",
                method: .post,
                json: #"{"username": "grace"}"#,
                adminKey: key
            )
            #expect(missing.status == .badRequest)
            #expect(await provider.admin.calendarIDs(ofUser: "grace").count == 2)
        }
    }
}
