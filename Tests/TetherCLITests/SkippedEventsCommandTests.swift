import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ProviderTestSupport
import SignInTestSupport
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// `tether calendar events` and `flights` say on standard error how many events of a source could not be read,
/// and with --verbose the field and type of each — never the event's content. The source is a stand-in for the
/// Google Calendar API on 127.0.0.1 (`--calendar-api`); the sign-in is the development provider's.
@Suite(.timeLimit(.minutes(3)))
struct SkippedEventsCommandTests {
    /// One readable flight and three events with fields of the wrong JSON type.
    static let page = """
        {"items": [
          {"id": "fine", "summary": "UA 857 SFO → PEK",
           "start": {"dateTime": "2026-03-02T10:00:00Z"}, "end": {"dateTime": "2026-03-02T21:00:00Z"}},
          {"id": "wrong-summary", "summary": 42,
           "start": {"dateTime": "2026-03-02T10:00:00Z"}, "end": {"dateTime": "2026-03-02T11:00:00Z"}},
          {"id": "wrong-start", "summary": "Secret title", "start": "tomorrow",
           "end": {"dateTime": "2026-03-02T11:00:00Z"}},
          {"id": "no-end", "summary": "Secret title", "start": {"dateTime": "2026-03-02T10:00:00Z"}}
        ], "nextSyncToken": "s1"}
        """

    @Test func eventsAndFlightsNameTheSkippedEventsOfASourceOnStandardError() async throws {
        let server = try await Self.startStandIn()
        defer { Task { await server.stop() } }
        let port = server.port
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let login = try await cli.loginWithDeviceCode([
            "login", "dev", "--issuer", cli.issuer, "--device", "--name", "work", "--calendar", "google",
            "--calendar-api", "http://127.0.0.1:\(port)/calendar/v3", "--scope",
            "openid email offline_access https://www.googleapis.com/auth/calendar.readonly",
        ])
        #expect(login.status == 0, "\(login.stderr)")
        let window = ["--from", "2026-03-01T00:00:00Z", "--to", "2026-03-31T00:00:00Z"]

        let events = try await cli.run(["calendar", "events"] + window)
        #expect(events.status == 0, "\(events.stderr)")
        #expect(events.stdout.contains("UA 857"))
        let lines = events.stderr.split(separator: "\n").map(String.init)
        #expect(lines == ["tether: 'work': 3 events skipped (2 malformed, 1 missing field)"], "\(events.stderr)")

        let verbose = try await cli.run(["calendar", "events", "--json", "--verbose"] + window)
        #expect(verbose.status == 0, "\(verbose.stderr)")
        let named = verbose.stderr.split(separator: "\n").filter { $0.hasPrefix("tether: 'work'") }
        #expect(
            named == [
                "tether: 'work': 3 events skipped (2 malformed, 1 missing field)",
                "tether: 'work': skipped an event: The event's 'summary' has the wrong type (expected a string)",
                "tether: 'work': skipped an event: The event's 'start' has the wrong type (expected an object)",
                "tether: 'work': skipped an event: The event lacks 'end'",
            ],
            "\(verbose.stderr)"
        )
        // JSON alone on standard output.
        #expect(try JSONSerialization.jsonObject(with: Data(verbose.stdout.utf8)) is [String: Any])

        let flights = try await cli.run(["calendar", "flights"] + window)
        #expect(flights.status == 0, "\(flights.stderr)")
        #expect(flights.stdout.contains("UA857") || flights.stdout.contains("UA 857"), "\(flights.stdout)")
        #expect(flights.stderr.contains("tether: 'work': 3 events skipped"), "\(flights.stderr)")

        for result in [events, verbose, flights] {
            // The debug log lines of --verbose hold ports and times; the lines of tether's own are checked.
            for line in result.stderr.split(separator: "\n") where line.hasPrefix("tether:") {
                for content in ["42", "tomorrow", "Secret"] { #expect(!line.contains(content), "\(line)") }
            }
        }
    }

    /// The stand-in: one primary calendar whose full read is ``page`` and whose incremental reads change nothing.
    static func startStandIn() async throws -> LoopbackServer {
        let router = Router()
        router.get("/calendar/v3/users/me/calendarList") { _, _ in
            json(#"{"items":[{"id":"primary","summary":"Work","primary":true,"timeZone":"UTC"}]}"#)
        }
        router.get("/calendar/v3/calendars/primary/events") { request, _ in
            request.uri.queryParameters.get("syncToken") == nil
                ? json(page) : json(#"{"items":[],"nextSyncToken":"s2"}"#)
        }
        return try await LoopbackServer.start(router)
    }

    static func json(_ text: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }
}
