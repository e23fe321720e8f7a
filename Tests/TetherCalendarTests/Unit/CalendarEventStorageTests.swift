import Foundation
import Testing
import Tether

@testable import TetherCalendar

/// Events read from the cache a month at a time list and compare exactly as the same events in memory.
struct CalendarEventStorageTests {
    /// About 1,100 events over 13 months: timed ones in several zones, all-day ones, events that cross a month's end
    /// or last for weeks, and zero-length ones.
    static func yearEntry() -> CalendarCache.Entry {
        var events: [String: CalendarEvent] = [:]
        let zones = ["Europe/Berlin", "Pacific/Kiritimati", "Pacific/Pago_Pago", "America/New_York"].map {
            TimeZone(identifier: $0)
        }
        let start = instant("2026-01-01T00:00:00Z")
        for index in 0..<1_100 {
            let from = start.addingTimeInterval(Double(index) * 8.5 * 3_600)
            let timing: CalendarEvent.Timing
            switch index % 11 {
            case 0:
                let first = CalendarDay(from, in: utc)
                timing = .allDay(first: first, end: first.adding(days: 1 + index % 3))
            case 1: timing = .timed(start: from, end: from)
            case 2: timing = .timed(start: from, end: from.addingTimeInterval(86_400 * Double(1 + index % 20)))
            default: timing = .timed(start: from, end: from.addingTimeInterval(1_800))
            }
            let id = "event-\(index)"
            events[id] = CalendarEvent(
                id: id,
                source: "work",
                calendarID: "primary",
                calendarName: index % 5 == 0 ? nil : "Work",
                title: "Event \(index % 37)",
                timing: timing,
                timeZone: zones[index % zones.count],
                status: index % 13 == 0 ? .tentative : .confirmed,
                location: index % 3 == 0 ? "Room \(index % 7)" : nil,
                notes: index % 4 == 0 ? "Agenda\nitem \(index)" : nil,
                organizer: index % 6 == 0 ? CalendarEvent.Person(name: "Ada", email: "ada@example.com") : nil,
                seriesID: index % 9 == 0 ? "series" : nil,
                lastModified: index % 2 == 0 ? start.addingTimeInterval(0.125) : nil,
                link: URL(string: "https://calendar.example/\(id)")
            )
        }
        // One long event across three months, and one keyed apart from its identifier.
        events["long"] = CalendarEvent(
            id: "long",
            source: "work",
            calendarID: "primary",
            title: "Sabbatical",
            timing: .allDay(first: day("2026-02-20"), end: day("2026-04-10"))
        )
        events["key-differs"] = CalendarEvent(
            id: "the-id",
            source: "other-source",
            calendarID: "elsewhere",
            title: "Odd",
            timing: .timed(start: instant("2026-05-12T10:00:00Z"), end: instant("2026-05-12T11:00:00Z"))
        )
        let calendar = CalendarSyncState.Calendar(
            info: CalendarInfo(id: "primary", name: "Work", isPrimary: true),
            cursor: "token",
            events: events
        )
        return CalendarCache.Entry(
            source: "work",
            state: CalendarSyncState(calendars: ["primary": calendar]),
            lastSuccessfulSync: instant("2027-01-01T00:00:00Z")
        )
    }

    static func loaded(_ entry: CalendarCache.Entry) throws -> (CalendarCache.Entry, CalendarCacheTests.Fixture) {
        let fixture = CalendarCacheTests.Fixture()
        let key = VaultKey.generate()
        try fixture.cache(key: key).save(entry)
        return (try #require(try fixture.cache(key: key).load(entry.source)), fixture)
    }

    @Test func everyWindowInEveryZoneListsTheSameEventsAsInMemory() throws {
        let entry = Self.yearEntry()
        let (loaded, fixture) = try Self.loaded(entry)
        defer { fixture.remove() }
        let zones = ["UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Asia/Kathmandu", "America/St_Johns"]
        var windows: [DateInterval] = []
        var from = instant("2025-12-25T00:00:00Z")
        while from < instant("2027-02-01T00:00:00Z") {
            windows.append(DateInterval(start: from, duration: 86_400 * 7))
            windows.append(DateInterval(start: from.addingTimeInterval(3_600 * 13), duration: 3_600))
            from = from.addingTimeInterval(86_400 * 9.5)
        }
        windows.append(DateInterval(start: instant("2026-03-31T23:30:00Z"), duration: 3_600))
        windows.append(DateInterval(start: instant("2020-01-01T00:00:00Z"), duration: 86_400 * 365 * 10))
        for name in zones {
            let zone = try #require(TimeZone(identifier: name))
            for window in windows {
                #expect(
                    loaded.state.events(in: window, timeZone: zone) == entry.state.events(in: window, timeZone: zone),
                    "\(name) \(window)"
                )
                #expect(loaded.state.count(in: window, timeZone: zone) == entry.state.count(in: window, timeZone: zone))
            }
        }
    }

