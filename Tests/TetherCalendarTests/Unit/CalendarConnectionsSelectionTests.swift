import Foundation
import Testing
import Tether

@testable import TetherCalendar

/// Choosing calendars through `CalendarConnections`, and keeping the choice in the cache — also the cache files
/// written before the choice could be "every calendar".
struct CalendarConnectionsSelectionTests {
    /// A source that lists `work` and `home` and records the identifiers each sync was asked for.
    final class RecordingSource: CalendarSource, @unchecked Sendable {
        let id: CalendarSourceID = "device"
        let kind: CalendarSourceKind = .apple
        private let lock = NSLock()
        private var asked: [Set<String>?] = []

        var requests: [Set<String>?] { lock.withLock { asked } }

        func accessStatus() async -> CalendarSourceStatus { .connected(account: nil) }
        func calendars() async throws -> [CalendarInfo] {
            [CalendarInfo(id: "work", name: "Work", isPrimary: true), CalendarInfo(id: "home", name: "Home")]
        }
        func sync(
            from state: CalendarSyncState,
            window: DateInterval,
            calendars: Set<String>?
        ) async throws
            -> CalendarSyncOutcome
        {
            lock.withLock { asked.append(calendars) }
            let chosen = try await self.calendars().filter { calendars?.contains($0.id) ?? $0.isPrimary }
            var outcome = CalendarSyncOutcome(state: CalendarSyncState())
            for calendar in chosen {
                var event = StubSource.event("\(calendar.id)-1", source: id, at: "2025-03-03T09:00:00Z")
                event.calendarID = calendar.id
                outcome.state.calendars[calendar.id] = CalendarSyncState.Calendar(
                    info: calendar,
                    events: [event.id: event]
                )
            }
            return outcome
        }
    }

    static let window = DateInterval(start: instant("2025-03-03T00:00:00Z"), duration: 7 * 86_400)

    @Test func aSourceThatTakesIdentifiersIsGivenEveryListedOneForAll() async throws {
        let source = RecordingSource()
        let connections = CalendarConnections(sources: [source], timeZone: utc, logger: silent)
        _ = await connections.fetch(window: Self.window)
        try await connections.select(.all, for: "device")
        let all = await connections.fetch(window: Self.window)
        try await connections.select(.calendars(["home"]), for: "device")
        _ = await connections.fetch(window: Self.window)
        #expect(source.requests == [nil, ["work", "home"], ["home"]])
        #expect(Set(all.events.map(\.calendarID)) == ["work", "home"])
        #expect(await connections.selection(for: "device") == .calendars(["home"]))
        #expect(await connections.selectedCalendars(for: "device") == ["home"])
    }

    @Test func theChoiceIsStoredAtOnceTheEventsOfCalendarsNoLongerReadDroppedAndSurvivesARestart() async throws {
        let fixture = CalendarCacheTests.Fixture()
        defer { fixture.remove() }
        let key = VaultKey.generate()
        let source = RecordingSource()
        let first = CalendarConnections(sources: [source], cache: try fixture.cache(key: key), logger: silent)
        try await first.select(.all, for: "device")
        _ = await first.fetch(window: Self.window)
        #expect(try fixture.cache(key: key).load("device")?.selection == .all)

        // Choosing one calendar: stored without a fetch, the other's events gone from the cache.
        try await first.select(.calendars(["home"]), for: "device")
        let stored = try #require(try fixture.cache(key: key).load("device"))
        #expect(stored.selection == .calendars(["home"]))
        #expect(stored.selectedCalendars == ["home"])
        #expect(Set(stored.state.calendars.keys) == ["home"])

        // Choosing the same again writes nothing.
        let file = try fixture.cache(key: key).fileURL(for: "device")
        let bytes = try Data(contentsOf: file)
        try await first.select(.calendars(["home"]), for: "device")
        #expect(try Data(contentsOf: file) == bytes)

        // A new launch reads the choice from the cache.
        let again = CalendarConnections(sources: [source], cache: try fixture.cache(key: key), logger: silent)
        #expect(await again.selection(for: "device") == .calendars(["home"]))
        let cached = await again.loadCached(window: Self.window)
        #expect(cached.events.map(\.calendarID) == ["home"])
    }

    @Test func aChoiceGivenWithTheFetchIsAppliedAsSelectAppliesIt() async throws {
        let fixture = CalendarCacheTests.Fixture()
        defer { fixture.remove() }
        let key = VaultKey.generate()
        let source = RecordingSource()
        let first = CalendarConnections(sources: [source], cache: try fixture.cache(key: key), logger: silent)
        let all = await first.fetch(window: Self.window, selecting: ["device": .all])
        #expect(Set(all.events.map(\.calendarID)) == ["work", "home"])
        #expect(try fixture.cache(key: key).load("device")?.selection == .all)

        // A later process chooses one calendar with its sync: stored, the other's events gone, as select(_:for:).
        let second = CalendarConnections(sources: [source], cache: try fixture.cache(key: key), logger: silent)
        let reports = await second.sync(window: Self.window, selecting: ["device": .calendars(["home"])])
        #expect(reports.map(\.eventCount) == [1])
        let stored = try #require(try fixture.cache(key: key).load("device"))
        #expect(stored.selection == .calendars(["home"]))
        #expect(Set(stored.state.calendars.keys) == ["home"])
        #expect(source.requests == [["work", "home"], ["home"]])
        #expect(await second.selection(for: "device") == .calendars(["home"]))
    }

