package import Foundation

extension GoogleCalendarClient {
    /// Decodes one `events.list` page as the client does, for benchmarks and tools.
    /// - Returns: The events (cancelled items left out) and the skipped ones.
    /// - Throws: ``CalendarError/decoding`` when the page is not the documented JSON.
    package static func decodeEventsPage(
        _ data: Data,
        source: CalendarSourceID,
        calendar: CalendarInfo
    ) throws -> CalendarEventBatch {
        let page: GoogleWire.EventsPage
        do {
            page = try JSONDecoder().decode(GoogleWire.EventsPage.self, from: data)
        } catch {
            throw CalendarError.decoding.with(message: "Not a Google events page", cause: error)
        }
        let (items, skipped) = GoogleEventMapping.map(page, source: source, calendar: calendar)
        var events: [CalendarEvent] = []
        for case .event(let event) in items { events.append(event) }
        return CalendarEventBatch(events: events, skipped: skipped, pages: 1)
    }
}

extension GraphCalendarClient {
    /// Decodes one `calendarView` or delta page as the client does, for benchmarks and tools.
    /// - Returns: The events (removed items left out) and the skipped ones.
    /// - Throws: ``CalendarError/decoding`` when the page is not the documented JSON.
    package static func decodeEventsPage(
        _ data: Data,
        source: CalendarSourceID,
        calendar: CalendarInfo
    ) throws -> CalendarEventBatch {
        let page: GraphWire.EventsPage
        do {
            page = try JSONDecoder().decode(GraphWire.EventsPage.self, from: data)
        } catch {
            throw CalendarError.decoding.with(message: "Not a Graph events page", cause: error)
        }
        let (items, skipped) = GraphEventMapping.map(page, source: source, calendar: calendar)
        var events: [CalendarEvent] = []
        for case .event(let event) in items { events.append(event) }
        return CalendarEventBatch(events: events, skipped: skipped, pages: 1)
    }
}
