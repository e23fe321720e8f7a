import Foundation
import Tether

@testable import TetherCalendar

/// A calendar source whose status and sync are closures: for the connections' own logic.
struct StubSource: CalendarSource {
    let id: CalendarSourceID
    let kind: CalendarSourceKind
    let status: CalendarSourceStatus
    let outcome: @Sendable (CalendarSyncState, DateInterval) async throws -> CalendarSyncOutcome

    func accessStatus() async -> CalendarSourceStatus { status }
    func calendars() async throws -> [CalendarInfo] { [CalendarInfo(id: "main", name: "Main", isPrimary: true)] }
    func sync(
        from state: CalendarSyncState,
        window: DateInterval,
        calendars: Set<String>?
    ) async throws
        -> CalendarSyncOutcome
    { try await outcome(state, window) }

    static func event(_ id: String, source: CalendarSourceID, at start: String) -> CalendarEvent {
        let date = instant(start)
        return CalendarEvent(
            id: id,
            source: source,
            calendarID: "main",
            title: id,
            timing: .timed(start: date, end: date.addingTimeInterval(3600))
        )
    }

    static func state(_ events: [CalendarEvent]) -> CalendarSyncState {
        CalendarSyncState(calendars: [
            "main": CalendarSyncState.Calendar(
                info: CalendarInfo(id: "main", name: "Main", isPrimary: true),
                events: Dictionary(uniqueKeysWithValues: events.map { ($0.id, $0) })
            )
        ])
    }

    /// Loads `events`, connected.
    static func loading(_ id: CalendarSourceID, kind: CalendarSourceKind = .google, _ events: [String]) -> StubSource {
        StubSource(id: id, kind: kind, status: .connected(account: nil)) { _, _ in
            CalendarSyncOutcome(state: state(events.map { event($0, source: id, at: "2025-03-03T09:00:00Z") }))
        }
    }

    /// Fails with `error`; its sign-in says `status`.
    static func failing(
        _ id: CalendarSourceID,
        kind: CalendarSourceKind = .google,
        with error: CalendarError,
        status: CalendarSourceStatus = .connected(account: nil)
    ) -> StubSource {
        StubSource(id: id, kind: kind, status: status) { _, _ in throw error }
    }
}
