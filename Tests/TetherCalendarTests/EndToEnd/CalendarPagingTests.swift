import Foundation
import Testing
import Tether
import TetherCalendar

/// Listings that would never end — a page token or link given again, or new ones without end — stop with an API
/// error naming the source, and the other sources still load.
@Suite(.timeLimit(.minutes(2)))
struct CalendarPagingTests {
    /// The stand-ins end their listings after this many pages, so that a client without a limit fails these
    /// tests instead of running until it is killed.
    static let lastPage = 99

    static func googlePage(_ page: Int, next: String) -> String {
        let more = page < lastPage ? #""nextPageToken":"\#(next)""# : #""nextSyncToken":"s1""#
        return #"{"items":[\#(HostileCalendarServer.googleEvent("e\(page)"))],\#(more)}"#
    }

    static func graphPage(_ page: Int, host: String?, next: Int) -> String {
        let base = "http://\(host ?? "")/v1.0/me/calendarView/delta"
        let more =
            page < lastPage ? #""@odata.nextLink":"\#(base)?page=\#(next)""# : #""@odata.deltaLink":"\#(base)?d=1""#
        return #"{"value":[\#(HostileCalendarServer.graphEvent("e\(page)"))],\#(more)}"#
    }

    @Test func theDefaultLimitIsGenerousAndDocumented() {
        #expect(GoogleCalendarClient.Configuration().maximumPages == 2_000)
        #expect(GraphCalendarClient.Configuration().maximumPages == 2_000)
        #expect(GoogleCalendarClient.Configuration(maximumPages: 0).maximumPages == 1)
    }

    @Test func aGooglePageTokenGivenAgainStopsThatSourceWhileTheOtherLoads() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let server = try await HostileCalendarServer.start { page, _ in Self.googlePage(page, next: "again") }
        defer { Task { await server.stop() } }
        let ada = try await harness.signInAda()
        let connections = try harness.connections(harness.google(ada), server.google(ada, id: "work"))

        let result = await connections.fetch(window: await harness.window())

        let work = try #require(result.report(for: "work"))
        #expect(work.error == .api)
        #expect(work.error?.message.contains("'work'") == true, "\(work.error?.message ?? "")")
        #expect(work.error?.message.contains("given before") == true)
        #expect(work.status.kind == .apiError)
        #expect(work.served == .nothing)
        #expect(server.eventsRequests == 2)
        let healthy = try #require(result.report(for: "ada-google"))
        #expect(healthy.served == .fresh)
        #expect(result.events.contains { $0.title == "Dentist" && $0.source == "ada-google" })
        #expect(!result.events.contains { $0.source == "work" })
    }

    @Test func aGoogleListingWithoutEndStopsAtThePageLimit() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let server = try await HostileCalendarServer.start { page, _ in Self.googlePage(page, next: "\(page + 1)") }
        defer { Task { await server.stop() } }
        let ada = try await harness.signInAda()
        let hostile = server.google(ada, id: "work", maximumPages: 5)
        let connections = try harness.connections(harness.google(ada), hostile)

        // A sync-token round (the first sync reads the calendar without a token).
        let result = await connections.fetch(window: await harness.window())
        let work = try #require(result.report(for: "work"))
        #expect(work.error == .api)
        #expect(work.error?.message.contains("more than 5 pages") == true, "\(work.error?.message ?? "")")
        #expect(server.eventsRequests == 5)
        #expect(result.report(for: "ada-google")?.served == .fresh)

        // A range read.
        let error = await #expect(throws: CalendarError.api) {
            try await hostile.events(calendarID: "primary", in: HostileCalendarServer.window)
        }
        #expect(error?.message.contains("'work'") == true)
        #expect(server.eventsRequests == 10)
    }

    @Test func aGraphNextLinkGivenAgainStopsThatSourceWhileTheOtherLoads() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let server = try await HostileCalendarServer.start { page, query in
            Self.graphPage(page, host: query["host"], next: 1)
        }
        defer { Task { await server.stop() } }
        let ada = try await harness.signInAda()
        let connections = try harness.connections(harness.google(ada), server.graph(ada, id: "outlook"))

        let result = await connections.fetch(window: await harness.window())

        let outlook = try #require(result.report(for: "outlook"))
        #expect(outlook.error == .api)
        #expect(outlook.error?.message.contains("'outlook'") == true, "\(outlook.error?.message ?? "")")
        #expect(outlook.error?.message.contains("@odata.nextLink") == true)
        #expect(server.eventsRequests == 2)
        #expect(result.report(for: "ada-google")?.served == .fresh)
        #expect(result.events.contains { $0.title == "Dentist" })
    }

    @Test func aGraphListingWithoutEndStopsAtThePageLimit() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let server = try await HostileCalendarServer.start { page, query in
            Self.graphPage(page, host: query["host"], next: page + 1)
        }
        defer { Task { await server.stop() } }
        let ada = try await harness.signInAda()
        let hostile = server.graph(ada, id: "outlook", maximumPages: 3)

        // A delta round, then a calendarView read.
        await #expect(throws: CalendarError.api) {
            try await hostile.delta(in: HostileCalendarServer.window, deltaLink: nil)
        }
        #expect(server.eventsRequests == 3)
        let error = await #expect(throws: CalendarError.api) {
            try await hostile.events(in: HostileCalendarServer.window)
        }
        #expect(error?.message.contains("more than 3 pages") == true, "\(error?.message ?? "")")
        #expect(server.eventsRequests == 6)
    }
}