    @Test func countingAWindowDecodesNoMonthAndCountsAsInMemory() throws {
        let entry = Self.yearEntry()
        let (loaded, fixture) = try Self.loaded(entry)
        defer { fixture.remove() }
        let segments = try #require(loaded.state.calendars["primary"]?.storage.segments)
        var counted = 0
        for name in ["UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago", "America/St_Johns"] {
            let zone = try #require(TimeZone(identifier: name))
            var from = instant("2025-12-20T00:00:00Z")
            while from < instant("2027-02-01T00:00:00Z") {
                for window in [
                    DateInterval(start: from, duration: 86_400 * 14),
                    DateInterval(start: from.addingTimeInterval(3_600 * 13), duration: 3_600),
                ] {
                    let count = loaded.state.count(in: window, timeZone: zone)
                    #expect(count == entry.state.count(in: window, timeZone: zone), "\(name) \(window)")
                    counted += count
                }
                from = from.addingTimeInterval(86_400 * 11.5)
            }
        }
        #expect(counted > 1_000)
        #expect(segments.decodedSegmentCount == 0)
        // Once a month is decoded, it is counted from the decoded events.
        let week = DateInterval(start: instant("2026-03-02T00:00:00Z"), duration: 86_400 * 7)
        _ = loaded.state.events(in: week, timeZone: utc)
        #expect(segments.decodedSegmentCount > 0)
        #expect(loaded.state.count(in: week, timeZone: utc) == entry.state.count(in: week, timeZone: utc))
    }

