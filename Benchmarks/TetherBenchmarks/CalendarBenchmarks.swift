import Foundation
import Logging
import Tether
import TetherCalendar
import TetherDevProvider
import TetherOAuth
import TetherURLSession

/// Calendar decoding throughput, and syncs against the development provider's calendar APIs on 127.0.0.1.
enum CalendarBenchmarks {
    static func run(scale: Int) async throws {
        try decoding(pages: 200 / scale)
        try await loopback(runs: max(20 / scale, 3))
    }

    /// A full sync of 5,000 events and an incremental sync with one change, for each API, against the development
    /// provider on 127.0.0.1 (URLSession transport, default page sizes: 250 for Google, 100 for Graph).
    static func loopback(runs: Int) async throws {
        let silent = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
        let running = try await DevProvider().start()
        defer { Task { await running.stop() } }
        let transport = URLSessionTransport(configuration: HTTPTransportConfiguration(maximumResponseSize: 8 << 20))
        let configuration = try await ProviderConfiguration.discover(
            issuer: running.issuer.absoluteString,
            clientID: "tether-dev-client",
            redirectURI: URL(string: "http://127.0.0.1:40000/callback"),
            providerID: "dev",
            transport: transport
        )
        let client = try OAuthClient(configuration: configuration, transport: transport, logger: silent)
        let epoch = await running.admin.calendarEpoch()
        let window = DateInterval(start: epoch, duration: 110 * 86_400)
        let clock = ContinuousClock()
        let users: [(String, String, String, CalendarSourceKind)] = [
            ("ada", "lovelace", "https://www.googleapis.com/auth/calendar.readonly", .google),
            ("grace", "hopper", "Calendars.Read", .microsoft),
        ]
        for (username, password, scope, kind) in users {
            let agent = DevProvider.SignInAgent(username: username, password: password, allows: true) { request, body in
                try await transport.send(request, body: body)
            }
            let presenter = ProgrammaticPresenter(redirectURI: URL(string: "http://127.0.0.1:40000/callback")!) {
                try await agent.authorize($0)
            }
            let result = try await client.signIn(using: presenter, scopes: ["openid", "offline_access", scope])
            guard let account = result.account else { throw OAuthBenchmarks.BenchmarkError("no account") }
            let session = Session(id: ConnectionID(username), store: MemoryStore(), refresher: client, logger: silent)
            try await session.signIn(account: account, tokens: result.tokens)
            guard let primary = await running.admin.calendarIDs(ofUser: username).first else {
                throw OAuthBenchmarks.BenchmarkError("no calendar")
            }
            try await running.admin.generateCalendarEvents(5_000, user: username, calendar: primary, start: epoch)
            let source: any CalendarSource
            switch kind {
            case .google:
                source = GoogleCalendarClient(
                    session: session,
                    transport: transport,
                    configuration: GoogleCalendarClient.Configuration(
                        baseURL: running.issuer.appendingPathComponent("calendar/v3")
                    ),
                    logger: silent
                )
            default:
                source = GraphCalendarClient(
                    session: session,
                    transport: transport,
                    configuration: GraphCalendarClient.Configuration(
                        baseURL: running.issuer.appendingPathComponent("v1.0")
                    ),
                    logger: silent
                )
            }
            var full: [Double] = []
            var state = CalendarSyncState()
            for _ in 0..<runs {
                let start = clock.now
                let outcome = try await source.sync(window: window)
                full.append(Benchmarks.nanoseconds(clock.now - start) / 1e6)
                guard outcome.state.allEvents.count >= 5_000 else {
                    throw OAuthBenchmarks.BenchmarkError("the full sync missed events")
                }
                state = outcome.state
            }
            let changed = state.allEvents.first { $0.title.hasPrefix("Generated event") }?.id ?? ""
            var incremental: [Double] = []
            for index in 0..<runs {
                try await running.admin.updateCalendarEvent(id: changed) { $0.summary = "Changed \(index)" }
                let start = clock.now
                let outcome = try await source.sync(from: state, window: window, calendars: nil)
                incremental.append(Benchmarks.nanoseconds(clock.now - start) / 1e6)
                guard outcome.modes.values.contains(.incremental) else {
                    throw OAuthBenchmarks.BenchmarkError("the sync was not incremental")
                }
                state = outcome.state
            }
            let name = kind == .google ? "Google (sync token)" : "Graph (delta link)"
            Benchmarks.report("\(name): full sync of 5,000+ events on loopback", full, unit: "ms")
            Benchmarks.report("\(name): incremental sync, one change, on loopback", incremental, unit: "ms")
        }
    }

