import Foundation
import HTTPTypes
import Testing
import Tether
import TetherCalendar
import TetherDevProvider

/// Choosing calendars over real HTTP on 127.0.0.1: grace has three calendars — her own, "Conferences", and "Team",
/// shared with her read-only and not shown by default — on Google Calendar and on Outlook.
@Suite(.timeLimit(.minutes(3)))
struct CalendarSelectionEndToEndTests {
    struct Grace {
        let google: GoogleCalendarClient
        let graph: GraphCalendarClient
        let team: String
        let primary = "grace@example.com"
    }

    /// Shares "Team" with grace (one event on day 0) and signs her in to both APIs.
    static func grace(_ harness: CalendarHarness, transport: (any HTTPTransport)? = nil) async throws -> Grace {
        let team = try await share("Team", with: "grace", harness, event: "Team planning")
        let google = try await harness.signIn(
            "grace",
            password: "hopper",
            scopes: [CalendarHarness.googleScope],
            id: "grace-google"
        )
        let graph = try await harness.signInGrace()
        return Grace(
            google: harness.google(google, transport: transport),
            graph: harness.graph(graph, transport: transport),
            team: team
        )
    }

    /// Adds a calendar shared with `user` read-only, not shown by default, with one event on day 0.
    static func share(
        _ name: String,
        with user: String,
        _ harness: CalendarHarness,
        event title: String
    ) async throws -> String {
        let calendar = await harness.admin.addCalendar(
            named: name,
            user: user,
            timeZone: "Europe/Berlin",
            sharedBy: "lead@example.com",
            canEdit: false,
            selected: false
        )
        let start = await harness.admin.calendarEpoch().addingTimeInterval(10 * 3_600)
        try await harness.admin.addCalendarEvent(
            DevProvider.CalendarEvent(
                summary: title,
                start: .dateTime(start, timeZone: "Europe/Berlin"),
                end: .dateTime(start.addingTimeInterval(3_600), timeZone: "Europe/Berlin")
            ),
            user: user,
            calendar: calendar
        )
        return calendar
    }

    static func titles(_ result: CalendarFetchResult, _ source: CalendarSourceID) -> Set<String> {
        Set(result.events.filter { $0.source == source }.map(\.title))
    }

    @Test func everyCalendarIsListedAsTheProviderDescribesIt() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let grace = try await Self.grace(harness)

        let google = try await grace.google.calendars()
        #expect(google.map(\.name) == ["grace@example.com", "Conferences", "Team"])
        let googleTeam = try #require(google.first { $0.id == grace.team })
        #expect(googleTeam.accessRole == "reader")
        #expect(googleTeam.canEdit == false)
        #expect(googleTeam.isSelectedByDefault == false)
        #expect(googleTeam.color == "#9a9cff")
        #expect(google[0].isPrimary && google[0].accessRole == "owner" && google[0].canEdit == true)
        #expect(google[0].timeZone == "Europe/Berlin" && googleTeam.timeZone == "Europe/Berlin")
        #expect(google.first { $0.name == "Conferences" }?.timeZone == "Asia/Tokyo")

