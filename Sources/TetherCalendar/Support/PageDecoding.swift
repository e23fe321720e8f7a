public import Foundation

extension GoogleCalendarClient {
    /// Decodes one `events.list` page as the client does, for benchmarks and tools.
    /// - Parameters:
    ///   - data: The page's JSON.
    ///   - source: The source the events belong to.
    ///   - calendar: The calendar the page lists.
    /// - Returns: The events (cancelled items left out) and the skipped ones.
    /// - Throws: ``CalendarError/decoding`` when the page is not the documented JSON.
    public static func decodeEventsPage(
        _ data: Data,
        source: CalendarSourceID,
        calendar: CalendarInfo
    ) throws -> CalendarEventBatch {
        try .decoding(data, as: GoogleWire.EventsPage.self, notAPage: "Not a Google events page") {
            GoogleEventMapping.map($0, source: source, calendar: calendar)
        }
    }
}

extension GraphCalendarClient {
    /// Decodes one `calendarView` or delta page as the client does, for benchmarks and tools.
    /// - Parameters:
    ///   - data: The page's JSON.
    ///   - source: The source the events belong to.
    ///   - calendar: The calendar the page lists.
    /// - Returns: The events (removed items left out) and the skipped ones.
    /// - Throws: ``CalendarError/decoding`` when the page is not the documented JSON.
    public static func decodeEventsPage(
        _ data: Data,
        source: CalendarSourceID,
        calendar: CalendarInfo
    ) throws -> CalendarEventBatch {
        try .decoding(data, as: GraphWire.EventsPage.self, notAPage: "Not a Graph events page") {
            GraphEventMapping.map($0, source: source, calendar: calendar)
        }
    }
}