    /// A Google `events.list` page of `count` events: timed with offsets, all-day, recurring instances, HTML
    /// descriptions — the mix the development provider seeds.
    static func googlePage(_ count: Int) -> Data {
        var items: [String] = []
        for index in 0..<count {
            let day = 1 + index % 28
            let dd = day < 10 ? "0\(day)" : "\(day)"
            let next = day + 1 < 10 ? "0\(day + 1)" : "\(day + 1)"
            switch index % 4 {
            case 0:
                items.append(
                    #"{"kind":"calendar#event","id":"ev\#(index)","status":"confirmed","summary":"Design review \#(index)","location":"Room 4.12","start":{"dateTime":"2025-03-\#(dd)T10:00:00+01:00","timeZone":"Europe/Berlin"},"end":{"dateTime":"2025-03-\#(dd)T11:00:00+01:00","timeZone":"Europe/Berlin"},"updated":"2025-02-27T16:40:02.311Z","htmlLink":"https://www.google.com/calendar/event?eid=ev\#(index)","organizer":{"email":"bob@example.com","displayName":"Bob"}}"#
                )
            case 1:
                items.append(
                    #"{"kind":"calendar#event","id":"ev\#(index)","status":"confirmed","summary":"Offsite","start":{"date":"2025-03-\#(dd)"},"end":{"date":"2025-03-\#(next)"}}"#
                )
            case 2:
                items.append(
                    #"{"kind":"calendar#event","id":"weekly_\#(index)","status":"confirmed","summary":"Standup","recurringEventId":"weekly","start":{"dateTime":"2025-03-\#(dd)T09:00:00-05:00","timeZone":"America/New_York"},"end":{"dateTime":"2025-03-\#(dd)T09:15:00-05:00","timeZone":"America/New_York"}}"#
                )
            default:
                items.append(
                    #"{"kind":"calendar#event","id":"ev\#(index)","status":"tentative","summary":"Flight UA 857","description":"Confirmation <b>ABC123</b><br>Departure SFO 11:25 &amp; arrival PEK","start":{"dateTime":"2025-03-\#(dd)T11:25:00-08:00"},"end":{"dateTime":"2025-03-\#(dd)T23:55:00-08:00"}}"#
                )
            }
        }
        return Data(
            #"{"kind":"calendar#events","timeZone":"Europe/Berlin","items":[\#(items.joined(separator: ","))]}"#.utf8
        )
    }

    /// A Graph `calendarView` page of `count` events in UTC, with Windows zone names and HTML bodies.
    static func graphPage(_ count: Int) -> Data {
        var items: [String] = []
        for index in 0..<count {
            let day = 1 + index % 28
            let dd = day < 10 ? "0\(day)" : "\(day)"
            let next = day + 1 < 10 ? "0\(day + 1)" : "\(day + 1)"
            let allDay = index % 4 == 1
            let start = allDay ? "2025-03-\(dd)T00:00:00.0000000" : "2025-03-\(dd)T09:00:00.0000000"
            let end = allDay ? "2025-03-\(next)T00:00:00.0000000" : "2025-03-\(dd)T10:00:00.0000000"
            items.append(
                #"{"id":"AAMk\#(index)=","subject":"Design review \#(index)","isAllDay":\#(allDay),"isCancelled":false,"showAs":"busy","start":{"dateTime":"\#(start)","timeZone":"UTC"},"end":{"dateTime":"\#(end)","timeZone":"UTC"},"originalStartTimeZone":"W. Europe Standard Time","location":{"displayName":"Room 4.12"},"organizer":{"emailAddress":{"name":"Grace","address":"grace@example.com"}},"body":{"contentType":"html","content":"<html><head><style>p{margin:0}</style></head><body><p>Agenda&nbsp;for&nbsp;today</p><p>Q1 &amp; Q2<br>numbers</p></body></html>"},"lastModifiedDateTime":"2025-02-27T16:40:02.3110000Z","webLink":"https://outlook.office365.com/owa/?itemid=\#(index)"}"#
            )
        }
        return Data(#"{"value":[\#(items.joined(separator: ","))]}"#.utf8)
    }

    static func decoding(pages: Int) throws {
        let clock = ContinuousClock()
        let calendar = CalendarInfo(id: "primary", name: "Bench", isPrimary: true)
        let google = googlePage(250)
        let graph = graphPage(100)
        var googleRates: [Double] = []
        var graphRates: [Double] = []
        for _ in 0..<max(pages, 5) {
            var start = clock.now
            let googleBatch = try GoogleCalendarClient.decodeEventsPage(google, source: "bench", calendar: calendar)
            googleRates.append(Double(googleBatch.events.count) / (Benchmarks.nanoseconds(clock.now - start) / 1e9))
            start = clock.now
            let graphBatch = try GraphCalendarClient.decodeEventsPage(graph, source: "bench", calendar: calendar)
            graphRates.append(Double(graphBatch.events.count) / (Benchmarks.nanoseconds(clock.now - start) / 1e9))
            guard googleBatch.skipped.isEmpty, graphBatch.skipped.isEmpty else {
                throw OAuthBenchmarks.BenchmarkError("the benchmark pages have skipped events")
            }
        }
        Benchmarks.report(
            "Google events decoded per second (pages of 250: JSON, dates, zones, HTML descriptions)",
            googleRates,
            unit: "/s"
        )
        Benchmarks.report(
            "Graph events decoded per second (pages of 100: JSON, Windows zones, HTML bodies to text)",
            graphRates,
            unit: "/s"
        )
    }
}
