import Foundation
import Testing
import Tether
import TetherCalendar
import TetherDevProvider
import TetherTesting

/// The calendar clients and connections over real HTTP on 127.0.0.1, against the development provider's Google
/// Calendar v3 and Microsoft Graph endpoints.
@Suite(.timeLimit(.minutes(3)))
struct CalendarEndToEndTests {
    /// ada on Google Calendar, grace on Outlook (Graph).
    struct TwoAccounts {
        let ada: Session
        let grace: Session
        let google: GoogleCalendarClient
        let graph: GraphCalendarClient
    }

    static func twoAccounts(_ harness: CalendarHarness) async throws -> TwoAccounts {
        let ada = try await harness.signInAda()
        let grace = try await harness.signInGrace()
        return TwoAccounts(ada: ada, grace: grace, google: harness.google(ada), graph: harness.graph(grace))
    }

    static func titles(_ events: [CalendarEvent], from source: CalendarSourceID) -> Set<String> {
        Set(events.filter { $0.source == source }.map(\.title))
    }

    static func primaryEvents(_ outcome: CalendarSyncOutcome) -> [CalendarEvent] {
        outcome.state.calendars.values.first { $0.info.isPrimary }.map { Array($0.events.values) } ?? []
    }

    @Test func twoAccountsOnTwoAPIsLoadSideBySide() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let accounts = try await Self.twoAccounts(harness)
        let connections = try harness.connections(accounts.google, accounts.graph)
        let result = await connections.fetch(window: await harness.window())
        #expect(result.isComplete)
        #expect(result.sources.map(\.status.kind) == [.connected, .connected])
        #expect(result.sources.allSatisfy { $0.skipped.isEmpty && $0.error == nil && !$0.isStale })
        let ada = Self.titles(result.events, from: "ada-google")
        let grace = Self.titles(result.events, from: "grace-outlook")
        #expect(ada.isSuperset(of: ["Dentist", "Team offsite", "Weekly sync", "UA 857 SFO → PEK"]))
        #expect(grace.isSuperset(of: ["Weekly review", "BA 283 London Heathrow to Los Angeles"]))
        #expect(!ada.contains("Lunch with Charles"))
        let dentist = try #require(result.events.first { $0.title == "Dentist" })
        #expect(dentist.status == .tentative)
        #expect(dentist.timeZone?.identifier == "America/Los_Angeles")
        let offsite = try #require(result.events.first { $0.title == "Team offsite" })
        #expect(offsite.isAllDay)
        let weekly = try #require(result.events.first { $0.title == "Weekly review" })
        #expect(weekly.seriesID != nil)
        #expect(weekly.timeZone != nil)
        // Ordered by start across both sources.
        let starts = result.events.map { $0.interval(in: utc).start }
        #expect(starts == starts.sorted())
    }

    @Test func aTokenThatExpiresMidSyncIsRefreshedSilentlyOnce() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let ada = try await harness.signInAda()
        let primary = try #require(await harness.admin.calendarIDs(ofUser: "ada").first)
        try await harness.admin.generateCalendarEvents(1_000, user: "ada", calendar: primary)
        let counting = CountingTransport(harness.transport)
        // Between the second and third page the hour runs out.
        let clock = harness.clock
        counting.before(eventsRequest: 3) { clock.advance(by: .seconds(3_700)) }
        let refreshesBefore = await harness.running.admin.counters()[.refreshes]

        let outcome = try await harness.google(ada, transport: counting).sync(window: await harness.window())

        #expect(await harness.running.admin.counters()[.refreshes] - refreshesBefore == 1)
        #expect(Self.primaryEvents(outcome).filter { $0.title.hasPrefix("Generated event") }.count == 1_000)
        #expect(await ada.status.kind == .connected)
        #expect(outcome.skipped.isEmpty)
    }

    @Test func aRevokedGrantNeedsSignInWhileTheOtherStillLoadsAndItsCachedEventsStayStale() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let accounts = try await Self.twoAccounts(harness)
        let connections = try harness.connections(accounts.google, accounts.graph)
        let window = await harness.window()
        let first = await connections.fetch(window: window)
        let firstSync = harness.clock.date
        let adaEvents = first.events.filter { $0.source == "ada-google" }
        #expect(!adaEvents.isEmpty)

        harness.clock.advance(by: .seconds(600))
        #expect(await harness.admin.revokeGrants(ofUser: "ada") > 0)
        let second = await connections.fetch(window: window)

        let google = try #require(second.report(for: "ada-google"))
        #expect(google.status.kind == .needsSignIn)
        #expect(google.status.account?.displayIdentifier == "ada@example.com")
        #expect(google.error == .needsSignIn)
        #expect(google.served == .cache)
        #expect(google.isStale)
        #expect(google.lastSuccessfulSync == firstSync)
        #expect(google.failingSince == harness.clock.date)
        #expect(second.events.filter { $0.source == "ada-google" } == adaEvents)
        let graph = try #require(second.report(for: "grace-outlook"))
        #expect(graph.served == .fresh)
        #expect(graph.status.kind == .connected)
        #expect(!second.events.filter { $0.source == "grace-outlook" }.isEmpty)
    }

    @Test func aRevokedGraphGrantIsRefusedWithoutAnErrorAttributeAndStillEndsInNeedsSignIn() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let grace = try await harness.signInGrace()
        let graph = harness.graph(grace)
        _ = try await graph.sync(window: await harness.window())
        _ = await harness.admin.revokeGrants(ofUser: "grace")
        let error = await #expect(throws: CalendarError.self) { try await graph.sync(window: await harness.window()) }
        #expect(error == .needsSignIn)
        #expect(error?.accountHint?.displayIdentifier == "grace@example.com")
        #expect(await grace.status.kind == .needsSignIn)
    }

    @Test func pagingOverFiveThousandEventsOnBothAPIs() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let accounts = try await Self.twoAccounts(harness)
        let epoch = await harness.admin.calendarEpoch()
        for user in ["ada", "grace"] {
            let primary = try #require(await harness.admin.calendarIDs(ofUser: user).first)
            try await harness.admin.generateCalendarEvents(5_000, user: user, calendar: primary, start: epoch)
        }
        // 5,000 events 30 minutes apart: 105 days.
        let window = DateInterval(start: epoch, duration: 110 * 86_400)
        let counting = CountingTransport(harness.transport)

        let google = try await harness.google(accounts.ada, transport: counting).sync(window: window)
        let googleGenerated = Self.primaryEvents(google).filter { $0.title.hasPrefix("Generated event") }
        #expect(googleGenerated.count == 5_000)
        #expect(Set(googleGenerated.map(\.id)).count == 5_000)
        #expect(counting.count(containing: "/events") >= 21)

        let graph = try await harness.graph(accounts.grace, transport: counting).sync(window: window)
        let graphGenerated = Self.primaryEvents(graph).filter { $0.title.hasPrefix("Generated event") }
        #expect(graphGenerated.count == 5_000)
        #expect(counting.count(containing: "calendarView/delta") >= 50)
        #expect(google.skipped.isEmpty && graph.skipped.isEmpty)
    }

    @Test func aSyncTokenRoundTripWithChangesAndDeletions() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let google = harness.google(try await harness.signInAda())
        let (first, primary, added) = try await harness.syncAndAdd(google, user: "ada", days: 5, zone: "Europe/Paris")
        let before = Self.primaryEvents(first)
        let dentist = try #require(before.first { $0.title == "Dentist" })
        let offsite = try #require(before.first { $0.title == "Team offsite" })
        try await harness.admin.updateCalendarEvent(id: dentist.id) { $0.summary = "Dentist (moved)" }
        try await harness.admin.deleteCalendarEvent(id: offsite.id)

        let second = try await harness.syncAgain(google, from: first, primaryID: primary.info.id, added: added)
        #expect(second.removed == 1)
        let after = Self.primaryEvents(second)
        #expect(after.first { $0.id == dentist.id }?.title == "Dentist (moved)")
        #expect(!after.contains { $0.id == offsite.id })
        #expect(after.count == before.count)
    }

    @Test func aDeltaLinkRoundTripWithChangesAndDeletions() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let graph = harness.graph(try await harness.signInGrace())
        let (first, primary, added) = try await harness.syncAndAdd(graph, user: "grace", days: 3, zone: "Europe/Berlin")
        #expect(primary.cursor?.contains("deltatoken") == true)
        let before = Self.primaryEvents(first)
        let flight = try #require(before.first { $0.title.hasPrefix("BA 283") })
        let review = try #require(before.first { $0.title == "Weekly review" })
        try await harness.admin.updateCalendarEvent(id: flight.id) { $0.location = "Terminal 5" }
        try await harness.admin.deleteCalendarEvent(id: review.seriesID ?? review.id)

        let second = try await harness.syncAgain(graph, from: first, primaryID: primary.info.id, added: added)
        #expect(second.removed >= 1)
        let after = Self.primaryEvents(second)
        #expect(after.first { $0.id == flight.id }?.location == "Terminal 5")
        #expect(!after.contains { $0.title == "Weekly review" })
    }

    @Test func anExpiredSyncTokenOrDeltaLinkIsDroppedAndEverythingReadAgain() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let accounts = try await Self.twoAccounts(harness)
        let window = await harness.window()
        let google = try await accounts.google.sync(window: window)
        let graph = try await accounts.graph.sync(window: window)
        await harness.admin.invalidateCalendarSyncTokens()

        let googleAgain = try await accounts.google.sync(from: google.state, window: window, calendars: nil)
        let graphAgain = try await accounts.graph.sync(from: graph.state, window: window, calendars: nil)

        for (first, again) in [(google, googleAgain), (graph, graphAgain)] {
            let primary = try #require(again.state.calendars.values.first { $0.info.isPrimary })
            #expect(again.modes[primary.info.id] == .resynced)
            #expect(Set(Self.primaryEvents(again).map(\.id)) == Set(Self.primaryEvents(first).map(\.id)))
            #expect(primary.cursor != first.state.calendars[primary.info.id]?.cursor)
        }
        // The low-level call says what happened.
        let token = try #require(google.state.calendars.values.first { $0.info.isPrimary })
        await #expect(throws: CalendarError.syncStateExpired) {
            _ = try await accounts.google.changes(calendarID: token.info.id, syncToken: token.cursor)
        }
    }

    @Test func anOfflineLaunchIsServedFromTheCacheAtOnceMarkedStale() async throws {
        let harness = try await CalendarHarness.start()
        let accounts = try await Self.twoAccounts(harness)
        let window = await harness.window()
        let first = try await harness.connections(accounts.google, accounts.graph)
            .fetch(window: window)
        #expect(first.isComplete)
        let synced = harness.clock.date
        await harness.running.stop()
        defer { try? FileManager.default.removeItem(at: harness.directory) }
        harness.clock.advance(by: .seconds(3_600 * 5))

        // A new launch: sessions restored from the vault, no network.
        let ada = harness.session("ada-google")
        let grace = harness.session("grace-outlook")
        let connections = try harness.connections(harness.google(ada), harness.graph(grace))
        let cached = await connections.loadCached(window: window)
        #expect(cached.events == first.events)
        #expect(cached.sources.allSatisfy { $0.served == .cache && $0.isStale && $0.lastSuccessfulSync == synced })

        // The expired tokens cannot be refreshed: the sessions back off on the clock, the sources stay offline.
        _ = try await drive(harness.clock) {
            _ = await ada.restore()
            _ = await grace.restore()
        }
        let (fetched, _) = try await drive(harness.clock) { await connections.fetch(window: window) }
        #expect(fetched.events == first.events)
        #expect(fetched.sources.allSatisfy { $0.served == .cache && $0.lastSuccessfulSync == synced })
        #expect(fetched.sources.allSatisfy { $0.status.kind == .offline })
        #expect(fetched.sources.allSatisfy { $0.error?.isTransient == true })
    }

    @Test func rateLimitsAreWaitedOutOnBothAPIs() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let accounts = try await Self.twoAccounts(harness)
        let window = await harness.window()

        await harness.admin.rateLimitNext(
            2,
            requestsTo: .googleCalendar,
            retryAfterSeconds: 5,
            status: 403,
            reason: "userRateLimitExceeded"
        )
        let google = accounts.google
        // Google's 403 carries no Retry-After: exponential backoff from 1 second.
        let (googleOutcome, googleWaited) = try await drive(harness.clock) { try await google.sync(window: window) }
        #expect(!Self.primaryEvents(googleOutcome).isEmpty)
        #expect(googleWaited >= .seconds(3))

        await harness.admin.rateLimitNext(2, requestsTo: .googleCalendar, retryAfterSeconds: 5)
        let (_, googleTold) = try await drive(harness.clock) { try await google.sync(window: window) }
        #expect(googleTold >= .seconds(10))

        await harness.admin.rateLimitNext(2, requestsTo: .graphCalendar, retryAfterSeconds: 3)
        let graph = accounts.graph
        let (graphOutcome, graphWaited) = try await drive(harness.clock) { try await graph.sync(window: window) }
        #expect(!Self.primaryEvents(graphOutcome).isEmpty)
        #expect(graphWaited >= .seconds(6))
        #expect(await harness.admin.counters()[.injectedRateLimits] == 6)
    }

    @Test func aRateLimitThatPersistsIsReportedAsOfflineNotForbidden() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let accounts = try await Self.twoAccounts(harness)
        await harness.admin.rateLimitNext(50, requestsTo: .googleCalendar, retryAfterSeconds: 2, status: 403)
        let connections = CalendarConnections(
            sources: [accounts.google, accounts.graph],
            timeZone: utc,
            dateSource: harness.clock.dateSource,
            logger: silent
        )
        let window = await harness.window()
        let (result, _) = try await drive(harness.clock) { await connections.fetch(window: window) }
        let google = try #require(result.report(for: "ada-google"))
        #expect(google.error == .rateLimited)
        #expect(google.error?.providerReason == "rateLimitExceeded")
        #expect(google.status.kind == .offline)
        // Bounded: the default policy makes 4 attempts.
        #expect(await harness.admin.counters()[.injectedRateLimits] == 4)
        #expect(result.report(for: "grace-outlook")?.served == .fresh)
    }

    @Test func withoutTheCalendarScopeTheSourceSaysCalendarAccessDenied() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let ada = try await harness.signIn("ada", password: "lovelace", scopes: [], id: "ada-google")
        let grace = try await harness.signIn("grace", password: "hopper", scopes: ["User.Read"], id: "grace-outlook")
        let result = await CalendarConnections(
            sources: [harness.google(ada), harness.graph(grace)],
            timeZone: utc,
            logger: silent
        )
        .fetch(window: await harness.window())
        #expect(result.sources.map(\.status.kind) == [.accessDenied, .accessDenied])
        #expect(result.sources.map { $0.error?.httpStatus } == [403, 403])
        #expect(result.sources.map { $0.error?.providerReason } == ["insufficientPermissions", "ErrorAccessDenied"])
        #expect(await ada.status.kind == .connected)
    }
}

