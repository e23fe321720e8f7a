import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import TetherDevProvider

@Suite(.timeLimit(.minutes(3)))
struct GraphCalendarTests {
    /// Three weeks from the seeded epoch.
    private let window = [("startDateTime", "2027-01-11T00:00:00Z"), ("endDateTime", "2027-02-01T00:00:00Z")]
    private var calendarView: String { "/v1.0/me/calendarView" + query(self.window) }

    /// Follows `@odata.nextLink` to the end; returns the items and the last page.
    private func collect(
        _ client: some TestClientProtocol,
        _ uri: String,
        token: String,
        prefer: [String] = []
    ) async throws -> (items: [[String: Any]], pages: Int, last: [String: Any]) {
        var items: [[String: Any]] = []
        var next: String? = uri
        var pages = 0
        var last: [String: Any] = [:]
        while let link = next {
            let response = try await client.api(link, token: token, prefer: prefer)
            #expect(response.status == .ok)
            last = try response.json()
            items += try response.items("value")
            next = last["@odata.nextLink"] as? String
            pages += 1
        }
        return (items, pages, last)
    }

    /// A first delta round over the window, from no delta link; returns what `collect` returns.
    private func initialDelta(
        _ client: some TestClientProtocol,
        token: String,
        prefer: [String] = []
    ) async throws -> (items: [[String: Any]], pages: Int, last: [String: Any]) {
        try await collect(client, "/v1.0/me/calendarView/delta" + query(window), token: token, prefer: prefer)
    }

    @Test func calendarsArePagedWithNextLink() async throws {
        try await withCalendarClient { _, client, token in
            let (calendars, pages, _) = try await self.collect(client, "/v1.0/me/calendars?$top=3", token: token)
            #expect(pages == 2)
            #expect(calendars.compactMap { $0["name"] as? String } == ["Calendar", "Work", "Travel", "Holidays"])
            #expect(calendars.first?["isDefaultCalendar"] as? Bool == true)
            #expect(calendars.first?[path: "owner", "address"] as? String == "ada@example.com")
        }
    }

    @Test func calendarViewPagesHonourMaxPageSize() async throws {
        try await withCalendarClient { _, client, token in
            let first = try await client.api(self.calendarView, token: token, prefer: ["odata.maxpagesize=2"])
            #expect(first.headers[HTTPField.Name("Preference-Applied")!] == "odata.maxpagesize=2")
            #expect(try first.items("value").count == 2)
            let paged = try await self.collect(client, self.calendarView, token: token, prefer: ["odata.maxpagesize=2"])
            let whole = try await client.api(self.calendarView + "&$top=1000", token: token).items("value")
            // Two weekly syncs (the third is cancelled), dentist, offsite, the cancelled lunch, UA 857.
            #expect(whole.count == 6)
            #expect(paged.pages == 3)
            #expect(paged.items.compactMap { $0["id"] as? String } == whole.compactMap { $0["id"] as? String })
            let top = try await self.collect(client, self.calendarView + "&$top=2", token: token)
            #expect(top.items.count == whole.count)
            let starts = whole.compactMap { $0[path: "start", "dateTime"] as? String }
            #expect(starts == starts.sorted())
        }
    }

    @Test func generatedEventsPageThroughAPerCalendarView() async throws {
        let (provider, _) = makeProvider()
        let token = try await calendarToken(provider)
        let work = try #require(await provider.admin.calendarIDs(ofUser: "ada").dropFirst().first)
        try await provider.admin.generateCalendarEvents(450, user: "ada", calendar: work, interval: .seconds(3600))
        try await provider.application().test(.router) { client in
            let uri =
                "/v1.0/me/calendars/\(percentEncoded(work))/calendarView"
                + query([("startDateTime", "2027-01-11T00:00:00"), ("endDateTime", "2027-03-01T00:00:00")])
            let all = try await self.collect(client, uri, token: token, prefer: ["odata.maxpagesize=100"])
            #expect(all.pages == 5)
            let generated = all.items.filter { ($0["subject"] as? String)?.hasPrefix("Generated event") == true }
            #expect(generated.count == 450)
            #expect(Set(all.items.compactMap { $0["id"] as? String }).count == all.items.count)
        }
    }

