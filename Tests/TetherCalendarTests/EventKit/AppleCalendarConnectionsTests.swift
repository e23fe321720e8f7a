// `AppleCalendarSource` as one source among others: through `CalendarConnections`, its cache, its statuses, the
// calendar selection and flight detection, over the shim's simulated event store (where EventKit does not exist).
#if !canImport(EventKit)
import EventKitShim
import Foundation
import Testing
import Tether
import TetherFlights

@testable import TetherCalendar

struct AppleCalendarConnectionsTests {
    @Test func eventsAreFetchedCachedAndTheFlightsAmongThemFound() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let simulator = fixture.simulator()
        let result = try await fixture.withConnections(over: simulator) { connections, _ in
            await connections.fetch(window: march2025)
        }
        let report = try #require(result.report(for: "apple-calendar"))
        #expect(report.served == .fresh)
        #expect(report.kind == .apple)
        #expect(Set(result.events.map(\.id)) == ["ua857", "dentist", "standup"])
        let detector = FlightDetector()
        let flights = result.events.filter { detector.detect(FlightDetector.Event($0)).isFlight }
        #expect(flights.map(\.id) == ["ua857"])
        #expect(detector.detect(FlightDetector.Event(flights[0])).flightNumber == "UA857")

        // The cache holds them: a new set of connections serves them without reading EventKit.
        let cached = try await fixture.withConnections(over: simulator) { connections, _ in
            await connections.loadCached(window: march2025)
        }
        #expect(Set(cached.events.map(\.id)) == ["ua857", "dentist", "standup"])
        #expect(simulator.fetches.count == 1)
    }

    @Test func theSelectionChoosesTheCalendarsReadAndIsKeptWithTheCache() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let simulator = fixture.simulator()
        try await fixture.withConnections(over: simulator) { connections, source in
            let calendars = try await source.calendars()
            #expect(Set(calendars.map(\.id)) == ["home", "work"])
            #expect(calendars.first { $0.isPrimary }?.id == "home")
            await connections.select(calendars: ["work"], for: "apple-calendar")
            let result = await connections.fetch(window: march2025)
            #expect(result.events.map(\.id) == ["standup"])
            #expect(simulator.fetches.last?.calendarIdentifiers == ["work"])
        }
        // A later launch reads the same choice back from the cache.
        try await fixture.withConnections(over: simulator) { connections, _ in
            #expect(await connections.selectedCalendars(for: "apple-calendar") == ["work"])
            #expect(await connections.fetch(window: march2025).events.map(\.id) == ["standup"])
        }
    }

    @Test func accessTakenAwayInSettingsServesTheCacheAndSaysWhereToAllowIt() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let simulator = fixture.simulator()
        try await fixture.withConnections(over: simulator) { connections, _ in
            #expect(await connections.fetch(window: march2025).events.count == 3)
            simulator.authorization = .denied
            let result = await connections.fetch(window: march2025)
            let report = try #require(result.report(for: "apple-calendar"))
            #expect(report.served == .cache)
            #expect(Set(result.events.map(\.id)) == ["ua857", "dentist", "standup"])
            guard case .accessDenied(let reason) = report.status else {
                Issue.record("status \(report.status)")
                return
            }
            #expect(reason.contains("Settings > Privacy > Calendars"))
            let listed = await connections.statuses().first?.status
            #expect(listed == report.status)
        }
        #expect(simulator.fetches.count == 1, "EventKit was read without full access")
    }

    @Test func aChangeInTheCalendarDatabaseIsReadOnTheNextFetch() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let simulator = fixture.simulator()
        try await fixture.withConnections(over: simulator) { connections, _ in
            _ = await connections.fetch(window: march2025)
            _ = await connections.fetch(window: march2025)
            #expect(simulator.fetches.count == 1, "an unchanged database was read again")
            simulator.change { database in
                var added = EventKitSimulator.Event(
                    identifier: "lh455",
                    calendarIdentifier: "home",
                    title: "Flight LH 455 Frankfurt to San Francisco",
                    start: instant("2025-03-20T10:00:00Z"),
                    end: instant("2025-03-20T21:00:00Z")
                )
                added.location = "FRA"
                database.events.append(added)
            }
            let result = await connections.fetch(window: march2025)
            #expect(result.events.contains { $0.id == "lh455" })
            #expect(simulator.fetches.count == 2)
        }
    }
}

private let march2025 = DateInterval(start: instant("2025-03-01T00:00:00Z"), end: instant("2025-04-01T00:00:00Z"))

/// A vault and calendar cache in a temporary folder, and a simulated device calendar with two calendars.
private struct Fixture {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("tether-apple-calendar-\(UUID().uuidString)", isDirectory: true)
    let key = VaultKey.generate()

    func simulator() -> EventKitSimulator {
        var flight = EventKitSimulator.Event(
            identifier: "ua857",
            calendarIdentifier: "home",
            title: "UA 857 San Francisco (SFO) → Beijing (PEK)",
            start: instant("2025-03-03T18:25:00Z"),
            end: instant("2025-03-04T07:50:00Z")
        )
        flight.notes = "Confirmation ABC123. United Airlines flight UA857, departs SFO 11:25, arrives PEK 15:50."
        flight.timeZoneIdentifier = "America/Los_Angeles"
        var dentist = EventKitSimulator.Event(
            identifier: "dentist",
            calendarIdentifier: "home",
            title: "Dentist",
            start: instant("2025-03-05T16:00:00Z"),
            end: instant("2025-03-05T17:00:00Z")
        )
        dentist.location = "12 Main St"
        let standup = EventKitSimulator.Event(
            identifier: "standup",
            calendarIdentifier: "work",
            title: "Standup",
            start: instant("2025-03-06T09:00:00Z"),
            end: instant("2025-03-06T09:15:00Z")
        )
        return EventKitSimulator(
            authorization: .fullAccess,
            calendars: [
                EventKitSimulator.Calendar(identifier: "home", title: "Home"),
                EventKitSimulator.Calendar(identifier: "work", title: "Work"),
            ],
            events: [flight, dentist, standup],
            defaultCalendarIdentifier: "home"
        )
    }

    /// Runs `body` with connections over one Apple source on `simulator`, with the fixture's cache.
    func withConnections<T>(
        over simulator: EventKitSimulator,
        _ body: (CalendarConnections, AppleCalendarSource) async throws -> T
    ) async throws -> T {
        let vault = try VaultStore(directory: directory, key: key, environment: [:], logger: silent)
        let cache = try CalendarCache(vault: vault)
        return try await EventKitSimulator.$current.withValue(simulator) {
            let source = AppleCalendarSource(eventStore: EKEventStore(simulator: simulator), timeZone: { utc })
            let connections = CalendarConnections(sources: [source], cache: cache, timeZone: utc, logger: silent)
            return try await body(connections, source)
        }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}
#endif