extension CalendarHarness {
    /// Syncs `source` in full (its primary calendar must come back `full`), then adds an event "Added later" for
    /// `user` on the provider, `days` after the calendar epoch, in `zone`.
    func syncAndAdd(
        _ source: any CalendarSource,
        user: String,
        days: Double,
        zone: String
    ) async throws -> (
        first: CalendarSyncOutcome, primary: CalendarSyncState.Calendar, added: DevProvider.CalendarEvent
    ) {
        let first = try await source.sync(window: await window())
        let primary = try #require(first.state.calendars.values.first { $0.info.isPrimary })
        #expect(first.modes[primary.info.id] == .full)
        let start = await admin.calendarEpoch().addingTimeInterval(days * 86_400)
        let added = try await admin.addCalendarEvent(
            DevProvider.CalendarEvent(
                summary: "Added later",
                start: .dateTime(start, timeZone: zone),
                end: .dateTime(start.addingTimeInterval(3_600), timeZone: zone)
            ),
            user: user
        )
        return (first, primary, added)
    }

    /// Syncs `source` again from `first`'s cursor: the primary calendar comes back `incremental`, with `added`.
    func syncAgain(
        _ source: any CalendarSource,
        from first: CalendarSyncOutcome,
        primaryID: String,
        added: DevProvider.CalendarEvent
    ) async throws -> CalendarSyncOutcome {
        let second = try await source.sync(from: first.state, window: await window(), calendars: nil)
        #expect(second.modes[primaryID] == .incremental)
        #expect(CalendarEndToEndTests.primaryEvents(second).contains { $0.id == added.id && $0.title == "Added later" })
        return second
    }
}
