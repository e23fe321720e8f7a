import Foundation
import Testing
import Tether

@testable import TetherCalendar

/// Microsoft Graph `calendarView` and delta pages, as documented ("event resource type", "event: delta").
struct GraphDecodingTests {
    @Test func windowsTimeZonesAsOutlookWritesThem() throws {
        let (items, skipped) = try decodeGraph(
            """
            {"value": [{
              "id": "AAMkAGI2TQ4ZmEAAA=", "subject": "Design review", "isAllDay": false, "isCancelled": false,
              "showAs": "busy",
              "start": {"dateTime": "2025-03-03T10:00:00.0000000", "timeZone": "W. Europe Standard Time"},
              "end": {"dateTime": "2025-03-03T11:00:00.0000000", "timeZone": "W. Europe Standard Time"},
              "location": {"displayName": "Room 4.12"},
              "iCalUId": "040000008200E00074C5B7101A82E00800000000D3D70B8A6A17D701"
            }]}
            """
        )
        #expect(skipped.isEmpty)
        let event = try #require(items.first?.event)
        #expect(event.timing == .timed(start: instant("2025-03-03T09:00:00Z"), end: instant("2025-03-03T10:00:00Z")))
        #expect(event.timeZone?.identifier == "Europe/Berlin")
        #expect(event.location == "Room 4.12")
        #expect(event.status == .confirmed)
    }

    @Test func utcTimesWithTheOriginalZoneAndAnHTMLBody() throws {
        let (items, _) = try decodeGraph(
            """
            {"value": [{
              "id": "occ1", "subject": "Weekly sync", "type": "occurrence", "seriesMasterId": "master1",
              "showAs": "tentative",
              "start": {"dateTime": "2025-03-03T17:00:00.0000000", "timeZone": "UTC"},
              "end": {"dateTime": "2025-03-03T17:30:00.0000000", "timeZone": "UTC"},
              "originalStartTimeZone": "Pacific Standard Time",
              "body": {"contentType": "html", "content": "<html><body><p>Notes&nbsp;for&nbsp;you</p><p>Second &lt;line&gt;</p></body></html>"},
              "organizer": {"emailAddress": {"name": "Grace", "address": "grace@example.com"}},
              "lastModifiedDateTime": "2025-02-27T16:40:02.3110000Z",
              "webLink": "https://outlook.office365.com/owa/?itemid=occ1"
            }, {
              "id": "iana", "subject": "IANA named", "start": {"dateTime": "2025-03-03T10:00:00", "timeZone": "Asia/Tokyo"},
              "end": {"dateTime": "2025-03-03T11:00:00", "timeZone": "Asia/Tokyo"}, "originalStartTimeZone": "Asia/Tokyo",
              "body": {"contentType": "text", "content": "plain <kept>"}
            }]}
            """
        )
        let occurrence = try #require(items[0].event)
        #expect(occurrence.seriesID == "master1")
        #expect(occurrence.status == .tentative)
        #expect(
            occurrence.timing == .timed(start: instant("2025-03-03T17:00:00Z"), end: instant("2025-03-03T17:30:00Z"))
        )
        #expect(occurrence.timeZone?.identifier == "America/Los_Angeles")
        #expect(occurrence.notes == "Notes for you\n\nSecond <line>")
        #expect(occurrence.organizer?.email == "grace@example.com")
        #expect(occurrence.lastModified == instant("2025-02-27T16:40:02.311Z"))
        #expect(occurrence.link?.host == "outlook.office365.com")
        let iana = try #require(items[1].event)
        #expect(iana.timing == .timed(start: instant("2025-03-03T01:00:00Z"), end: instant("2025-03-03T02:00:00Z")))
        #expect(iana.notes == "plain <kept>")
    }

    @Test func allDayEventsAtMidnightOrConvertedToUTC() throws {
        let (items, _) = try decodeGraph(
            """
            {"value": [{
              "id": "offsite", "subject": "Team offsite", "isAllDay": true,
              "start": {"dateTime": "2025-03-04T00:00:00.0000000", "timeZone": "UTC"},
              "end": {"dateTime": "2025-03-05T00:00:00.0000000", "timeZone": "UTC"},
              "originalStartTimeZone": "W. Europe Standard Time"
            }, {
              "id": "shifted", "subject": "Holiday", "isAllDay": true,
              "start": {"dateTime": "2025-03-04T08:00:00.0000000", "timeZone": "UTC"},
              "end": {"dateTime": "2025-03-06T08:00:00.0000000", "timeZone": "UTC"},
              "originalStartTimeZone": "Pacific Standard Time"
            }, {
              "id": "cancelled", "subject": "Dropped", "isCancelled": true,
              "start": {"dateTime": "2025-03-04T09:00:00.0000000", "timeZone": "UTC"},
              "end": {"dateTime": "2025-03-04T10:00:00.0000000", "timeZone": "UTC"}
            }]}
            """
        )
        #expect(items[0].event?.timing == .allDay(first: day("2025-03-04"), end: day("2025-03-05")))
        #expect(items[1].event?.timing == .allDay(first: day("2025-03-04"), end: day("2025-03-06")))
        #expect(items[2].event?.status == .cancelled)
    }

    @Test func deltaRemovalsAndBadEvents() throws {
        let (items, skipped) = try decodeGraph(
            """
            {"@odata.deltaLink": "https://graph.microsoft.com/v1.0/me/calendarView/delta?$deltatoken=abc",
             "value": [
              {"id": "gone", "@removed": {"reason": "deleted"}},
              {"id": "unknown-zone", "start": {"dateTime": "2025-03-04T09:00:00", "timeZone": "Mars Standard Time"},
               "end": {"dateTime": "2025-03-04T10:00:00", "timeZone": "Mars Standard Time"}},
              {"id": "no-end", "start": {"dateTime": "2025-03-04T09:00:00", "timeZone": "UTC"}},
              {"id": "garbled", "start": {"dateTime": "next tuesday", "timeZone": "UTC"},
               "end": {"dateTime": "2025-03-04T10:00:00", "timeZone": "UTC"}},
              {"id": "typed", "isAllDay": "yes"}
            ]}
            """
        )
        #expect(items.compactMap(\.removedID) == ["gone"])
        #expect(items.compactMap(\.event).isEmpty)
        #expect(skipped.map(\.eventID) == ["unknown-zone", "no-end", "garbled", "typed"])
        #expect(skipped.map(\.reason) == [.unknownTimeZone, .missingField, .invalidDate, .malformedEvent])
        #expect(skipped[0].reason.message.contains("Mars Standard Time"))
    }

    @Test(arguments: [
        ("W. Europe Standard Time", "Europe/Berlin"),
        ("Pacific Standard Time", "America/Los_Angeles"),
        ("Tokyo Standard Time", "Asia/Tokyo"),
        ("India Standard Time", "Asia/Calcutta"),
        ("UTC", "UTC"),
        ("tzone://Microsoft/Utc", "UTC"),
        ("Europe/Paris", "Europe/Paris"),
    ])
    func zoneNames(name: String, identifier: String) throws {
        let zone = try #require(GraphEventMapping.zone(named: name))
        let expected = try #require(TimeZone(identifier: identifier))
        #expect(
            zone.secondsFromGMT(for: instant("2025-07-01T00:00:00Z"))
                == expected.secondsFromGMT(for: instant("2025-07-01T00:00:00Z"))
        )
    }

    @Test func everyWindowsNameMapsToAZoneThisSystemKnows() {
        for (name, iana) in WindowsTimeZones.ianaByWindowsName {
            #expect(TimeZone(identifier: iana) != nil, "\(name) → \(iana)")
        }
    }
}
