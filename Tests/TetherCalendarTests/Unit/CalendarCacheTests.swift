import Foundation
import Testing
import Tether

@testable import TetherCalendar

struct CalendarCacheTests {
    /// A temporary folder with a vault and a cache in it.
    struct Fixture {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tether-calendar-cache-\(UUID().uuidString)", isDirectory: true)

        func cache(key: VaultKey) throws -> CalendarCache {
            let vault = try VaultStore(directory: directory, key: key, environment: [:], logger: silent)
            return try CalendarCache(vault: vault)
        }

        var cacheFolder: URL { directory.appendingPathComponent("calendar-cache", isDirectory: true) }

        /// The names of the files in the cache's folder.
        func files() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: cacheFolder.path).sorted()
        }

        /// The events files of `source`.
        func eventsFiles(_ source: CalendarSourceID = "work") throws -> [URL] {
            try files().filter {
                $0.hasPrefix(CalendarCache.baseName(source) + ".") && $0.hasSuffix(".calendar-events")
            }
            .map { cacheFolder.appendingPathComponent($0) }
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    static func entry(_ source: CalendarSourceID = "work") -> CalendarCache.Entry {
        let event = CalendarEvent(
            id: "e1",
            source: source,
            calendarID: "primary",
            calendarName: "Work",
            title: "Flight to Lisbon",
            timing: .timed(start: instant("2025-03-03T09:00:00Z"), end: instant("2025-03-03T12:00:00Z")),
            timeZone: TimeZone(identifier: "Europe/Lisbon"),
            location: "Terminal 2",
            notes: "Seat 14C",
            organizer: CalendarEvent.Person(name: "Ada", email: "ada@example.com"),
            seriesID: nil,
            lastModified: instant("2025-02-01T00:00:00Z"),
            link: URL(string: "https://calendar.example/e1")
        )
        let allDay = CalendarEvent(
            id: "e2",
            source: source,
            calendarID: "primary",
            title: "Offsite",
            timing: .allDay(first: day("2025-03-04"), end: day("2025-03-05"))
        )
        let calendar = CalendarSyncState.Calendar(
            info: CalendarInfo(id: "primary", name: "Work", isPrimary: true),
            cursor: "sync-token-1",
            events: ["e1": event, "e2": allDay]
        )
        return CalendarCache.Entry(
            source: source,
            state: CalendarSyncState(calendars: ["primary": calendar]),
            selectedCalendars: ["primary"],
            lastSuccessfulSync: instant("2025-03-01T08:00:00Z")
        )
    }

    @Test func roundTripsEverythingSealed() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let cache = try fixture.cache(key: .generate())
        try cache.save(Self.entry())
        #expect(try cache.load("work") == Self.entry())
        #expect(try cache.load("other") == nil)
        // Nothing personal is readable on disk, and the files are private.
        let files = [cache.fileURL(for: "work")] + (try fixture.eventsFiles())
        #expect(files.count == 2)
        for file in files {
            let raw = try Data(contentsOf: file)
            for secret in ["Lisbon", "Seat 14C", "ada@example.com", "sync-token-1", "Offsite", "primary", "Work"] {
                #expect(raw.range(of: Data(secret.utf8)) == nil, "\(secret) in \(file.lastPathComponent)")
            }
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }
    }

    /// A command that only reads (`tether calendar sources`) opens the cache: that creates no folder; the first save
    /// does, private.
    @Test func openingAndReadingCreatesNothingAndTheFirstSaveMakesThePrivateFolder() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let cache = try fixture.cache(key: .generate())
        let folder = fixture.cacheFolder.path
        #expect(try cache.load("work") == nil)
        #expect(!FileManager.default.fileExists(atPath: folder))

        try cache.save(Self.entry())
        let attributes = try FileManager.default.attributesOfItem(atPath: folder)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(try cache.load("work") == Self.entry())
    }

    @Test func aWrongKeyIsATypedErrorAndTheFileIsLeftUntouched() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        try fixture.cache(key: .generate()).save(Self.entry())
        let other = try fixture.cache(key: .generate())
        let before = try Data(contentsOf: other.fileURL(for: "work"))
        let events = try fixture.eventsFiles()
        #expect(throws: CalendarCacheError.wrongKey) { try other.load("work") }
        var replacement = Self.entry()
        replacement.lastSuccessfulSync = instant("2025-03-02T08:00:00Z")
        #expect(throws: CalendarCacheError.wrongKey) { try other.save(replacement) }
        #expect(try Data(contentsOf: other.fileURL(for: "work")) == before)
        #expect(try fixture.eventsFiles() == events)
    }

    @Test func aChangedHeaderIsATypedErrorAndIsLeftUntouched() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let cache = try fixture.cache(key: .generate())
        try cache.save(Self.entry())
        let url = cache.fileURL(for: "work")
        var header = try Data(contentsOf: url)
        header[header.count - 20] ^= 0x01
        try header.write(to: url)
        #expect(throws: CalendarCacheError.corrupted) { try cache.load("work") }
        #expect(throws: CalendarCacheError.corrupted) { try cache.save(Self.entry()) }
        #expect(try Data(contentsOf: url) == header)

        try Data("not a cache".utf8).write(to: url)
        #expect(throws: CalendarCacheError.corrupted) { try cache.load("work") }
        try Data(#"{"format":9,"probe":"","body":""}"#.utf8).write(to: url)
        #expect(throws: CalendarCacheError.unsupportedFormat) { try cache.load("work") }
        // A later format of this layout.
        try Data(Array("TCAL".utf8) + [0, 9, 0, 0, 0, 1, 7]).write(to: url)
        #expect(throws: CalendarCacheError.unsupportedFormat) { try cache.load("work") }
        try Data(Array("TCAL".utf8) + [0, 2, 0, 0, 0, 9]).write(to: url)
        #expect(throws: CalendarCacheError.corrupted) { try cache.load("work") }

        try cache.remove("work")
        #expect(try cache.load("work") == nil)
        try cache.remove("work")
    }

    @Test func aChangedOrMissingEventsFileIsATypedErrorAndTheCacheIsLeftUntouched() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let key = VaultKey.generate()
        try fixture.cache(key: key).save(Self.entry())
        let events = try #require(try fixture.eventsFiles().first)
        var bytes = try Data(contentsOf: events)
        bytes[bytes.count - 5] ^= 0x01
        try bytes.write(to: events)
        // A process that has not read the cache yet.
        let cache = try fixture.cache(key: key)
        #expect(throws: CalendarCacheError.corrupted) { try cache.load("work") }
        #expect(throws: CalendarCacheError.corrupted) { try cache.save(Self.entry()) }
        #expect(try Data(contentsOf: events) == bytes)

        try bytes.prefix(bytes.count / 2).write(to: events)
        #expect(throws: CalendarCacheError.corrupted) { try fixture.cache(key: key).load("work") }
        try FileManager.default.removeItem(at: events)
        #expect(throws: CalendarCacheError.corrupted) { try fixture.cache(key: key).load("work") }
    }

    @Test func aFileCannotBeMovedToAnotherSource() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let cache = try fixture.cache(key: .generate())
        try cache.save(Self.entry())
        try FileManager.default.copyItem(at: cache.fileURL(for: "work"), to: cache.fileURL(for: "home"))
        #expect(throws: CalendarCacheError.self) { try cache.load("home") }
    }

    @Test func removeDeletesEveryFileOfTheSourceAndNoOther() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let cache = try fixture.cache(key: .generate())
        try cache.save(Self.entry("work"))
        try cache.save(Self.entry("home"))
        try cache.remove("work")
        #expect(try cache.load("work") == nil)
        #expect(try fixture.files().allSatisfy { !$0.hasPrefix(CalendarCache.baseName("work") + ".") })
        #expect(try cache.load("home") == Self.entry("home"))
    }

    // MARK: What a save writes

    @Test func aSyncThatChangesOnlyItsTimeAndCursorsWritesAnAmendmentAndNeitherHeaderNorEvents() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let key = VaultKey.generate()
        try fixture.cache(key: key).save(LargeCalendarCacheTests.entry())
        let events = try fixture.eventsFiles()
        let eventsStamp = try #require(CalendarCache.FileStamp(events[0].path))
        let header = fixture.cacheFolder.appendingPathComponent(CalendarCache.baseName("work") + ".calendar-cache")
        let headerStamp = try #require(CalendarCache.FileStamp(header.path))

        // The next run: loaded, synced without a change, saved with the new time and cursor.
        let cache = try fixture.cache(key: key)
        var entry = try #require(try cache.load("work"))
        entry.lastSuccessfulSync = instant("2026-02-02T08:00:00Z")
        entry.state.calendars["primary"]?.cursor = "sync-token-2"
        try cache.save(entry)
        #expect(try fixture.eventsFiles() == events)
        #expect(CalendarCache.FileStamp(events[0].path) == eventsStamp)
        #expect(CalendarCache.FileStamp(header.path) == headerStamp)
        let amendment = fixture.cacheFolder.appendingPathComponent(
            CalendarCache.baseName("work") + ".calendar-amendment"
        )
        let sealed = try Data(contentsOf: amendment)
        #expect(sealed.range(of: Data("sync-token-2".utf8)) == nil)

        var expected = LargeCalendarCacheTests.entry()
        expected.lastSuccessfulSync = entry.lastSuccessfulSync
        expected.state.calendars["primary"]?.cursor = "sync-token-2"
        #expect(try fixture.cache(key: key).load("work") == expected)
        // Saved again unchanged, by the same cache: another amendment.
        entry.lastSuccessfulSync = instant("2026-02-03T08:00:00Z")
        try cache.save(entry)
        expected.lastSuccessfulSync = entry.lastSuccessfulSync
        #expect(CalendarCache.FileStamp(header.path) == headerStamp)
        #expect(try fixture.cache(key: key).load("work") == expected)

        // A damaged amendment is ignored: the header's time and cursors are older, and correct.
        var damaged = try Data(contentsOf: amendment)
        damaged[damaged.count - 3] ^= 0x10
        try damaged.write(to: amendment)
        #expect(try fixture.cache(key: key).load("work") == LargeCalendarCacheTests.entry())
    }

    @Test func aSaveThatChangesNoEventButMoreThanTimeAndCursorsRewritesTheHeaderAlone() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let key = VaultKey.generate()
        try fixture.cache(key: key).save(LargeCalendarCacheTests.entry())
        let events = try fixture.eventsFiles()
        let stamp = try #require(CalendarCache.FileStamp(events[0].path))
        let cache = try fixture.cache(key: key)
        var entry = try #require(try cache.load("work"))
        entry.lastSuccessfulSync = instant("2026-02-02T08:00:00Z")
        try cache.save(entry)
        let amendment = fixture.cacheFolder.appendingPathComponent(
            CalendarCache.baseName("work") + ".calendar-amendment"
        )
        let earlier = try Data(contentsOf: amendment)

        entry.state.calendars["team"]?.info.name = "Team (renamed)"
        entry.selectedCalendars = ["team"]
        entry.lastSuccessfulSync = instant("2026-02-05T08:00:00Z")
        try cache.save(entry)
        #expect(try fixture.eventsFiles() == events)
        #expect(CalendarCache.FileStamp(events[0].path) == stamp)
        #expect(!FileManager.default.fileExists(atPath: amendment.path))
        var expected = LargeCalendarCacheTests.entry()
        expected.lastSuccessfulSync = entry.lastSuccessfulSync
        expected.state.calendars["team"]?.info.name = "Team (renamed)"
        expected.selectedCalendars = ["team"]
        #expect(try fixture.cache(key: key).load("work") == expected)
        // The amendment of the previous header does not apply to the new one.
        try earlier.write(to: amendment)
        #expect(try fixture.cache(key: key).load("work") == expected)
    }

    @Test func aChangedCalendarIsWrittenAgainTheOthersCopiedAndTheOldEventsFileRemoved() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let key = VaultKey.generate()
        try fixture.cache(key: key).save(LargeCalendarCacheTests.entry())
        let before = try fixture.eventsFiles()

        let cache = try fixture.cache(key: key)
        var entry = try #require(try cache.load("work"))
        entry.state.calendars["team"]?.events["team-3"]?.title = "Moved"
        entry.state.calendars["team"]?.events["team-4"] = nil
        try cache.save(entry)
        let after = try fixture.eventsFiles()
        #expect(after.count == 1)
        #expect(after != before)

        var expected = LargeCalendarCacheTests.entry()
        expected.state.calendars["team"]?.events["team-3"]?.title = "Moved"
        expected.state.calendars["team"]?.events["team-4"] = nil
        let loaded = try #require(try fixture.cache(key: key).load("work"))
        #expect(loaded == expected)
        // Saved again unchanged by the cache that wrote it: the header alone.
        let stamp = CalendarCache.FileStamp(after[0].path)
        try cache.save(entry)
        #expect(try fixture.eventsFiles() == after)
        #expect(CalendarCache.FileStamp(after[0].path) == stamp)
    }

    /// An app that opens two caches over one folder: the second writes the events the first loaded, sealed as they
    /// are, without decoding them.
    @Test func anEntryLoadedThroughAnotherCacheIsWrittenWithItsSegmentsAsTheyAre() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let key = VaultKey.generate()
        try fixture.cache(key: key).save(LargeCalendarCacheTests.entry())
        var entry = try #require(try fixture.cache(key: key).load("work"))
        entry.lastSuccessfulSync = instant("2026-03-01T00:00:00Z")
        let other = try fixture.cache(key: key)
        try other.save(entry)
        let segments = try #require(entry.state.calendars["primary"]?.storage.segments)
        #expect(segments.decodedSegmentCount == 0)
        #expect(try fixture.eventsFiles().count == 1)
        var expected = LargeCalendarCacheTests.entry()
        expected.lastSuccessfulSync = entry.lastSuccessfulSync
        #expect(try fixture.cache(key: key).load("work") == expected)
    }

    @Test func anEventsFileAnInterruptedSaveLeftIsRemovedByTheNextSaveThatWritesEvents() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let cache = try fixture.cache(key: .generate())
        try cache.save(Self.entry())
        let kept = try fixture.eventsFiles()
        let orphan = fixture.cacheFolder.appendingPathComponent(
            CalendarCache.baseName("work") + ".00000000000000000000000000000001.calendar-events"
        )
        try Data("left by a crash".utf8).write(to: orphan)
        #expect(try cache.load("work") == Self.entry())
        var entry = Self.entry()
        let copied = entry.state.calendars["primary"]?.events["e2"]
        entry.state.calendars["primary"]?.events["e3"] = copied
        try cache.save(entry)
        #expect(try fixture.eventsFiles().count == 1)
        #expect(try !fixture.eventsFiles().contains(orphan))
        #expect(try fixture.eventsFiles() != kept)
    }

    @Test func aCacheWithoutEventsHasNoEventsFile() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let cache = try fixture.cache(key: .generate())
        var entry = Self.entry()
        entry.state.calendars["primary"]?.events = [:]
        entry.state.calendars["empty"] = CalendarSyncState.Calendar(info: CalendarInfo(id: "empty", name: "Empty"))
        try cache.save(entry)
        #expect(try fixture.eventsFiles().isEmpty)
        #expect(try cache.load("work") == entry)
        // Events that go away take their file with them.
        try cache.save(Self.entry())
        #expect(try fixture.eventsFiles().count == 1)
        try cache.save(entry)
        #expect(try fixture.eventsFiles().isEmpty)
    }

    // MARK: Reading a window

    @Test func aWeekDecodesOnlyTheMonthsItOverlapsAndListsWhatTheEventsInMemoryWould() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let key = VaultKey.generate()
        let entry = CalendarEventStorageTests.yearEntry()
        try fixture.cache(key: key).save(entry)
        let loaded = try #require(try fixture.cache(key: key).load("work"))
        let storage = try #require(loaded.state.calendars["primary"]?.storage.segments)
        #expect(storage.segments.count == 13)
        #expect(storage.decodedSegmentCount == 0)

        let week = DateInterval(start: instant("2026-05-11T00:00:00Z"), duration: 7 * 86_400)
        let listed = loaded.state.events(in: week, timeZone: utc)
        #expect(listed == entry.state.events(in: week, timeZone: utc))
        #expect(!listed.isEmpty)
        // May, and the months of the events that last from before it.
        #expect(storage.decodedSegmentCount <= 3)
        #expect(loaded.state.calendars["primary"]?.storage.count == entry.state.calendars["primary"]?.events.count)
    }
}
