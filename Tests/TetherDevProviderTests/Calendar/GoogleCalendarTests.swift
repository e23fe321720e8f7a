import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import TetherDevProvider

@Suite(.timeLimit(.minutes(3)))
struct GoogleCalendarTests {
    private let events = "/calendar/v3/calendars/primary/events"

    @Test func calendarListPagesWithNextPageToken() async throws {
        try await withCalendarClient { _, client, token in
            let first = try await client.api("/calendar/v3/users/me/calendarList?maxResults=3", token: token)
            #expect(first.status == .ok)
            let firstItems = try first.items()
            #expect(firstItems.count == 3)
            #expect(firstItems[0]["id"] as? String == "ada@example.com")
            #expect(firstItems[0]["primary"] as? Bool == true)
            #expect(firstItems[0]["timeZone"] as? String == "America/Los_Angeles")
            let pageToken = try #require(try first.json()["nextPageToken"] as? String)
            let second = try await client.api(
                "/calendar/v3/users/me/calendarList" + query([("maxResults", "3"), ("pageToken", pageToken)]),
                token: token
            )
            let secondItems = try second.items()
            #expect(secondItems.map { $0["summary"] as? String } == ["Holidays"])
            #expect(secondItems[0]["accessRole"] as? String == "reader")
            #expect(try second.json()["nextPageToken"] == nil)
        }
    }

    @Test func eachUserHasTheirOwnCalendars() async throws {
        let (provider, _) = makeProvider()
        let grace = try await calendarToken(provider, user: "grace")
        try await provider.application().test(.router) { client in
            let list = try await client.api("/calendar/v3/users/me/calendarList", token: grace)
            #expect(try strings(list.items(), "id").first == "grace@example.com")
            let titles = try strings(
                await client.api(self.events + "?singleEvents=true", token: grace).items(),
                "summary"
            )
            #expect(titles.contains("Flug nach Tokio (LH 716)"))
            #expect(!titles.contains("UA 857 SFO → PEK"))
            let foreign = try await client.api("/calendar/v3/calendars/ada%40example.com/events", token: grace)
            #expect(foreign.status == .notFound)
            #expect(try foreign.errorReason() == "notFound")
        }
    }

    @Test func eventsPageThroughEveryEventAndEndWithASyncToken() async throws {
        let (provider, _) = makeProvider()
        let token = try await calendarToken(provider)
        let travel = try #require(await provider.admin.calendarIDs(ofUser: "ada").dropFirst(2).first)
        try await provider.admin.generateCalendarEvents(600, user: "ada", calendar: travel)
        try await provider.application().test(.router) { client in
            var ids: [String] = []
            var pageToken: String?
            var pages = 0
            var syncToken: String?
            repeat {
                var items = [("singleEvents", "true"), ("orderBy", "startTime"), ("maxResults", "250")]
                if let pageToken { items.append(("pageToken", pageToken)) }
                let response = try await client.api(
                    "/calendar/v3/calendars/\(percentEncoded(travel))/events" + query(items),
                    token: token
                )
                #expect(response.status == .ok)
                let json = try response.json()
                let page = try response.items()
                #expect(page.count <= 250)
                ids += page.compactMap { $0["id"] as? String }
                pageToken = json["nextPageToken"] as? String
                syncToken = json["nextSyncToken"] as? String
                // Only the last page carries nextSyncToken.
                #expect((pageToken == nil) == (syncToken != nil))
                pages += 1
            } while pageToken != nil
            #expect(pages == 3)
            #expect(ids.count == 603)
            #expect(Set(ids).count == 603)
        }
    }

