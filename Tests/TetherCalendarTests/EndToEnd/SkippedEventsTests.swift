import Foundation
import Testing
import Tether

@testable import TetherCalendar

/// Events whose fields have the wrong JSON type are counted per source, with the field and the type expected —
/// never their content — and stay counted through incremental syncs and the cache until they are read again.
@Suite(.timeLimit(.minutes(2)))
struct SkippedEventsTests {
    static let fullPage = """
        {"items": [
          \(HostileCalendarServer.googleEvent("fine")),
          {"id": "wrong-summary", "summary": 42,
           "start": {"dateTime": "2026-03-02T10:00:00Z"}, "end": {"dateTime": "2026-03-02T11:00:00Z"}},
          {"id": "wrong-start", "summary": "Secret title", "start": "tomorrow",
           "end": {"dateTime": "2026-03-02T11:00:00Z"}},
          {"id": "wrong-organizer", "summary": "Secret title", "organizer": ["bob@example.com"],
           "start": {"dateTime": "2026-03-02T10:00:00Z"}, "end": {"dateTime": "2026-03-02T11:00:00Z"}}
        ], "nextSyncToken": "s1"}
        """

    /// The next round: `wrong-summary` comes back readable.
    static let changesPage = """
        {"items": [\(HostileCalendarServer.googleEvent("wrong-summary", summary: "Mended"))], "nextSyncToken": "s2"}
        """

    @Test func wrongTypesAreCountedWithFieldAndTypeAndStayCountedUntilReadAgain() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let server = try await HostileCalendarServer.start { _, query in
            query["syncToken"] == nil ? Self.fullPage : Self.changesPage
        }
        defer { Task { await server.stop() } }
        let ada = try await harness.signInAda()
        let window = HostileCalendarServer.window

        let first = try await harness.connections(server.google(ada, id: "work")).fetch(window: window)
        let report = try #require(first.report(for: "work"))
        #expect(report.served == .fresh)
        #expect(first.events.map(\.id) == ["fine"])
        #expect(report.skipped.count == 3)
        let reasons = Dictionary(uniqueKeysWithValues: report.skipped.map { ($0.eventID ?? "", $0.reason) })
        #expect(reasons["wrong-summary"]?.field == "summary")
        #expect(reasons["wrong-summary"]?.expectedType == "a string")
        #expect(reasons["wrong-start"]?.field == "start")
        #expect(reasons["wrong-start"]?.expectedType == "an object")
        #expect(reasons["wrong-organizer"]?.field == "organizer")
        #expect(reasons["wrong-organizer"]?.expectedType == "an object")
        #expect(report.skipped.allSatisfy { $0.reason == .malformedEvent && $0.source == "work" })
        #expect(reasons["wrong-summary"]?.message == "The event's 'summary' has the wrong type (expected a string)")
        // No content of the events in a reason.
        for record in report.skipped {
            for content in ["42", "tomorrow", "Secret", "bob"] {
                #expect(!record.reason.message.contains(content) && !record.description.contains(content))
            }
        }

        // The next sync is incremental: what is still unreadable stays counted, what was mended is not.
        let connections = try harness.connections(server.google(ada, id: "work"))
        let second = await connections.fetch(window: window)
        let again = try #require(second.report(for: "work"))
        #expect(again.modes["primary"] == .incremental)
        #expect(Set(again.skipped.compactMap(\.eventID)) == ["wrong-start", "wrong-organizer"])
        #expect(Set(second.events.map(\.title)) == ["Meeting", "Mended"])

        // The next launch shows the same from the cache, before any network.
        let cached = try await harness.connections(server.google(ada, id: "work")).loadCached(window: window)
        let stale = try #require(cached.report(for: "work"))
        #expect(stale.served == .cache)
        #expect(Set(stale.skipped.compactMap(\.eventID)) == ["wrong-start", "wrong-organizer"])
        #expect(stale.skipped.first?.reason.expectedType == "an object")
    }

    @Test func aSkippedEventRoundTripsThroughTheCacheFormat() throws {
        let record = SkippedEvent(
            source: "work",
            calendarID: "primary",
            eventID: "e1",
            reason: Lossy<Int>.describe(
                DecodingError.typeMismatch(
                    String.self,
                    DecodingError.Context(codingPath: [], debugDescription: "")
                )
            )
        )
        let decoded = try JSONDecoder().decode(SkippedEvent.self, from: JSONEncoder().encode(record))
        #expect(decoded == record)
        #expect(decoded.reason.expectedType == "a string")
        // A calendar state written before skipped events were kept still reads.
        let old = #"{"info":{"id":"primary","name":"P","isPrimary":true},"events":{}}"#
        let state = try JSONDecoder().decode(CalendarSyncState.Calendar.self, from: Data(old.utf8))
        #expect(state.skipped.isEmpty)
    }
}
