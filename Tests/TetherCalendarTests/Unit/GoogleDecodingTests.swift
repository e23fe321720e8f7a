import Foundation
import Testing
import Tether

@testable import TetherCalendar

/// Google Calendar v3 `events.list` pages, as documented ("Events: list", "Events resource").
struct GoogleDecodingTests {
    static let documentedPage = """
        {
          "kind": "calendar#events",
          "etag": "\\"p32ofplf2sfsf20o\\"",
          "summary": "alice@example.com",
          "timeZone": "Europe/Berlin",
          "accessRole": "owner",
          "updated": "2025-03-01T09:12:44.120Z",
          "nextPageToken": "CigKGjVmMXMwbnEyYzNrOG05dDdiNGE2ZDJlMWYwGAEggICA",
          "items": [
            {
              "kind": "calendar#event",
              "id": "5f1s0nq2c3k8m9t7b4a6d2e1f0",
              "status": "confirmed",
              "htmlLink": "https://www.google.com/calendar/event?eid=NWYxczBucTJj",
              "summary": "Design review",
              "description": "Bring the <b>draft</b><br>and the numbers &amp; charts",
              "location": "Room 4.12",
              "organizer": { "email": "bob@example.com", "displayName": "Bob" },
              "start": { "dateTime": "2025-03-03T10:00:00+01:00", "timeZone": "Europe/Berlin" },
              "end":   { "dateTime": "2025-03-03T11:00:00+01:00", "timeZone": "Europe/Berlin" },
              "iCalUID": "5f1s0nq2c3k8m9t7b4a6d2e1f0@google.com",
              "updated": "2025-02-27T16:40:02.311Z"
            },
            {
              "kind": "calendar#event",
              "id": "0a9b8c7d6e5f4g3h2i1j",
              "status": "confirmed",
              "summary": "Team offsite",
              "start": { "date": "2025-03-04" },
              "end":   { "date": "2025-03-05" }
            },
            { "kind": "calendar#event", "id": "7k2m4n6p8q", "status": "cancelled" }
          ]
        }
        """

    @Test func theDocumentedPageDecodes() throws {
        let (items, skipped) = try decodeGoogle(Self.documentedPage)
        #expect(skipped.isEmpty)
        #expect(items.count == 3)
        let review = try #require(items[0].event)
        #expect(review.id == "5f1s0nq2c3k8m9t7b4a6d2e1f0")
        #expect(review.source == "google")
        #expect(review.calendarID == "primary")
        #expect(review.calendarName == "Ada")
        #expect(review.title == "Design review")
        #expect(review.timing == .timed(start: instant("2025-03-03T09:00:00Z"), end: instant("2025-03-03T10:00:00Z")))
        #expect(review.timeZone?.identifier == "Europe/Berlin")
        #expect(review.status == .confirmed)
        #expect(review.location == "Room 4.12")
        #expect(review.notes == "Bring the draft\nand the numbers & charts")
        #expect(review.organizer == CalendarEvent.Person(name: "Bob", email: "bob@example.com"))
        #expect(review.lastModified == instant("2025-02-27T16:40:02.311Z"))
        #expect(review.link?.host == "www.google.com")
        #expect(review.seriesID == nil)

        let offsite = try #require(items[1].event)
        #expect(offsite.timing == .allDay(first: day("2025-03-04"), end: day("2025-03-05")))
        #expect(offsite.isAllDay)
        // The calendar's zone stands in when the event names none.
        #expect(offsite.timeZone?.identifier == "Europe/Berlin")
        #expect(items[2].removedID == "7k2m4n6p8q")
    }

    @Test func anAllDayEventStaysOnItsDatesInEveryZone() throws {
        let (items, _) = try decodeGoogle(Self.documentedPage)
        let offsite = try #require(items[1].event)
        for name in ["Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC", "Asia/Kolkata"] {
            let zone = try #require(TimeZone(identifier: name))
            #expect(CalendarDay(offsite.interval(in: zone).start, in: zone) == day("2025-03-04"))
            #expect(offsite.interval(in: zone).duration == 86_400)
        }
    }

    @Test func recurringInstancesTentativeAndLocalTimes() throws {
        let (items, skipped) = try decodeGoogle(
            """
            {"timeZone": "America/New_York", "items": [
              {"id": "weekly_20250303T150000Z", "status": "tentative", "summary": "Standup",
               "recurringEventId": "weekly",
               "start": {"dateTime": "2025-03-03T10:00:00", "timeZone": "America/New_York"},
               "end": {"dateTime": "2025-03-03T10:15:00", "timeZone": "America/New_York"}},
              {"id": "tokyo", "summary": "Call",
               "start": {"dateTime": "2025-03-03T09:00:00+09:00", "timeZone": "Asia/Tokyo"},
               "end": {"dateTime": "2025-03-03T10:00:00+09:00"}}
            ]}
            """
        )
        #expect(skipped.isEmpty)
        let standup = try #require(items[0].event)
        #expect(standup.seriesID == "weekly")
        #expect(standup.status == .tentative)
        #expect(standup.timing == .timed(start: instant("2025-03-03T15:00:00Z"), end: instant("2025-03-03T15:15:00Z")))
        let call = try #require(items[1].event)
        #expect(call.timeZone?.identifier == "Asia/Tokyo")
        #expect(call.timing == .timed(start: instant("2025-03-03T00:00:00Z"), end: instant("2025-03-03T01:00:00Z")))
    }

    @Test func badEventsAreSkippedAndReportedWhileTheOthersLoad() throws {
        let (items, skipped) = try decodeGoogle(
            """
            {"items": [
              {"id": "good", "summary": "Fine", "start": {"date": "2025-03-04"}, "end": {"date": "2025-03-05"}},
              {"id": "no-start", "summary": "Missing", "end": {"date": "2025-03-05"}},
              {"id": "wrong-type", "summary": 42, "start": {"date": "2025-03-04"}, "end": {"date": "2025-03-05"}},
              {"id": "bad-zone", "start": {"dateTime": "2025-03-03T10:00:00", "timeZone": "Mars/Olympus_Mons"},
               "end": {"dateTime": "2025-03-03T11:00:00", "timeZone": "Mars/Olympus_Mons"}},
              {"id": "bad-date", "start": {"date": "2025-13-40"}, "end": {"date": "2025-03-05"}},
              {"summary": "no id at all"},
              "not an object",
              {"id": "no-end", "start": {"dateTime": "2025-03-03T10:00:00Z"}}
            ]}
            """
        )
        #expect(items.compactMap(\.event).map(\.id) == ["good"])
        #expect(skipped.map(\.eventID) == ["no-start", "wrong-type", "bad-zone", "bad-date", nil, nil, "no-end"])
        #expect(skipped[0].reason == .missingField)
        #expect(skipped[1].reason == .malformedEvent)
        #expect(skipped[2].reason == .unknownTimeZone)
        #expect(skipped[3].reason == .invalidDate)
        #expect(skipped[4].reason == .missingField)
        #expect(skipped[5].reason == .malformedEvent)
        #expect(skipped[6].reason == .missingField)
        // Reasons name fields, never their content.
        #expect(skipped.allSatisfy { !$0.reason.message.contains("Fine") && !$0.reason.message.contains("42") })
    }

    @Test func aPageThatIsNotJSONIsAnErrorNotACrash() {
        #expect(throws: DecodingError.self) { try decodeGoogle("{\"items\": [") }
        #expect(throws: DecodingError.self) { try decodeGoogle("[]") }
    }
}
