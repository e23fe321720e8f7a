import Foundation
import Testing
import Tether

@testable import TetherCalendar

/// Large calendars round-trip through the cache, which skips opening a file it wrote itself only while that file is
/// unchanged.
struct LargeCalendarCacheTests {
    /// Two calendars, one with more events than fit in three chunks, skipped records, cursors and a window.
    static func entry() -> CalendarCache.Entry {
        func events(_ count: Int, calendar: String) -> [String: CalendarEvent] {
            var events: [String: CalendarEvent] = [:]
            for index in 0..<count {
                let start = instant("2026-01-01T00:00:00Z").addingTimeInterval(Double(index) * 300)
                events["\(calendar)-\(index)"] = CalendarEvent(
                    id: "\(calendar)-\(index)",
                    source: "work",
                    calendarID: calendar,
                    calendarName: calendar,
                    title: "Event \(index) \"quoted\" / slashed",
                    timing: index % 3 == 0
                        ? .allDay(first: day("2026-01-02"), end: day("2026-01-03"))
                        : .timed(start: start, end: start.addingTimeInterval(300)),
                    timeZone: index % 2 == 0 ? TimeZone(identifier: "Europe/Berlin") : nil,
                    notes: index % 5 == 0 ? "Line one\nline two" : nil,
                    link: URL(string: "https://calendar.example/\(index)")
                )
            }
            return events
        }
        let skipped = SkippedEvent(
            source: "work",
            calendarID: "primary",
            eventID: "bad",
            reason: CalendarDecodingError.malformedEvent.with(
                message: "The event's 'summary' has the wrong type (expected a string)",
                field: "summary",
                expectedType: "a string"
            )
        )
        let primary = CalendarSyncState.Calendar(
            info: CalendarInfo(id: "primary", name: "Work", isPrimary: true),
            cursor: "sync-token",
            window: DateInterval(start: instant("2026-01-01T00:00:00Z"), duration: 86_400 * 30),
            events: events(2_345, calendar: "primary"),
            skipped: [
                skipped, SkippedEvent(source: "work", calendarID: "primary", eventID: nil, reason: .missingField),
            ]
        )
        let other = CalendarSyncState.Calendar(
            info: CalendarInfo(id: "team", name: "Team", isPrimary: false, isSelectedByDefault: true),
            events: events(7, calendar: "team")
        )
        return CalendarCache.Entry(
            source: "work",
            state: CalendarSyncState(calendars: [
                "primary": primary, "team": other, "empty": .init(info: CalendarInfo(id: "empty", name: "Empty")),
            ]),
            selectedCalendars: ["primary", "team"],
            lastSuccessfulSync: instant("2026-02-01T08:00:00Z")
        )
    }

    @Test func aLargeEntryRoundTripsThroughTheSealedFile() throws {
        let fixture = CalendarCacheTests.Fixture()
        defer { fixture.remove() }
        let key = VaultKey.generate()
        let entry = Self.entry()
        try fixture.cache(key: key).save(entry)
        #expect(try fixture.cache(key: key).load("work") == entry)
    }

    @Test func aFileChangedSinceTheCacheWroteItIsOpenedBeforeItIsReplaced() throws {
        let fixture = CalendarCacheTests.Fixture()
        defer { fixture.remove() }
        let cache = try fixture.cache(key: .generate())
        try cache.save(CalendarCacheTests.entry())
        // Unchanged since it wrote it: saved again without opening it.
        try cache.save(CalendarCacheTests.entry())
        // Replaced by another writer (a new file of the same size): opened, found damaged, kept.
        let url = cache.fileURL(for: "work")
        var bytes = try Data(contentsOf: url)
        bytes[bytes.count - 10] ^= 0x01
        try bytes.write(to: url, options: .atomic)
        #expect(throws: CalendarCacheError.corrupted) { try cache.save(CalendarCacheTests.entry()) }
        #expect(try Data(contentsOf: url) == bytes)
    }
}
