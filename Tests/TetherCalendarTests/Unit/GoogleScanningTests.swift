import Foundation
import Testing
import Tether

@testable import TetherCalendar

/// The page reader the Google client uses (`JSONScanner`) against `JSONDecoder` over the same text: the same events,
/// the same skipped ones with the same reasons, the same pages refused.
struct GoogleScanningTests {
    /// Both readers' view of a page, mapped as the client maps it.
    struct Mapped: Equatable {
        var events: [CalendarEvent]
        var removed: [String]
        var skipped: [String]
        var nextPageToken: String?
        var nextSyncToken: String?

        init(_ page: GoogleWire.EventsPage) {
            let (items, skipped) = GoogleEventMapping.map(
                page,
                source: "google",
                calendar: CalendarInfo(id: "c", name: "C")
            )
            events = items.compactMap(\.event)
            removed = items.compactMap(\.removedID)
            // The record as a user sees it: the event, the kind of reason, its message, the field and type named.
            self.skipped = skipped.map { record in
                let reason = record.reason
                return "\(record.eventID ?? "-") \(reason.message) \(reason.field ?? "-") \(reason.expectedType ?? "-")"
            }
            nextPageToken = page.nextPageToken
            nextSyncToken = page.nextSyncToken
        }
    }

    static func both(_ json: String) -> (scanned: Result<Mapped, any Error>, decoded: Result<Mapped, any Error>) {
        let data = Data(json.utf8)
        let scanned = Result { Mapped(try GoogleWire.EventsPage(scanning: data)) }
        let decoded = Result { Mapped(try JSONDecoder().decode(GoogleWire.EventsPage.self, from: data)) }
        return (scanned, decoded)
    }