    @Test func timingsReadAsTheEventsDoAndARecordCutShortIsRefused() throws {
        let events = Self.yearEntry().state.calendars["primary"]?.events ?? [:]
        let record = EventRecords.encode(events.map { ($0.key, $0.value) })
        var timings: [String: CalendarEvent.Timing] = [:]
        try record.withUnsafeBytes { try EventRecords.decodeTimings($0, into: &timings) }
        #expect(timings == events.mapValues(\.timing))
        #expect(timings["key-differs"] != nil)
        for length in stride(from: 0, to: record.count, by: 97) {
            var some: [String: CalendarEvent.Timing] = [:]
            #expect(throws: CacheByteReader.Truncated.self) {
                try Array(record.prefix(length)).withUnsafeBytes { try EventRecords.decodeTimings($0, into: &some) }
            }
        }
        var none: [String: CalendarEvent.Timing] = [:]
        #expect(throws: CacheByteReader.Truncated.self) {
            try ([0x00, 0x01, 0x80, 0x80, 0x01] as [UInt8]).withUnsafeBytes {
                try EventRecords.decodeTimings($0, into: &none)
            }
        }
    }

    #if os(Linux)
    @Test func aMappedEventsFileChangedInPlaceAfterTheLoadIsNeverWrittenBackShort() throws {
        var entry = Self.yearEntry()
        let team = CalendarInfo(id: "team", name: "Team")
        var teamEvent = CalendarEvent(
            id: "standup",
            source: "work",
            calendarID: "team",
            title: "Standup",
            timing: .timed(start: instant("2026-03-02T09:00:00Z"), end: instant("2026-03-02T09:15:00Z"))
        )
        entry.state.calendars["team"] = CalendarSyncState.Calendar(info: team, events: [teamEvent.id: teamEvent])
        let fixture = CalendarCacheTests.Fixture()
        defer { fixture.remove() }
        let key = VaultKey.generate()
        // What another program does that writes into the file rather than replacing it.
        func overwriteInPlace(_ file: URL, at offset: UInt64, count: Int, with byte: UInt8) throws {
            let handle = try FileHandle(forWritingTo: file)
            try handle.seek(toOffset: offset)
            try handle.write(contentsOf: Data(repeating: byte, count: count))
            try handle.close()
        }
        func mappingCache() throws -> CalendarCache {
            let vault = try VaultStore(directory: fixture.directory, key: key, environment: [:], logger: silent)
            return try CalendarCache(directory: fixture.cacheFolder, vault: vault, mappingEventsFiles: true)
        }
        try mappingCache().save(entry)
        let file = try #require(try fixture.eventsFiles().first)
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0 > 64 * 1024)

        // Mapped and checked, and nothing wrong: counted, changed and written as when the file is read.
        let cache = try mappingCache()
        var loaded = try #require(try cache.load("work"))
        let year = DateInterval(start: instant("2026-01-01T00:00:00Z"), duration: 86_400 * 400)
        #expect(loaded.state.count(in: year, timeZone: utc) == entry.state.count(in: year, timeZone: utc))
        loaded.state.calendars["primary"]?.events["event-7"] = nil
        try cache.save(loaded)
        #expect(try mappingCache().load("work")?.state.calendars["primary"]?.events.count == 1_101)

        // Another program rewrites the file in place after the load checked it: a month no longer opens.
        let again = try mappingCache()
        var damaged = try #require(try again.load("work"))
        let written = try #require(try fixture.eventsFiles().first)
        try overwriteInPlace(written, at: 4_096, count: 100_000, with: 0x5A)
        let before = try Data(contentsOf: written)
        damaged.state.calendars["primary"]?.events["event-8"] = nil
        #expect(damaged.state.calendars["primary"]?.storage.isComplete == false)
        #expect(throws: CalendarCacheError.corrupted) { try again.save(damaged) }
        #expect(try Data(contentsOf: written) == before)
        #expect(try fixture.eventsFiles() == [written])

        // Another calendar changed: the damaged one's sealed months would be copied as they are, and are checked.
        try mappingCache().remove("work")
        try mappingCache().save(entry)
        let third = try mappingCache()
        var other = try #require(try third.load("work"))
        let rewritten = try #require(try fixture.eventsFiles().first)
        try overwriteInPlace(rewritten, at: 8_192, count: 50_000, with: 0xA5)
        let damagedAgain = try Data(contentsOf: rewritten)
        teamEvent.title = "Standup, moved"
        other.state.calendars["team"]?.events[teamEvent.id] = teamEvent
        #expect(other.state.calendars["primary"]?.storage.segments != nil)
        #expect(throws: CalendarCacheError.corrupted) { try third.save(other) }
        #expect(try Data(contentsOf: rewritten) == damagedAgain)
        #expect(try fixture.eventsFiles() == [rewritten])
    }
    #endif

    @Test func aLoadedStateEqualsTheSavedOneAndChangesAsADictionary() throws {
        let entry = Self.yearEntry()
        let (loaded, fixture) = try Self.loaded(entry)
        defer { fixture.remove() }
        #expect(loaded == entry)
        #expect(loaded.hashValue == entry.hashValue)
        #expect(loaded.state.allEvents.count == entry.state.allEvents.count)

        var changed = loaded
        changed.state.calendars["primary"]?.events["event-7"] = nil
        #expect(changed != entry)
        #expect(changed.state.calendars["primary"]?.storage.segments == nil)
        #expect(changed.state.calendars["primary"]?.events.count == 1_101)
        // The copy it was made from is untouched, and still reads from the cache.
        #expect(loaded == entry)
        #expect(loaded.state.calendars["primary"]?.storage.segments != nil)
    }

    @Test func everyFieldRoundTripsThroughTheBinaryRecords() throws {
        let events = Self.yearEntry().state.calendars["primary"]?.events ?? [:]
        let record = EventRecords.encode(events.map { ($0.key, $0.value) })
        var decoded: [String: CalendarEvent] = [:]
        try record.withUnsafeBytes { try EventRecords.decode($0, into: &decoded) }
        #expect(decoded == events)
        #expect(decoded["key-differs"]?.id == "the-id")
        #expect(decoded["key-differs"]?.source == "other-source")
    }

    @Test func aRecordCutShortOrFromALaterVersionIsRefusedNotACrash() throws {
        let event = try #require(CalendarCacheTests.entry().state.calendars["primary"]?.events["e1"])
        let record = EventRecords.encode([("e1", event)])
        for length in 0..<record.count {
            var decoded: [String: CalendarEvent] = [:]
            #expect(throws: CacheByteReader.Truncated.self) {
                try Array(record.prefix(length)).withUnsafeBytes { try EventRecords.decode($0, into: &decoded) }
            }
        }
        // No shared string, one event whose flags name a field this version does not know (bit 14).
        var decoded: [String: CalendarEvent] = [:]
        #expect(throws: CacheByteReader.Truncated.self) {
            try ([0x00, 0x01, 0x80, 0x80, 0x01] as [UInt8]).withUnsafeBytes {
                try EventRecords.decode($0, into: &decoded)
            }
        }
    }
}
