import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ProviderTestSupport
import Tether
import TetherCalendar
import TetherURLSession

/// A stand-in for the Google Calendar API v3 and Microsoft Graph on 127.0.0.1 that answers events pages as a test
/// tells it to — a page token that never changes, links that never end, events with fields of the wrong type —
/// and counts the events requests it saw.
struct HostileCalendarServer: Sendable {
    /// What one events request is answered with: its page number (0 for the first) and query → the JSON body.
    typealias Pages = @Sendable (_ page: Int, _ query: [String: String]) -> String

    let server: LoopbackServer
    private let counter: LockedState<Int>

    /// Events requests seen (Google `events`, Graph `calendarView` and `delta`).
    var eventsRequests: Int { counter.withLock { $0 } }
    var googleBase: URL { server.base.appendingPathComponent("calendar/v3") }
    var graphBase: URL { server.base.appendingPathComponent("v1.0") }

    /// Starts a stand-in serving one primary calendar with `pages`; the page number comes from Google's
    /// `pageToken` or Graph's `page` query item when it is a number, and counts up otherwise.
    static func start(_ pages: @escaping Pages) async throws -> HostileCalendarServer {
        let counter = LockedState(0)
        let router = Router()
        router.get("/calendar/v3/users/me/calendarList") { _, _ in
            json(#"{"items":[{"id":"primary","summary":"Stand-in","primary":true,"timeZone":"UTC"}]}"#)
        }
        router.get("/v1.0/me/calendars") { _, _ in
            json(#"{"value":[{"id":"default","name":"Stand-in","isDefaultCalendar":true}]}"#)
        }
        let answer: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let seen = counter.withLock { count in
                count += 1
                return count
            }
            var query: [String: String] = [:]
            for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
            query["host"] = request.head.authority ?? ""
            let page = (query["pageToken"] ?? query["page"]).flatMap(Int.init) ?? (seen - 1)
            return json(pages(page, query))
        }
        router.get("/calendar/v3/calendars/primary/events", use: answer)
        router.get("/v1.0/me/calendarView", use: answer)
        router.get("/v1.0/me/calendarView/delta", use: answer)
        return HostileCalendarServer(server: try await LoopbackServer.start(router), counter: counter)
    }

    static func json(_ text: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }

    func stop() async { await server.stop() }

    /// A Google client named `id` reading the stand-in with `session`'s token.
    func google(_ session: Session, id: CalendarSourceID, maximumPages: Int = 2_000) -> GoogleCalendarClient {
        GoogleCalendarClient(
            session: session,
            transport: URLSessionTransport(),
            id: id,
            configuration: GoogleCalendarClient.Configuration(baseURL: googleBase, maximumPages: maximumPages),
            logger: silent
        )
    }

    /// A Graph client named `id` reading the stand-in with `session`'s token.
    func graph(_ session: Session, id: CalendarSourceID, maximumPages: Int = 2_000) -> GraphCalendarClient {
        GraphCalendarClient(
            session: session,
            transport: URLSessionTransport(),
            id: id,
            configuration: GraphCalendarClient.Configuration(baseURL: graphBase, maximumPages: maximumPages),
            logger: silent
        )
    }

    /// A timed Google event `id` on 2 March 2026, one hour.
    static func googleEvent(_ id: String, summary: String = "Meeting") -> String {
        #"{"id":"\#(id)","summary":"\#(summary)","start":{"dateTime":"2026-03-02T10:00:00Z"},"end":{"dateTime":"2026-03-02T11:00:00Z"}}"#
    }

    /// A Graph event `id` on 2 March 2026, one hour, in UTC.
    static func graphEvent(_ id: String) -> String {
        #"{"id":"\#(id)","subject":"Meeting","start":{"dateTime":"2026-03-02T10:00:00.0000000","timeZone":"UTC"},"end":{"dateTime":"2026-03-02T11:00:00.0000000","timeZone":"UTC"}}"#
    }

    /// The window the stand-in's events fall in: March 2026.
    static let window = DateInterval(start: instant("2026-03-01T00:00:00Z"), end: instant("2026-04-01T00:00:00Z"))
}