    @Test func timesFollowThePreferredZoneAndAllDayDatesNeverShift() async throws {
        try await withCalendarClient { _, client, token in
            func event(_ subject: String, prefer: [String]) async throws -> [String: Any] {
                let items = try await client.api(self.calendarView + "&$top=100", token: token, prefer: prefer)
                    .items("value")
                return try #require(items.first { $0["subject"] as? String == subject }, "\(subject) missing")
            }
            let utc = try await event("Dentist", prefer: [#"outlook.timezone="UTC""#])
            #expect(
                utc["start"] as? [String: String] == ["dateTime": "2027-01-13T23:00:00.0000000", "timeZone": "UTC"]
            )
            #expect(utc["originalStartTimeZone"] as? String == "America/Los_Angeles")
            #expect(utc["showAs"] as? String == "tentative")
            let berlin = try await event("Dentist", prefer: [#"outlook.timezone="Europe/Berlin""#])
            #expect(
                berlin["start"] as? [String: String]
                    == ["dateTime": "2027-01-14T00:00:00.0000000", "timeZone": "Europe/Berlin"]
            )
            let plain = try await event("Dentist", prefer: [])
            #expect(plain[path: "start", "timeZone"] as? String == "UTC")

            for prefer in [[#"outlook.timezone="UTC""#], [#"outlook.timezone="Pacific Standard Time""#]] {
                let offsite = try await event("Team offsite", prefer: prefer)
                #expect(offsite["isAllDay"] as? Bool == true)
                #expect(offsite[path: "start", "dateTime"] as? String == "2027-01-14T00:00:00.0000000")
                #expect(offsite[path: "end", "dateTime"] as? String == "2027-01-16T00:00:00.0000000")
            }
        }
    }

    @Test func seriesExpandIntoOccurrencesAndExceptions() async throws {
        try await withCalendarClient { _, client, token in
            let items = try await client.api(
                "/v1.0/me/calendarView"
                    + query([("startDateTime", "2027-01-11T00:00:00Z"), ("endDateTime", "2027-03-08T00:00:00Z")])
                    + "&$top=200",
                token: token
            ).items("value")
            let sync = items.filter { ($0["subject"] as? String)?.hasPrefix("Weekly sync") == true }
            #expect(sync.count == 7)
            let master = try #require(sync.first?["seriesMasterId"] as? String)
            #expect(sync.allSatisfy { $0["seriesMasterId"] as? String == master })
            #expect(sync.filter { $0["type"] as? String == "exception" }.count == 1)
            #expect(sync.first { $0["type"] as? String == "exception" }?["subject"] as? String == "Weekly sync (moved)")
            #expect(!items.contains { $0["type"] as? String == "seriesMaster" })
            // iCalUId differs per occurrence.
            #expect(Set(sync.compactMap { $0["iCalUId"] as? String }).count == 7)
            let lunch = try #require(items.first { $0["subject"] as? String == "Lunch with Charles" })
            #expect(lunch["isCancelled"] as? Bool == true)
            #expect(lunch["type"] as? String == "singleInstance")
            #expect(lunch["seriesMasterId"] is NSNull)
        }
    }

    @Test func bodyIsHTMLUnlessTextIsPreferred() async throws {
        let (provider, _) = makeProvider()
        let token = try await calendarToken(provider)
        let work = try #require(await provider.admin.calendarIDs(ofUser: "ada").dropFirst().first)
        try await provider.application().test(.router) { client in
            let uri = "/v1.0/me/calendars/\(percentEncoded(work))/calendarView" + query(self.window) + "&$top=50"
            func flight(_ prefer: [String]) async throws -> [String: Any] {
                let items = try await client.api(uri, token: token, prefer: prefer).items("value")
                return try #require(items.first { $0["subject"] as? String == "Flight to Berlin (LH 455)" })
            }
            let html = try await flight([])
            #expect(html[path: "body", "contentType"] as? String == "html")
            #expect((html[path: "body", "content"] as? String)?.contains("Booking reference: QX7K2P<br>") == true)
            #expect((html["bodyPreview"] as? String)?.hasPrefix("Lufthansa") == true)
            #expect(html[path: "location", "displayName"] as? String == "SFO International Terminal, Gate A12")
            #expect(html[path: "organizer", "emailAddress", "address"] as? String == "ada@example.com")
            #expect((html["webLink"] as? String)?.hasPrefix(Fixture.issuer.absoluteString) == true)
            let text = try await flight([#"outlook.body-content-type="text""#])
            #expect(text[path: "body", "contentType"] as? String == "text")
            #expect((text[path: "body", "content"] as? String)?.contains("Flight: LH 455\n") == true)
        }
    }

    @Test func deltaRoundTripReportsChangesAndRemovals() async throws {
        try await withCalendarClient { provider, client, token in
            let initial = try await self.initialDelta(client, token: token, prefer: ["odata.maxpagesize=2"])
            #expect(initial.pages > 1)
            let deltaLink = try #require(initial.last["@odata.deltaLink"] as? String)
            #expect(deltaLink.contains("$deltatoken="))
            let view = try await client.api(self.calendarView + "&$top=100", token: token).items("value")
            #expect(initial.items.compactMap { $0["id"] as? String } == view.compactMap { $0["id"] as? String })
            let dentist = try #require(initial.items.first { $0["subject"] as? String == "Dentist" }?["id"] as? String)
            let offsite = try #require(
                initial.items.first { $0["subject"] as? String == "Team offsite" }?["id"] as? String
            )

            try await provider.admin.updateCalendarEvent(id: dentist) { $0.location = "2 Main St, Palo Alto" }
            try await provider.admin.deleteCalendarEvent(id: offsite)
            let changes = try await self.collect(client, deltaLink, token: token)
            #expect(changes.items.count == 2)
            let moved = try #require(changes.items.first { $0["id"] as? String == dentist })
            #expect(moved[path: "location", "displayName"] as? String == "2 Main St, Palo Alto")
            let removed = try #require(changes.items.first { $0["id"] as? String == offsite })
            #expect(removed["@removed"] as? [String: String] == ["reason": "deleted"])

            let nextLink = try #require(changes.last["@odata.deltaLink"] as? String)
            let quiet = try await self.collect(client, nextLink, token: token)
            #expect(quiet.items.isEmpty)
        }
    }

    @Test func invalidatedDeltaLinkAnswers410SyncStateNotFound() async throws {
        try await withCalendarClient { provider, client, token in
            let initial = try await self.initialDelta(client, token: token)
            let deltaLink = try #require(initial.last["@odata.deltaLink"] as? String)
            await provider.admin.invalidateCalendarSyncTokens(ofUser: "ada")
            let gone = try await client.api(deltaLink, token: token)
            #expect(gone.status == .gone)
            #expect(try gone.errorReason() == "syncStateNotFound")
            let restart = try #require(gone.headers[.location])
            #expect(restart.contains("/v1.0/me/calendarView/delta?startDateTime=2027-01-11T00%3A00%3A00Z"))
            let again = try await self.collect(client, restart, token: token)
            #expect(again.last["@odata.deltaLink"] != nil)
        }
    }

    @Test func throttlingAnswers429And503WithRetryAfter() async throws {
        try await withCalendarClient { provider, client, token in
            await provider.admin.rateLimitNext(1, requestsTo: .graphCalendar, retryAfterSeconds: 4)
            let tooMany = try await client.api(self.calendarView, token: token)
            #expect(tooMany.status == .tooManyRequests)
            #expect(tooMany.headers[.retryAfter] == "4")
            #expect(try tooMany.errorReason() == "TooManyRequests")
            let set = try await client.admin(
                "/admin/faults",
                json: #"{"endpoint":"graph_calendar","server_errors":1,"status":503,"retry_after":2}"#,
                adminKey: provider.configuration.adminKey
            )
            #expect(set.status == .ok)
            let unavailable = try await client.api(self.calendarView, token: token)
            #expect(unavailable.status == .serviceUnavailable)
            #expect(unavailable.headers[.retryAfter] == "2")
            #expect(try unavailable.errorReason() == "serviceNotAvailable")
            #expect(try await client.api(self.calendarView, token: token).status == .ok)
        }
    }

    @Test func withoutCalendarsReadAnswers403AccessDenied() async throws {
        let (provider, _) = makeProvider()
        let userRead = try await calendarToken(provider, scopes: ["openid", "User.Read"])
        let resourceForm = try await calendarToken(provider, scopes: ["https://graph.microsoft.com/Calendars.Read"])
        try await provider.application().test(.router) { client in
            let denied = try await client.api(self.calendarView, token: userRead)
            #expect(denied.status == .forbidden)
            #expect(try denied.errorReason() == "ErrorAccessDenied")
            #expect(try await client.api(self.calendarView, token: resourceForm).status == .ok)
        }
    }

    @Test func badTokensAnswer401WithGraphsChallenge() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            for token in [nil, "not-a-token"] {
                let response = try await client.api(self.calendarView, token: token)
                #expect(response.status == .unauthorized)
                #expect(
                    response.headers[.wwwAuthenticate]
                        == #"Bearer realm="", authorization_uri="http://127.0.0.1:9999/authorize", client_id="00000003-0000-0000-c000-000000000000""#
                )
                #expect(try response.errorReason() == "InvalidAuthenticationToken")
            }
        }
    }

    @Test func calendarViewNeedsItsTimeWindow() async throws {
        try await withCalendarClient { _, client, token in
            let response = try await client.api("/v1.0/me/calendarView", token: token)
            #expect(response.status == .badRequest)
            #expect(try response.errorReason() == "ErrorInvalidParameter")
            let unknown = try await client.api(
                "/v1.0/me/calendars/nope/calendarView" + query(self.window),
                token: token
            )
            #expect(unknown.status == .notFound)
        }
    }
}
