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
        // Nothing personal is readable on disk, and the file is private.
        let raw = try Data(contentsOf: cache.fileURL(for: "work"))
        let text = String(decoding: raw, as: UTF8.self)
        for secret in ["Lisbon", "Seat 14C", "ada@example.com", "sync-token-1", "Offsite"] {
            #expect(!text.contains(secret))
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: cache.fileURL(for: "work").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    /// A command that only reads (`tether calendar sources`) opens the cache: that creates no folder; the first save
    /// does, private.
    @Test func openingAndReadingCreatesNothingAndTheFirstSaveMakesThePrivateFolder() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let cache = try fixture.cache(key: .generate())
        let folder = fixture.directory.appendingPathComponent("calendar-cache").path
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
        #expect(throws: CalendarCacheError.wrongKey) { try other.load("work") }
        var replacement = Self.entry()
        replacement.lastSuccessfulSync = instant("2025-03-02T08:00:00Z")
        #expect(throws: CalendarCacheError.wrongKey) { try other.save(replacement) }
        #expect(try Data(contentsOf: other.fileURL(for: "work")) == before)
    }

    @Test func aChangedFileIsATypedErrorAndIsLeftUntouched() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let cache = try fixture.cache(key: .generate())
        try cache.save(Self.entry())
        let url = cache.fileURL(for: "work")
        var file = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        var body = Data(base64Encoded: file["body"] as! String)!
        body[body.count / 2] ^= 0x01
        file["body"] = body.base64EncodedString()
        let tampered = try JSONSerialization.data(withJSONObject: file)
        try tampered.write(to: url)
        #expect(throws: CalendarCacheError.corrupted) { try cache.load("work") }
        #expect(throws: CalendarCacheError.corrupted) { try cache.save(Self.entry()) }
        #expect(try Data(contentsOf: url) == tampered)

        try Data("not a cache".utf8).write(to: url)
        #expect(throws: CalendarCacheError.corrupted) { try cache.load("work") }
        try Data(#"{"format":9,"probe":"","body":""}"#.utf8).write(to: url)
        #expect(throws: CalendarCacheError.unsupportedFormat) { try cache.load("work") }

        try cache.remove("work")
        #expect(try cache.load("work") == nil)
        try cache.remove("work")
    }

    @Test func aFileCannotBeMovedToAnotherSource() throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let cache = try fixture.cache(key: .generate())
        try cache.save(Self.entry())
        try FileManager.default.copyItem(at: cache.fileURL(for: "work"), to: cache.fileURL(for: "home"))
        #expect(throws: CalendarCacheError.self) { try cache.load("home") }
    }
}