    @Test func singleEventsExpandsSeriesIntoInstancesInStartOrder() async throws {
        try await withCalendarClient { _, client, token in
            let response = try await client.api(self.events + "?singleEvents=true&orderBy=startTime", token: token)
            let items = try response.items()
            let sync = items.filter { ($0["summary"] as? String)?.hasPrefix("Weekly sync") == true }
            // Eight occurrences, one cancelled (hidden without showDeleted), one moved and renamed.
            #expect(sync.count == 7)
            let series = try #require(sync.first?["recurringEventId"] as? String)
            #expect(sync.allSatisfy { $0["recurringEventId"] as? String == series })
            #expect(sync.first?["id"] as? String == "\(series)_20270111T170000Z")
            #expect(sync.first?[path: "originalStartTime", "dateTime"] as? String == "2027-01-11T09:00:00-08:00")
            let moved = try #require(sync.first { $0["summary"] as? String == "Weekly sync (moved)" })
            #expect(moved[path: "start", "dateTime"] as? String == "2027-02-08T10:00:00-08:00")
            #expect(moved[path: "originalStartTime", "dateTime"] as? String == "2027-02-08T09:00:00-08:00")
            #expect(!items.contains { $0["recurrence"] != nil })
            let starts = items.compactMap { item -> String? in
                (item[path: "start", "dateTime"] ?? item[path: "start", "date"]) as? String
            }
            #expect(starts.count == items.count)

            let masters = try await client.api(self.events, token: token).items()
            let master = try #require(masters.first { $0["id"] as? String == series })
            #expect(master["recurrence"] as? [String] == ["RRULE:FREQ=WEEKLY;COUNT=8"])
            // Without singleEvents the exceptions come separately, the cancelled one too.
            let exceptions = masters.filter { $0["recurringEventId"] as? String == series }
            #expect(exceptions.count == 2)
            #expect(exceptions.contains { $0["status"] as? String == "cancelled" })

            let unordered = try await client.api(self.events + "?orderBy=startTime", token: token)
            #expect(unordered.status == .badRequest)
        }
    }

