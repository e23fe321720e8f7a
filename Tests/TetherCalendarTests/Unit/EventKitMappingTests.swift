import Foundation
import Testing

@testable import TetherCalendar

/// The shared mapping behind `AppleCalendarSource` (which compiles here against `EventKitShim`; see
/// `AppleCalendarSourceTests`).
struct EventKitMappingTests {
    @Test func aTimedEventKeepsItsFieldsAndZone() throws {
        let fields = EventKitEventFields(
            eventIdentifier: "EK1",
            calendarIdentifier: "cal",
            calendarTitle: "Home",
            title: "Dentist",
            startDate: instant("2025-03-03T09:00:00Z"),
            endDate: instant("2025-03-03T10:00:00Z"),
            timeZoneIdentifier: "Europe/Berlin",
            statusRawValue: 2,
            location: "Main St 1",
            notes: "Bring card",
            organizerName: "Clinic",
            organizerURL: URL(string: "mailto:desk%40clinic.example"),
            lastModified: instant("2025-02-01T00:00:00Z"),
            url: URL(string: "https://clinic.example")
        )
        let event = fields.event(source: "apple-calendar", deviceTimeZone: utc)
        #expect(event.id == "EK1")
        #expect(event.calendarName == "Home")
        #expect(event.timing == .timed(start: instant("2025-03-03T09:00:00Z"), end: instant("2025-03-03T10:00:00Z")))
        #expect(event.timeZone?.identifier == "Europe/Berlin")
        #expect(event.status == .tentative)
        #expect(event.organizer == CalendarEvent.Person(name: "Clinic", email: "desk@clinic.example"))
        #expect(event.seriesID == nil)
    }

    @Test func allDayEventsEndTheDayAfterTheirLastSecond() throws {
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        // EventKit: March 4–5 in Tokyo, ending at 23:59:59 on March 5.
        let fields = EventKitEventFields(
            eventIdentifier: "EK2",
            calendarIdentifier: "cal",
            title: "Trip",
            startDate: day("2025-03-04").start(in: tokyo),
            endDate: day("2025-03-06").start(in: tokyo).addingTimeInterval(-1),
            isAllDay: true,
            statusRawValue: 3
        )
        let event = fields.event(source: "apple-calendar", deviceTimeZone: tokyo)
        #expect(event.timing == .allDay(first: day("2025-03-04"), end: day("2025-03-06")))
        #expect(event.status == .cancelled)
        #expect(event.timeZone == nil)
    }

    @Test func instancesOfARecurringEventGetTheirOwnIdentifiers() {
        let base = EventKitEventFields(
            eventIdentifier: "EK3",
            calendarIdentifier: "cal",
            startDate: instant("2025-03-03T09:00:00Z"),
            endDate: instant("2025-03-03T09:15:00Z"),
            occurrenceDate: instant("2025-03-03T09:00:00Z"),
            isRecurring: true
        )
        var next = base
        next.startDate = instant("2025-03-04T09:00:00Z")
        next.endDate = instant("2025-03-04T09:15:00Z")
        next.occurrenceDate = instant("2025-03-04T09:00:00Z")
        let first = base.event(source: "apple-calendar", deviceTimeZone: utc)
        let second = next.event(source: "apple-calendar", deviceTimeZone: utc)
        #expect(first.id != second.id)
        #expect(first.seriesID == "EK3")
        #expect(second.seriesID == "EK3")
        #expect(first.title == "")
    }
}