    @Test func aChoiceGivenWithTheFetchThatTheCacheCannotStoreIsReportedAndHolds() async throws {
        let fixture = CalendarCacheTests.Fixture()
        defer { fixture.remove() }
        let source = RecordingSource()
        let cache = try fixture.cache(key: .generate())
        // Another key's file in the cache's place: the cache refuses to replace it.
        let other = CalendarCacheTests.Fixture()
        defer { other.remove() }
        let otherCache = try other.cache(key: .generate())
        try otherCache.save(
            CalendarCache.Entry(source: "device", state: CalendarSyncState(), lastSuccessfulSync: Date())
        )
        let file = cache.fileURL(for: "device")
        try FileManager.default.createDirectory(at: fixture.cacheFolder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: otherCache.fileURL(for: "device"), to: file)
        let foreign = try Data(contentsOf: file)
        let connections = CalendarConnections(sources: [source], cache: cache, logger: silent)
        let reports = await connections.sync(window: Self.window, selecting: ["device": .calendars(["home"])])
        #expect(reports.first?.cacheError == .wrongKey)
        #expect(reports.first?.served == .fresh)
        #expect(source.requests == [["home"]])
        #expect(try Data(contentsOf: file) == foreign)
        #expect(await connections.selection(for: "device") == .calendars(["home"]))
    }

    @Test func aCacheThatCannotBeWrittenIsATypedErrorAndTheChoiceStillHolds() async throws {
        let fixture = CalendarCacheTests.Fixture()
        defer { fixture.remove() }
        let key = VaultKey.generate()
        let source = RecordingSource()
        let connections = CalendarConnections(sources: [source], cache: try fixture.cache(key: key), logger: silent)
        _ = await connections.fetch(window: Self.window)
        // Another key's file in its place: the cache refuses to replace it.
        let other = CalendarCacheTests.Fixture()
        defer { other.remove() }
        let otherCache = try other.cache(key: .generate())
        let foreignEntry = CalendarCache.Entry(source: "device", state: CalendarSyncState(), lastSuccessfulSync: Date())
        try otherCache.save(foreignEntry)
        let file = try fixture.cache(key: key).fileURL(for: "device")
        try FileManager.default.removeItem(at: file)
        try FileManager.default.copyItem(at: otherCache.fileURL(for: "device"), to: file)
        let foreign = try Data(contentsOf: file)
        await #expect(throws: CalendarCacheError.wrongKey) {
            try await connections.select(.all, for: "device")
        }
        #expect(try Data(contentsOf: file) == foreign)
        #expect(await connections.selection(for: "device") == .all)
    }

    @Test func anEntryWrittenBeforeKeepsItsCalendarsAndOneWithoutAChoiceReadsTheDefault() throws {
        let date = instant("2025-03-01T08:00:00Z")
        // What earlier versions wrote: a set of identifiers, or no key at all; calendars without access fields.
        let info = #"{"id":"work","name":"Work","isPrimary":true}"#
        let state = #"{"calendars":{"work":{"info":\#(info),"events":{}}}}"#
        let seconds = date.timeIntervalSinceReferenceDate
        let named =
            #"{"source":"device","lastSuccessfulSync":\#(seconds),"selectedCalendars":["work"],"state":\#(state)}"#
        let plain = #"{"source":"device","lastSuccessfulSync":\#(seconds),"state":\#(state)}"#
        let old = try JSONDecoder().decode(CalendarCache.Entry.self, from: Data(named.utf8))
        #expect(old.selection == .calendars(["work"]))
        #expect(old.lastSuccessfulSync == date)
        #expect(old.state.calendars["work"]?.info.accessRole == nil)
        let none = try JSONDecoder().decode(CalendarCache.Entry.self, from: Data(plain.utf8))
        #expect(none.selection == .default)
        #expect(none.selectedCalendars == nil)

        // The cache keeps every choice through a save and a load.
        let fixture = CalendarCacheTests.Fixture()
        defer { fixture.remove() }
        let cache = try fixture.cache(key: VaultKey.generate())
        for selection in [CalendarSelection.default, .all, .calendars(["work", "home"])] {
            let entry = CalendarCache.Entry(
                source: "device",
                state: CalendarSyncState(),
                selection: selection,
                lastSuccessfulSync: date
            )
            try cache.save(entry)
            let loaded = try #require(try cache.load("device"))
            #expect(loaded.selection == selection)
            #expect(loaded.lastSuccessfulSync == date)
        }
        var entry = none
        entry.selectedCalendars = ["home"]
        #expect(entry.selection == .calendars(["home"]))
        entry.selection = .all
        #expect(entry.selectedCalendars == nil)
        entry.selectedCalendars = nil
        #expect(entry.selection == .default)
        #expect(entry == none)
    }
}