    @Test func allDayEventsUseDatesAndTimedEventsKeepTheirTimeZones() async throws {
        let (provider, _) = makeProvider()
        let token = try await calendarToken(provider)
        let calendars = await provider.admin.calendarIDs(ofUser: "ada")
        try await provider.application().test(.router) { client in
            var all: [[String: Any]] = []
            for calendar in calendars {
                let path = "/calendar/v3/calendars/\(percentEncoded(calendar))/events?singleEvents=true"
                all += try await client.api(path, token: token).items()
            }
            func event(_ summary: String) throws -> [String: Any] {
                try #require(all.first { $0["summary"] as? String == summary }, "\(summary) missing")
            }
            let offsite = try event("Team offsite")
            #expect(offsite["start"] as? [String: String] == ["date": "2027-01-14"])
            #expect(offsite["end"] as? [String: String] == ["date": "2027-01-16"])
            let review = try event("Design review")
            #expect(
                review["start"] as? [String: String]
                    == ["dateTime": "2027-01-12T10:00:00+01:00", "timeZone": "Europe/Berlin"]
            )
            let flight = try event("UA 857 SFO → PEK")
            #expect(flight[path: "start", "dateTime"] as? String == "2027-01-20T10:35:00-08:00")
            #expect(flight[path: "end", "dateTime"] as? String == "2027-01-21T14:40:00+08:00")
            #expect(flight[path: "end", "timeZone"] as? String == "Asia/Shanghai")
            #expect(
                try event("Hotel check-in, Shinjuku")[path: "start", "dateTime"] as? String
                    == "2027-01-26T15:00:00+09:00"
            )
            #expect(
                try event("Conference call with the Kyoto office")[path: "start", "dateTime"] as? String
                    == "2027-01-26T08:00:00Z"
            )
            let lufthansa = try event("Flight to Berlin (LH 455)")
            #expect((lufthansa["description"] as? String)?.contains("Booking reference: QX7K2P") == true)
            #expect(lufthansa[path: "organizer", "email"] != nil)
            #expect((lufthansa["htmlLink"] as? String)?.hasPrefix(Fixture.issuer.absoluteString) == true)
            #expect((lufthansa["iCalUID"] as? String)?.isEmpty == false)
            #expect(lufthansa["updated"] as? String == "2027-01-15T08:00:00.000Z")
            #expect(try event("Company holiday")["start"] as? [String: String] == ["date": "2027-01-15"])
        }
    }

    @Test func timeWindowBoundsEndsByTimeMinAndStartsByTimeMax() async throws {
        try await withCalendarClient { _, client, token in
            // Dentist: 2027-01-13 23:00–24:00 UTC. Lunch (cancelled) and the weekly sync on Jan 11 fall outside.
            let items = try await client.api(
                self.events
                    + query([
                        ("singleEvents", "true"), ("timeMin", "2027-01-13T23:00:00Z"),
                        ("timeMax", "2027-01-14T00:00:00+00:00"),
                    ]),
                token: token
            ).items()
            #expect(items.compactMap { $0["summary"] as? String } == ["Dentist"])
            #expect(items.first?["status"] as? String == "tentative")
        }
    }

    @Test func cancelledEventsAppearOnlyWithShowDeleted() async throws {
        try await withCalendarClient { _, client, token in
            let hidden = try await client.api(self.events + "?singleEvents=true", token: token).items()
            #expect(!hidden.contains { $0["status"] as? String == "cancelled" })
            let shown = try await client.api(self.events + "?singleEvents=true&showDeleted=true", token: token).items()
            let cancelled = shown.filter { $0["status"] as? String == "cancelled" }
            #expect(cancelled.contains { $0["summary"] as? String == "Lunch with Charles" })
            // The cancelled occurrence of the weekly sync, in its minimal form.
            #expect(cancelled.contains { $0["recurringEventId"] != nil && $0["summary"] == nil })
        }
    }

    @Test func syncTokenRoundTripReportsChangesAndDeletions() async throws {
        try await withCalendarClient { provider, client, token in
            let full = try await client.api(self.events + "?singleEvents=true", token: token)
            let fullItems = try full.items()
            let syncToken = try #require(try full.json()["nextSyncToken"] as? String)
            let dentist = try #require(fullItems.first { $0["summary"] as? String == "Dentist" }?["id"] as? String)
            let offsite = try #require(fullItems.first { $0["summary"] as? String == "Team offsite" }?["id"] as? String)

            // Nothing changed: an empty page and a token.
            let unchanged = try await client.api(
                self.events + query([("singleEvents", "true"), ("syncToken", syncToken)]),
                token: token
            )
            #expect(unchanged.status == .ok)
            #expect(try unchanged.items().isEmpty)

            try await provider.admin.updateCalendarEvent(id: dentist) { $0.summary = "Dentist (rescheduled)" }
            let changed = try await client.adminRequest(
                "/admin/calendar/events/\(offsite)",
                method: .delete,
                adminKey: provider.configuration.adminKey
            )
            #expect(changed.status == .ok)

            let incremental = try await client.api(
                self.events + query([("singleEvents", "true"), ("syncToken", syncToken)]),
                token: token
            )
            #expect(incremental.status == .ok)
            let items = try incremental.items()
            #expect(items.count == 2)
            let renamed = try #require(items.first { $0["id"] as? String == dentist })
            #expect(renamed["summary"] as? String == "Dentist (rescheduled)")
            let deleted = try #require(items.first { $0["id"] as? String == offsite })
            #expect(deleted["status"] as? String == "cancelled")
            let nextToken = try #require(try incremental.json()["nextSyncToken"] as? String)
            #expect(nextToken != syncToken)

            let quiet = try await client.api(
                self.events + query([("singleEvents", "true"), ("syncToken", nextToken)]),
                token: token
            )
            #expect(try quiet.items().isEmpty)
        }
    }

    @Test func syncTokenRefusesParametersGoogleRefuses() async throws {
        try await withCalendarClient { _, client, token in
            let full = try await client.api(self.events, token: token)
            let syncToken = try #require(try full.json()["nextSyncToken"] as? String)
            for extra in [("timeMin", "2027-01-01T00:00:00Z"), ("orderBy", "updated"), ("showDeleted", "false")] {
                let response = try await client.api(
                    self.events + query([("syncToken", syncToken), extra]),
                    token: token
                )
                #expect(response.status == .badRequest, "\(extra.0)")
                #expect(try response.errorReason() == "invalid")
            }
            let allowed = try await client.api(
                self.events + query([("syncToken", syncToken), ("showDeleted", "true"), ("maxResults", "10")]),
                token: token
            )
            #expect(allowed.status == .ok)
        }
    }

    @Test func invalidatedSyncTokenAnswers410FullSyncRequired() async throws {
        try await withCalendarClient { provider, client, token in
            let full = try await client.api(self.events, token: token)
            let syncToken = try #require(try full.json()["nextSyncToken"] as? String)
            let invalidate = try await client.adminRequest(
                "/admin/calendar/invalidate-sync",
                method: .post,
                json: #"{"username":"ada"}"#,
                adminKey: provider.configuration.adminKey
            )
            #expect(invalidate.status == .ok)
            let gone = try await client.api(self.events + query([("syncToken", syncToken)]), token: token)
            #expect(gone.status == .gone)
            #expect(try gone.errorReason() == "fullSyncRequired")
            #expect(try gone.json()[path: "error", "code"] as? Int == 410)
            let garbage = try await client.api(self.events + "?syncToken=nonsense", token: token)
            #expect(garbage.status == .gone)
            // A full sync gets a working token again.
            let again = try await client.api(self.events, token: token)
            let fresh = try #require(try again.json()["nextSyncToken"] as? String)
            #expect(try await client.api(self.events + query([("syncToken", fresh)]), token: token).status == .ok)
        }
    }

    @Test func rateLimitFaultsAnswerInGooglesShape() async throws {
        try await withCalendarClient { provider, client, token in
            let set = try await client.admin(
                "/admin/faults",
                json:
                    #"{"endpoint":"google_calendar","rate_limits":1,"rate_limit_status":403,"rate_limit_reason":"userRateLimitExceeded"}"#,
                adminKey: provider.configuration.adminKey
            )
            #expect(set.status == .ok)
            let forbidden = try await client.api(self.events, token: token)
            #expect(forbidden.status == .forbidden)
            #expect(try forbidden.errorReason() == "userRateLimitExceeded")
            let errors = try #require(try forbidden.json()[path: "error", "errors"] as? [[String: Any]])
            #expect(errors.first?["domain"] as? String == "usageLimits")

            await provider.admin.rateLimitNext(1, requestsTo: .googleCalendar, retryAfterSeconds: 3)
            let tooMany = try await client.api(self.events, token: token)
            #expect(tooMany.status == .tooManyRequests)
            #expect(tooMany.headers[.retryAfter] == "3")
            #expect(try tooMany.errorReason() == "rateLimitExceeded")

            await provider.admin.failNext(1, requestsTo: .googleCalendar, status: 503)
            let unavailable = try await client.api(self.events, token: token)
            #expect(unavailable.status == .serviceUnavailable)
            #expect(try unavailable.errorReason() == "backendError")

            #expect(try await client.api(self.events, token: token).status == .ok)
            #expect(await provider.admin.counters().responses(from: .googleCalendar, status: 200) == 1)
        }
    }

    @Test func withoutTheCalendarScopeAnswers403InsufficientPermissions() async throws {
        let (provider, _) = makeProvider()
        let openid = try await calendarToken(provider, scopes: ["openid", "email"])
        let eventsOnly = try await calendarToken(
            provider,
            scopes: ["https://www.googleapis.com/auth/calendar.events.readonly"]
        )
        try await provider.application().test(.router) { client in
            let response = try await client.api(self.events, token: openid)
            #expect(response.status == .forbidden)
            #expect(try response.errorReason() == "insufficientPermissions")
            let challenge = try #require(response.headers[.wwwAuthenticate])
            #expect(challenge.hasPrefix(#"Bearer realm="http://127.0.0.1:9999/", error=insufficient_scope, scope=""#))
            #expect(challenge.contains("https://www.googleapis.com/auth/calendar.readonly"))
            // The events scope reads events but not the calendar list.
            #expect(try await client.api(self.events, token: eventsOnly).status == .ok)
            #expect(try await client.api("/calendar/v3/users/me/calendarList", token: eventsOnly).status == .forbidden)
        }
    }

    @Test func badMissingAndExpiredTokensAnswer401() async throws {
        let (provider, clock) = makeProvider()
        let token = try await calendarToken(provider)
        try await provider.application().test(.router) { client in
            let missing = try await client.api(self.events, token: nil)
            #expect(missing.status == .unauthorized)
            #expect(missing.headers[.wwwAuthenticate] == #"Bearer realm="http://127.0.0.1:9999/""#)
            #expect(try missing.errorReason() == "required")
            let bad = try await client.api(self.events, token: "not-a-token")
            #expect(bad.status == .unauthorized)
            #expect(bad.headers[.wwwAuthenticate] == #"Bearer realm="http://127.0.0.1:9999/", error="invalid_token""#)
            #expect(try bad.errorReason() == "authError")
            #expect(try bad.json()[path: "error", "status"] as? String == "UNAUTHENTICATED")
            clock.advance(by: 3601)
            let expired = try await client.api(self.events, token: token)
            #expect(expired.status == .unauthorized)
            await provider.admin.revokeGrants(ofUser: "ada")
            #expect(try await client.api(self.events, token: token).status == .unauthorized)
        }
    }

    @Test func theDevelopmentClientMayRequestTheCalendarScope() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn(scope: "openid offline_access \(CalendarFixture.googleScope)")
            #expect((tokens["scope"] as? String)?.contains(CalendarFixture.googleScope) == true)
            let accessToken = try #require(tokens["access_token"] as? String)
            #expect(try await client.api("/calendar/v3/users/me/calendarList", token: accessToken).status == .ok)
        }
    }
}
