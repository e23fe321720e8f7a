import Foundation
import Testing

@testable import TetherCalendar

struct DateParsingTests {
    @Test(arguments: [
        ("2025-03-03T10:00:00+01:00", 1_740_992_400.0),
        ("2025-03-03T09:00:00Z", 1_740_992_400.0),
        ("2025-03-03T09:00:00.000Z", 1_740_992_400.0),
        ("2025-03-03T01:00:00-08:00", 1_740_992_400.0),
        ("2025-02-27T16:40:02.311Z", 1_740_674_402.311),
        ("1970-01-01T00:00:00Z", 0.0),
    ])
    func readsRFC3339InstantsWithOffsets(text: String, seconds: Double) throws {
        let date = try #require(DateParsing.rfc3339(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.0005)
    }

    @Test(arguments: [
        "2025-03-03", "2025-03-03T10:00:00", "2025-02-30T10:00:00Z", "2025-03-03T25:00:00Z", "yesterday", "",
    ])
    func rejectsWhatIsNotAnInstant(text: String) {
        #expect(DateParsing.rfc3339(text) == nil)
    }

    @Test func writesUTCInstants() {
        #expect(DateParsing.rfc3339String(Date(timeIntervalSince1970: 1_740_992_400.9)) == "2025-03-03T09:00:00Z")
        #expect(DateParsing.rfc3339String(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
    }

    @Test func daysAndDatesAreInverse() {
        for days in stride(from: -800_000, to: 800_000, by: 997) {
            let (year, month, dayOfMonth) = DateParsing.civil(fromDays: days)
            #expect(DateParsing.days(year: year, month: month, day: dayOfMonth) == days)
        }
    }

    @Test func calendarDaysParseCompareAndCount() throws {
        #expect(day("2024-02-29").next == day("2024-03-01"))
        #expect(day("2025-12-31").next == day("2026-01-01"))
        #expect(CalendarDay("2025-02-29") == nil)
        #expect(CalendarDay("2025-3-1") == nil)
        #expect(day("2025-03-04") < day("2025-03-05"))
        #expect(day("2025-03-04").description == "2025-03-04")
        let data = try JSONEncoder().encode(day("2025-03-04"))
        #expect(String(decoding: data, as: UTF8.self) == "\"2025-03-04\"")
        #expect(try JSONDecoder().decode(CalendarDay.self, from: data) == day("2025-03-04"))
    }

    @Test func aDayIsNeverShiftedByTheZoneItIsReadIn() throws {
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let losAngeles = try #require(TimeZone(identifier: "America/Los_Angeles"))
        // 2025-03-04T00:00 in Tokyo is still March 3 in Los Angeles; the day itself stays March 4.
        let start = day("2025-03-04").start(in: tokyo)
        #expect(start == instant("2025-03-03T15:00:00Z"))
        #expect(CalendarDay(start, in: tokyo) == day("2025-03-04"))
        #expect(CalendarDay(start, in: losAngeles) == day("2025-03-03"))
        #expect(day("2025-03-04").start(in: losAngeles) == instant("2025-03-04T08:00:00Z"))
    }

    @Test func localTimesAcrossDaylightSavingChanges() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let summer = try #require(DateParsing.local(Array("2025-07-01T10:00:00".utf8))).0
        #expect(DateParsing.instant(localSeconds: summer.seconds, in: berlin) == instant("2025-07-01T08:00:00Z"))
        let winter = try #require(DateParsing.local(Array("2025-01-01T10:00:00.0000000".utf8))).0
        #expect(DateParsing.instant(localSeconds: winter.seconds, in: berlin) == instant("2025-01-01T09:00:00Z"))
    }
}
