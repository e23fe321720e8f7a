import Foundation
import Logging
import Tether

@testable import TetherCalendar

let silent = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
let utc = TimeZone(identifier: "UTC")!

/// Parses an RFC 3339 instant in a test; fails the test on a typo.
func instant(_ text: String) -> Date {
    guard let date = DateParsing.rfc3339(text) else { fatalError("not RFC 3339: \(text)") }
    return date
}

func day(_ text: String) -> CalendarDay {
    guard let day = CalendarDay(text) else { fatalError("not yyyy-mm-dd: \(text)") }
    return day
}

func decodeGoogle(
    _ json: String,
    calendar: CalendarInfo = CalendarInfo(id: "primary", name: "Ada")
) throws -> ([GoogleEventMapping.Item], [SkippedEvent]) {
    let page = try GoogleWire.EventsPage(scanning: Data(json.utf8))
    return GoogleEventMapping.map(page, source: "google", calendar: calendar)
}

func decodeGraph(
    _ json: String,
    calendar: CalendarInfo = CalendarInfo(id: "cal", name: "Calendar", isPrimary: true)
) throws -> ([GraphEventMapping.Item], [SkippedEvent]) {
    let page = try JSONDecoder().decode(GraphWire.EventsPage.self, from: Data(json.utf8))
    return GraphEventMapping.map(page, source: "outlook", calendar: calendar)
}

extension CalendarPageItem {
    var event: CalendarEvent? {
        if case .event(let event) = self { return event }
        return nil
    }
    var removedID: String? {
        if case .removed(let id) = self { return id }
        return nil
    }
}