        let graph = try await grace.graph.calendars()
        #expect(graph.map(\.name) == ["Calendar", "Conferences", "Team"])
        let graphTeam = try #require(graph.first { $0.id == grace.team })
        #expect(graphTeam.canEdit == false)
        #expect(graphTeam.accessRole == nil)
        #expect(graphTeam.isSelectedByDefault == nil)
        #expect(graph.filter(\.isPrimary).map(\.id) == [grace.primary])
        #expect(graph.allSatisfy { $0.timeZone == nil }, "Graph's calendars name no zone")
    }

    /// A source's report carries its main calendar's zone: fresh, from the cache in another process's
    /// `CalendarConnections`, and not when the main calendar is not read or the API names no zone.
    @Test func theReportCarriesTheMainCalendarsTimeZone() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let grace = try await Self.grace(harness)
        let connections = try harness.connections(grace.google, grace.graph)
        let window = await harness.window()
        let fresh = await connections.fetch(window: window)
        #expect(fresh.isComplete)
        #expect(fresh.report(for: "grace-google")?.timeZone?.identifier == "Europe/Berlin")
        #expect(fresh.report(for: "grace-outlook")?.timeZone == nil)
        let synced = await connections.sync(window: window)
        #expect(synced.first { $0.source == "grace-google" }?.timeZone?.identifier == "Europe/Berlin")

        let later = try harness.connections(grace.google, grace.graph)
        let cached = await later.loadCached(window: window)
        #expect(cached.report(for: "grace-google")?.timeZone?.identifier == "Europe/Berlin")

        // Only the team calendar (whose zone is not the person's) is read: no zone is claimed for home.
        try await connections.select(.calendars([grace.team]), for: "grace-google")
        let teamOnly = await connections.fetch(window: window)
        #expect(teamOnly.report(for: "grace-google")?.served == .fresh)
        #expect(teamOnly.report(for: "grace-google")?.timeZone == nil)
    }

    @Test func theDefaultsDifferAndAllReadsThreeCalendarsOnBothAPIsThenOnesAddedLater() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let grace = try await Self.grace(harness)
        let connections = try harness.connections(grace.google, grace.graph)
        let window = await harness.window(days: 21)

        // By default Google reads the primary and shown calendars, Graph the default calendar only.
        let first = await connections.fetch(window: window)
        #expect(first.isComplete)
        #expect(Self.titles(first, "grace-google").isSuperset(of: ["Weekly review", "YOW! Tokyo"]))
        #expect(!Self.titles(first, "grace-google").contains("Team planning"))
        #expect(Self.titles(first, "grace-outlook").contains("Weekly review"))
        #expect(Self.titles(first, "grace-outlook").isDisjoint(with: ["YOW! Tokyo", "Team planning"]))

        for source: CalendarSourceID in ["grace-google", "grace-outlook"] {
            try await connections.select(.all, for: source)
        }
        let all = await connections.fetch(window: window)
        #expect(all.isComplete)
        for source: CalendarSourceID in ["grace-google", "grace-outlook"] {
            #expect(Self.titles(all, source).isSuperset(of: ["Weekly review", "YOW! Tokyo", "Team planning"]))
            let modes = all.report(for: source)?.modes ?? [:]
            #expect(modes.count == 3)
            #expect(modes[grace.primary] != nil && modes[grace.team] == .full)
            #expect(all.report(for: source)?.status.kind == .connected)
        }
        let team = try #require(all.events.first { $0.title == "Team planning" && $0.source == "grace-outlook" })
        #expect(team.calendarID == grace.team)
        #expect(team.calendarName == "Team")

        // A calendar that appears later is read too.
        let later = try await Self.share("Later", with: "grace", harness, event: "Shared later")
        let again = await connections.fetch(window: window)
        for source: CalendarSourceID in ["grace-google", "grace-outlook"] {
            #expect(Self.titles(again, source).contains("Shared later"), "\(source)")
            #expect(again.report(for: source)?.modes[later] == .full)
            #expect(again.report(for: source)?.modes[grace.primary] == .incremental)
        }
    }

    @Test func aRemovedCalendarChosenByIdentifierIsReportedByNameWhileTheOthersLoad() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let grace = try await Self.grace(harness)
        let connections = try harness.connections(grace.google, grace.graph)
        let window = await harness.window()
        for source: CalendarSourceID in ["grace-google", "grace-outlook"] {
            try await connections.select(.calendars([grace.primary, grace.team]), for: source)
        }
        let before = await connections.fetch(window: window)
        #expect(Self.titles(before, "grace-google").contains("Team planning"))
        #expect(Self.titles(before, "grace-outlook").contains("Team planning"))

        try await harness.admin.removeCalendar(grace.team, user: "grace")
        for round in 1...2 {
            let after = await connections.fetch(window: window)
            for source: CalendarSourceID in ["grace-google", "grace-outlook"] {
                let report = try #require(after.report(for: source))
                #expect(report.served == .fresh, "round \(round)")
                #expect(report.unavailableCalendars.map(\.calendar.name) == ["Team"], "\(source), round \(round)")
                #expect(report.unavailableCalendars.first?.httpStatus == nil)
                guard case .calendarsUnavailable(let account, let gone) = report.status else {
                    Issue.record("\(source): \(report.status)")
                    continue
                }
                #expect(account?.displayIdentifier == "grace@example.com")
                #expect(gone.map(\.calendar.id) == [grace.team])
                #expect(!Self.titles(after, source).contains("Team planning"))
                #expect(Self.titles(after, source).contains("Weekly review"))
            }
            #expect(await connections.statuses().map(\.status.kind) == [.calendarsUnavailable, .calendarsUnavailable])
        }
        // Choosing again ends it.
        for source: CalendarSourceID in ["grace-google", "grace-outlook"] {
            try await connections.select(.calendars([grace.primary]), for: source)
        }
        let chosenAgain = await connections.fetch(window: window)
        #expect(chosenAgain.sources.allSatisfy { $0.unavailableCalendars.isEmpty && $0.status.kind == .connected })
    }

    @Test func underAllAnUnsharedCalendarIsReportedOnGoogleOnceAndOnGraphWhileItStaysListed() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let grace = try await Self.grace(harness)
        let connections = try harness.connections(grace.google, grace.graph)
        let window = await harness.window()
        for source: CalendarSourceID in ["grace-google", "grace-outlook"] {
            try await connections.select(.all, for: source)
        }
        _ = await connections.fetch(window: window)
        try await harness.admin.unshareCalendar(grace.team, user: "grace")

        let first = await connections.fetch(window: window)
        let google = try #require(first.report(for: "grace-google"))
        #expect(google.unavailableCalendars.map(\.calendar.name) == ["Team"])
        #expect(google.unavailableCalendars.first?.httpStatus == nil)
        let graph = try #require(first.report(for: "grace-outlook"))
        #expect(graph.unavailableCalendars.map(\.calendar.name) == ["Team"])
        #expect(graph.unavailableCalendars.first?.httpStatus == 403)
        #expect(graph.unavailableCalendars.first?.providerReason == "ErrorAccessDenied")
        #expect(first.sources.allSatisfy { $0.served == .fresh && $0.status.kind == .calendarsUnavailable })
        #expect(!first.events.contains { $0.title == "Team planning" })

        // Google's list no longer has it: every calendar is read, and there is nothing more to say. Graph's still
        // lists it and refuses it.
        let second = await connections.fetch(window: window)
        #expect(second.report(for: "grace-google")?.unavailableCalendars.isEmpty == true)
        #expect(second.report(for: "grace-google")?.status.kind == .connected)
        #expect(second.report(for: "grace-outlook")?.unavailableCalendars.map(\.httpStatus) == [403])
    }

    @Test func aCalendarGoneBetweenTheListAndItsEventsIsReportedWithTheProvidersAnswer() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let stepping = SteppingTransport(harness.transport)
        let grace = try await Self.grace(harness, transport: stepping)
        let travel = try await Self.share("Travel", with: "grace", harness, event: "Lisbon trip")
        let admin = harness.admin
        let window = await harness.window()
        // Deleted after the list was read, before its events are: Google 410 Gone, Graph 404.
        stepping.before(pathContaining: [Self.pathFragment(grace.team), "/events"]) {
            try await admin.removeCalendar(grace.team, user: "grace")
        }
        let google = try await grace.google.sync(from: CalendarSyncState(), window: window, selection: .all)
        #expect(google.unavailable.map(\.calendar.name) == ["Team"])
        #expect(google.unavailable.first?.httpStatus == 410)
        #expect(google.unavailable.first?.providerReason == "deleted")
        #expect(google.state.calendars[grace.team]?.events.isEmpty == true)
        #expect(google.state.allEvents.contains { $0.title == "Lisbon trip" })

        stepping.before(pathContaining: [Self.pathFragment(travel), "/calendarView"]) {
            try await admin.removeCalendar(travel, user: "grace")
        }
        let graph = try await grace.graph.sync(from: CalendarSyncState(), window: window, selection: .all)
        #expect(graph.unavailable.map(\.calendar.name) == ["Travel"])
        #expect(graph.unavailable.first?.httpStatus == 404)
        #expect(graph.unavailable.first?.providerReason == "ErrorItemNotFound")
        #expect(graph.state.allEvents.contains { $0.title == "Weekly review" })
        #expect(!graph.state.allEvents.contains { $0.title == "Lisbon trip" })
    }

    @Test func anExpiredCursorOfOneCalendarResyncsThatCalendarOnly() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let grace = try await Self.grace(harness)
        let window = await harness.window()
        let sources: [any CalendarSource] = [grace.google, grace.graph]
        for source in sources {
            let first = try await Self.sync(source, from: CalendarSyncState(), window: window)
            #expect(Set(first.modes.values) == [.full])
            #expect(first.state.calendars.values.allSatisfy { $0.cursor != nil })
            if source.kind == .microsoft {
                // Each calendar has its own delta link, on its own path.
                #expect(first.state.calendars[grace.team]?.cursor?.contains("/me/calendars/") == true)
                #expect(first.state.calendars[grace.primary]?.cursor?.contains("/me/calendarView/delta") == true)
            }
            try await harness.admin.invalidateCalendarSyncTokens(ofUser: "grace", calendar: grace.team)
            let second = try await Self.sync(source, from: first.state, window: window)
            #expect(second.modes[grace.team] == .resynced, "\(source.kind)")
            #expect(second.modes.filter { $0.key != grace.team }.values.allSatisfy { $0 == .incremental })
            #expect(second.modes.count == 3)
            let teamEvents = { (outcome: CalendarSyncOutcome) in
                Set(outcome.state.calendars[grace.team]?.events.keys ?? [:].keys)
            }
            #expect(teamEvents(second) == teamEvents(first))
            #expect(!teamEvents(second).isEmpty)
        }
    }

    static func sync(
        _ source: any CalendarSource,
        from state: CalendarSyncState,
        window: DateInterval
    ) async throws -> CalendarSyncOutcome {
        switch source {
        case let google as GoogleCalendarClient: try await google.sync(from: state, window: window, selection: .all)
        case let graph as GraphCalendarClient: try await graph.sync(from: state, window: window, selection: .all)
        default: throw MissingValue()
        }
    }

    /// The part of a calendar's identifier before `@`: as it appears in a request's path, percent-encoded or not.
    static func pathFragment(_ calendarID: String) -> String {
        String(calendarID.prefix { $0 != "@" })
    }
}

/// A transport that runs an asynchronous step once, just before the first request whose path contains every one of
/// some fragments.
final class SteppingTransport: HTTPTransport, @unchecked Sendable {
    let base: any HTTPTransport
    private let lock = NSLock()
    private var steps: [(fragments: [String], step: @Sendable () async throws -> Void)] = []

    init(_ base: any HTTPTransport) { self.base = base }

    func before(pathContaining fragments: [String], _ step: @escaping @Sendable () async throws -> Void) {
        lock.withLock { steps.append((fragments, step)) }
    }

    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let path = request.path ?? ""
        let step: (@Sendable () async throws -> Void)? = lock.withLock {
            let index = steps.firstIndex { $0.fragments.allSatisfy(path.contains) }
            return index.map { steps.remove(at: $0).step }
        }
        try await step?()
        return try await base.send(request, body: body)
    }
}