    static let pages: [String] = [
        GoogleDecodingTests.documentedPage,
        #"{"items": [], "nextSyncToken": "s1"}"#,
        #"{"items": null, "nextPageToken": null, "nextSyncToken": "s"}"#,
        #"{}"#,
        // Every way an event can be wrong, in one page.
        """
        {"items": [
          {"id": "good", "summary": "Fine", "start": {"date": "2025-03-04"}, "end": {"date": "2025-03-05"}},
          {"id": "no-start", "summary": "Missing", "end": {"date": "2025-03-05"}},
          {"id": "wrong-type", "summary": 42, "start": {"date": "2025-03-04"}, "end": {"date": "2025-03-05"}},
          {"id": "two-wrong", "location": true, "summary": [1], "start": 7, "end": {"date": "2025-03-05"}},
          {"id": "nested-wrong", "start": {"date": "2025-03-04", "timeZone": {"a": 1}}, "end": {"date": 5}},
          {"id": "organizer-wrong", "start": {"date": "2025-03-04"}, "end": {"date": "2025-03-05"},
           "organizer": {"email": false}},
          {"id": "organizer-not-object", "start": {"date": "2025-03-04"}, "end": {"date": "2025-03-05"},
           "organizer": "bob"},
          {"id": null, "summary": "null id"},
          {"id": 17, "summary": "number id"},
          {"id": "bad-zone", "start": {"dateTime": "2025-03-03T10:00:00", "timeZone": "Mars/Olympus_Mons"},
           "end": {"dateTime": "2025-03-03T11:00:00", "timeZone": "Mars/Olympus_Mons"}},
          {"id": "bad-date", "start": {"date": "2025-13-40"}, "end": {"date": "2025-03-05"}},
          {"summary": "no id at all"},
          "not an object", 12, null, [], true,
          {"id": "no-end", "start": {"dateTime": "2025-03-03T10:00:00Z"}},
          {"id": "nulls", "status": null, "summary": null, "description": null, "location": null,
           "start": {"date": "2025-03-04", "dateTime": null}, "end": {"date": "2025-03-05"}, "organizer": null,
           "recurringEventId": null, "updated": null, "htmlLink": null},
          {"id": "gone", "status": "cancelled"}
        ]}
        """,
        // Escapes, non-ASCII text and members the client does not read, of every JSON type.
        #"""
        { "kind" : "calendar#events" , "etag":"\"p3\"", "timeZone":"Europe/Berlin",
          "defaultReminders":[{"method":"popup","minutes":10}], "number": -0.5e+10, "zero": 0,
          "big": 12345678901234567890,
          "items" : [ {
            "id":"esc\u0061ped\/id", "summary":"Caf\u00e9 \ud83d\ude00 \"quoted\" \\ back\/slash\n\ttab",
            "description":"<p>R\u00e9union</p><br>caf\u00E9 &amp; more", "location":"M\u00fcnchen \u2014 Raum 5",
            "attendees":[{"email":"a@example.com","responseStatus":"accepted","self":true,"optional":false}],
            "conferenceData":{"entryPoints":[{"uri":"https://meet.example/x","pin":"123"}],"extra":[[[[]]],{}]},
            "start":{"dateTime":"2025-03-03T10:00:00.5+01:00","timeZone":"Europe/Berlin"},
            "end":{ "dateTime" : "2025-03-03T11:00:00+01:00" },
            "organizer":{"email":"\u0062ob@example.com","displayName":"B\u00f6b","self":true},
            "recurringEventId":"series", "updated":"2025-02-27T16:40:02.311Z",
            "htmlLink":"https://www.google.com/calendar/event?eid=abc&x=%20"
          } ],
          "nextPageToken" : "t\u00e9"
        }
        """#,
        // A key spelled with an escape is the same key.
        #"{"items":[{"\u0069d":"x","su\u006dmary":"S","start":{"date":"2025-03-04"},"end":{"date":"2025-03-05"}}]}"#,
        GoogleScanningTests.generatedPage(count: 60),
    ]

    @Test(arguments: Self.pages.indices) func theScannerReadsWhatJSONDecoderReads(_ index: Int) throws {
        let (scanned, decoded) = Self.both(Self.pages[index])
        let expected = try decoded.get()
        #expect(try scanned.get() == expected)
    }

    static let refusedPages: [String] = [
        "", " ", "[]", "null", "\"text\"", "{\"items\": [", "{\"items\": [}", "{\"items\": {}}", "{\"items\": 3}",
        "{\"nextPageToken\": 5}", "{\"nextSyncToken\": []}", "{\"timeZone\": {}}", "{\"items\": []} extra",
        "{\"items\": [{\"id\": \"x\" \"s\": 1}]}", "{'items': []}", "{\"items\": [{\"n\": tru}]}",
        "{\"items\": [{\"id\": \"\\u12\"}]}", "{\"a\" 1}",
        String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
        "{\"items\": [{\"deep\": " + String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000)
            + "}]}",
    ]

    @Test(arguments: Self.refusedPages) func pagesJSONDecoderRefusesAreRefusedWithADecodingError(_ json: String) {
        let (scanned, decoded) = Self.both(json)
        #expect(throws: DecodingError.self) { try decoded.get() }
        #expect(throws: DecodingError.self) { try scanned.get() }
    }

    /// Text that is not JSON (RFC 8259) but that `JSONDecoder` on Linux reads anyway: a trailing comma, a raw line
    /// break or an unknown escape in a string, a number with a leading zero or without digits, a lone surrogate.
    static let notJSON: [String] = [
        "{\"items\": [{\"id\": \"x\",}]}", "{\"a\": 1,}", "{\"items\": [{\"id\": \"a\nb\"}]}",
        "{\"items\": [{\"id\": \"\\x\"}]}", "{\"items\": [{\"n\": 01}]}", "{\"items\": [{\"n\": 1.}]}",
        "{\"items\": [{\"n\": -}]}", "{\"items\": [{\"id\": \"\\ud83d\"}]}",
    ]

    @Test(arguments: Self.notJSON) func textThatIsNotJSONIsRefusedWhereJSONDecoderIsLenient(_ json: String) {
        #expect(throws: DecodingError.self) { try GoogleWire.EventsPage(scanning: Data(json.utf8)) }
    }

    @Test func bytesThatAreNotUTF8InAStringTheClientReadsRefuseThePage() {
        var bytes = Array(#"{"items":[{"id":"x","summary":"a"#.utf8)
        bytes += [0xC3, 0x28]
        bytes += Array(#""}]}"#.utf8)
        #expect(throws: DecodingError.self) { try GoogleWire.EventsPage(scanning: Data(bytes)) }
    }

    @Test func theClientReadsEventsPagesWithTheScanner() async throws {
        // The overload `CalendarHTTP.json` picks for a scanned page; its decoding error is the calendar's.
        let page = try GoogleCalendarClient.decodeEventsPage(
            Data(Self.generatedPage(count: 3).utf8),
            source: "google",
            calendar: CalendarInfo(id: "c", name: "C")
        )
        #expect(page.events.count == 3)
        #expect(throws: CalendarError.decoding) {
            try GoogleCalendarClient.decodeEventsPage(
                Data("[]".utf8),
                source: "google",
                calendar: CalendarInfo(id: "c", name: "C")
            )
        }
    }

    /// Events as Google sends them (attendees, an HTML description, conference data, reminders), some all day, some
    /// instances of a series, one cancelled.
    static func generatedPage(count: Int) -> String {
        var items: [String] = []
        for index in 0..<count {
            let day = 1 + index % 28
            let when =
                index % 8 == 7
                ? #""start":{"date":"2026-03-\#(two(day))"},"end":{"date":"2026-03-\#(two(day + 1))"}"#
                : #""start":{"dateTime":"2026-03-\#(two(day))T09:\#(two(index % 60)):00+01:00","#
                    + #""timeZone":"Europe/Berlin"},"#
                    + #""end":{"dateTime":"2026-03-\#(two(day))T10:00:00+01:00","timeZone":"Europe/Berlin"}"#
            let series = index % 4 == 1 ? #","recurringEventId":"series\#(index % 7)""# : ""
            let status = index == 5 ? "cancelled" : index % 17 == 0 ? "tentative" : "confirmed"
            items.append(
                #"{"kind":"calendar#event","etag":"\"\#(index)\"","id":"evt\#(index)","status":"\#(status)","#
                    + #""htmlLink":"https://www.google.com/calendar/event?eid=evt\#(index)","#
                    + #""created":"2026-01-01T00:00:00.000Z","updated":"2026-02-0\#(1 + index % 9)T08:00:00.000Z","#
                    + #""summary":"Review #\#(index)","description":"<p>Agenda for <b>review</b>:</p><ul>"#
                    + #"<li>Open items &amp; decisions</li></ul><br>Notes","location":"Room \#(index)","#
                    + #""creator":{"email":"ada@example.com"},"#
                    + #""organizer":{"email":"ada@example.com","displayName":"Ada"},"#
                    + #""attendees":[{"email":"bob@example.com","responseStatus":"accepted"},"#
                    + #"{"email":"ada@example.com","organizer":true,"self":true,"responseStatus":"needsAction"}],"#
                    + #""conferenceData":{"#
                    + #""entryPoints":[{"entryPointType":"video","uri":"https://meet.google.com/x"}],"#
                    + #""conferenceSolution":{"key":{"type":"hangoutsMeet"},"name":"Google Meet"}},"#
                    + #""reminders":{"useDefault":true},"sequence":\#(index % 3),\#(when)\#(series)}"#
            )
        }
        return #"{"kind":"calendar#events","timeZone":"Europe/Berlin","items":["# + items.joined(separator: ",")
            + #"],"nextSyncToken":"sync"}"#
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
