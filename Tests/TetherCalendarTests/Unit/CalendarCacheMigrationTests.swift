import Foundation
import Testing
import Tether

@testable import TetherCalendar

/// Caches written by the previous format (1: one sealed JSON file per source) load, and the next save replaces them
/// with the current format.
struct CalendarCacheMigrationTests {
    /// A format 1 file as the previous version wrote it — the writer below is that version's, unchanged: the entry as
    /// JSON a thousand events at a time, sealed as text with the vault's key, in `{"format":1,"probe","body"}`.
    enum FormatOneWriter {
        static func file(_ entry: CalendarCache.Entry, vault: VaultStore) throws -> Data {
            let context = "tether.calendar.cache.v1:\(entry.source.rawValue)"
            let probe = try vault.seal("tether.calendar.cache.probe", context: context)
            let body = try vault.seal(String(decoding: try json(entry), as: UTF8.self), context: context)
            var data = Data()
            data.append(contentsOf: #"{"format":1,"probe":""#.utf8)
            data.append(contentsOf: probe.utf8)
            data.append(contentsOf: #"","body":""#.utf8)
            data.append(contentsOf: body.utf8)
            data.append(contentsOf: #""}"#.utf8)
            return data
        }

        static func json(_ entry: CalendarCache.Entry) throws -> Data {
            let encoder = JSONEncoder()
            var out = Data()
            func raw(_ text: String) { out.append(contentsOf: text.utf8) }
            func append<Value: Encodable>(_ value: Value) throws { out.append(try encoder.encode(value)) }
            raw(#"{"source":"#)
            try append(entry.source)
            raw(#","lastSuccessfulSync":"#)
            try append(entry.lastSuccessfulSync)
            if let selected = entry.selectedCalendars {
                raw(#","selectedCalendars":"#)
                try append(selected)
            }
            raw(#","state":{"calendars":{"#)
            for (index, (id, calendar)) in entry.state.calendars.enumerated() {
                if index > 0 { raw(",") }
                try append(id)
                raw(#":{"info":"#)
                try append(calendar.info)
                if let cursor = calendar.cursor {
                    raw(#","cursor":"#)
                    try append(cursor)
                }
                if let window = calendar.window {
                    raw(#","window":"#)
                    try append(window)
                }
                raw(#","skipped":"#)
                try append(calendar.skipped)
                raw(#","events":{"#)
                var chunk: [String: CalendarEvent] = [:]
                var isFirst = true
                func flush() throws {
                    guard !chunk.isEmpty else { return }
                    let encoded = try encoder.encode(chunk)
                    if !isFirst { raw(",") }
                    out.append(encoded.dropFirst().dropLast())
                    isFirst = false
                    chunk.removeAll(keepingCapacity: true)
                }
                for (key, event) in calendar.events {
                    chunk[key] = event
                    if chunk.count == 1_000 { try flush() }
                }
                try flush()
                raw("}}")
            }
            raw("}}}")
            return out
        }
    }

    static func vault(_ fixture: CalendarCacheTests.Fixture, key: VaultKey) throws -> VaultStore {
        try VaultStore(directory: fixture.directory, key: key, environment: [:], logger: silent)
    }

    @Test(arguments: [false, true]) func aFormatOneFileLoadsAndTheNextSaveWritesTheCurrentFormat(large: Bool) throws {
        let fixture = CalendarCacheTests.Fixture()
        defer { fixture.remove() }
        let key = VaultKey.generate()
        let entry = large ? LargeCalendarCacheTests.entry() : CalendarCacheTests.entry()
        let cache = try fixture.cache(key: key)
        try FileManager.default.createDirectory(at: fixture.cacheFolder, withIntermediateDirectories: true)
        let old = try FormatOneWriter.file(entry, vault: try Self.vault(fixture, key: key))
        try old.write(to: cache.fileURL(for: "work"))

        let loaded = try #require(try cache.load("work"))
        #expect(loaded == entry)
        #expect(try Data(contentsOf: cache.fileURL(for: "work")) == old)

        try cache.save(loaded)
        let header = try Data(contentsOf: cache.fileURL(for: "work"))
        #expect(header.starts(with: Array("TCAL".utf8)))
        #expect(try fixture.eventsFiles().count == 1)
        #expect(try fixture.cache(key: key).load("work") == entry)
    }

    /// A format 1 file that `tether calendar sync` wrote before this format: six events from the benchmark's
    /// stand-in (`bench/calendar_standin.py --events 6`, profile `dev`), under the vault key below.
    @Test func aFormatOneFileThatTheLastReleaseWroteLoads() throws {
        let fixture = CalendarCacheTests.Fixture()
        defer { fixture.remove() }
        let key = try VaultKey(base64: FormatOneFixture.key)
        let cache = try fixture.cache(key: key)
        try FileManager.default.createDirectory(at: fixture.cacheFolder, withIntermediateDirectories: true)
        let bytes = try #require(Data(base64Encoded: FormatOneFixture.file, options: .ignoreUnknownCharacters))
        try bytes.write(to: cache.fileURL(for: "dev"))

        let entry = try #require(try cache.load("dev"))
        #expect(entry.source == "dev")
        #expect(entry.selectedCalendars == nil)
        let primary = try #require(entry.state.calendars["primary"])
        #expect(primary.cursor == "CPDAlvWDx70CEPDAlvWDx70CGAU=")
        #expect(primary.info.isPrimary)
        #expect(primary.events.count == 6)
        let first = try #require(primary.events.values.first { $0.title == "Design review #0" })
        #expect(first.location == "Room 1.00, Building A")
        #expect(first.timeZone?.identifier == "Europe/Berlin")
        #expect(first.organizer?.email == "ada@example.com")
        #expect(first.notes?.hasPrefix("Agenda for Design review:") == true)
        #expect(first.link?.host == "www.google.com")
        #expect(primary.events.values.contains { $0.seriesID == "series001" })

        try cache.save(entry)
        #expect(try fixture.cache(key: key).load("dev") == entry)
    }
}
