import Foundation
import HTTPTypes
import Logging
import ProviderTestSupport
import Tether
import TetherCalendar
import TetherDevProvider
import TetherOAuth
import TetherTesting
import TetherURLSession

/// The development provider on 127.0.0.1 with its calendar APIs, an OAuth client for it, a vault and a manual
/// clock that drives the sessions, the backoff and the provider's idea of time.
struct CalendarHarness: Sendable {
    let provider: ProviderHarness

    static let googleScope = "https://www.googleapis.com/auth/calendar.readonly"
    static let graphScope = "Calendars.Read"

    static func start(
        _ configure: @Sendable (inout DevProvider.Configuration) -> Void = { _ in }
    ) async throws -> CalendarHarness {
        // Pages of a few hundred events are larger than the default 1 MiB response limit allows for.
        let transport = URLSessionTransport(configuration: HTTPTransportConfiguration(maximumResponseSize: 8 << 20))
        return CalendarHarness(
            provider: try await ProviderHarness.start(
                configure,
                transport: transport,
                folderPrefix: "tether-calendar-e2e"
            )
        )
    }

    var running: RunningDevProvider { provider.running }
    var clock: ManualClock { provider.clock }
    var transport: any HTTPTransport { provider.transport }
    var client: OAuthClient { provider.client }
    var directory: URL { provider.directory }
    var admin: DevProvider.Admin { running.admin }
    var googleBase: URL { running.issuer.appendingPathComponent("calendar/v3") }
    var graphBase: URL { running.issuer.appendingPathComponent("v1.0") }

    func cache() throws -> CalendarCache { try CalendarCache(vault: try provider.vault()) }

    /// Signs `username` in through the provider's sign-in page and keeps the connection in the vault.
    func signIn(_ username: String, password: String, scopes: [String], id: ConnectionID) async throws -> Session {
        let transport = self.transport
        let agent = DevProvider.SignInAgent(username: username, password: password, allows: true) { request, body in
            try await transport.send(request, body: body)
        }
        let presenter = ProgrammaticPresenter(redirectURI: URL(string: "http://127.0.0.1:45678/callback")!) { url in
            try await agent.authorize(url)
        }
        let result = try await client.signIn(using: presenter, scopes: ["openid", "email", "offline_access"] + scopes)
        let session = self.session(id)
        try await session.signIn(account: try result.account.orThrow(), tokens: result.tokens)
        return session
    }

    /// Signs ada in to her Google calendar, as connection `ada-google`.
    func signInAda() async throws -> Session {
        try await signIn("ada", password: "lovelace", scopes: [Self.googleScope], id: "ada-google")
    }

    /// Signs grace in to her Outlook calendar, as connection `grace-outlook`.
    func signInGrace() async throws -> Session {
        try await signIn("grace", password: "hopper", scopes: [Self.graphScope], id: "grace-outlook")
    }

    /// A session on the vault, as a new launch of the app would create it.
    func session(_ id: ConnectionID) -> Session {
        provider.session((try? provider.vault()) ?? MemoryStore(clock: clock), id: id)
    }

    func google(_ session: Session, pageSize: Int = 250, transport: (any HTTPTransport)? = nil) -> GoogleCalendarClient
    {
        GoogleCalendarClient(
            session: session,
            transport: transport ?? self.transport,
            configuration: GoogleCalendarClient.Configuration(baseURL: googleBase, pageSize: pageSize),
            clock: clock,
            logger: silent
        )
    }

    func graph(_ session: Session, pageSize: Int = 100, transport: (any HTTPTransport)? = nil) -> GraphCalendarClient {
        GraphCalendarClient(
            session: session,
            transport: transport ?? self.transport,
            configuration: GraphCalendarClient.Configuration(baseURL: graphBase, pageSize: pageSize),
            clock: clock,
            logger: silent
        )
    }

    /// Connections over `sources`, cached in the vault, in UTC, on the harness's clock.
    func connections(_ sources: any CalendarSource...) throws -> CalendarConnections {
        CalendarConnections(
            sources: sources,
            cache: try cache(),
            timeZone: utc,
            dateSource: clock.dateSource,
            logger: silent
        )
    }

    /// The seeded week and the next: the provider's calendar epoch onwards.
    func window(days: Int = 14) async -> DateInterval {
        DateInterval(start: await admin.calendarEpoch(), duration: Double(days) * 86_400)
    }

    func stop() async { await provider.stop() }
}

struct MissingValue: Error {}

extension Optional {
    func orThrow() throws -> Wrapped {
        guard let self else { throw MissingValue() }
        return self
    }
}

/// A transport that counts the requests it sends per path prefix, and can run a step before a given request.
final class CountingTransport: HTTPTransport, @unchecked Sendable {
    let base: any HTTPTransport
    private let lock = NSLock()
    private var paths: [String] = []
    private var beforeRequest: [Int: @Sendable () -> Void] = [:]

    init(_ base: any HTTPTransport) { self.base = base }

    /// Runs `step` just before the `number`th request (1-based) whose path contains `/events` or `calendarView`.
    func before(eventsRequest number: Int, _ step: @escaping @Sendable () -> Void) {
        lock.withLock { beforeRequest[number] = step }
    }

    func count(containing fragment: String) -> Int { lock.withLock { paths.filter { $0.contains(fragment) }.count } }

    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let path = request.path ?? ""
        let step: (@Sendable () -> Void)? = lock.withLock {
            paths.append(path)
            let isEvents = path.contains("/events") || path.contains("calendarView")
            let number = paths.filter { $0.contains("/events") || $0.contains("calendarView") }.count
            return isEvents ? beforeRequest.removeValue(forKey: number) : nil
        }
        step?()
        return try await base.send(request, body: body)
    }
}

/// Runs `operation`, advancing `clock` a second at a time whenever something sleeps on it, so that backoff
/// waits pass without real time. Returns the result and how much clock time passed.
func drive<T: Sendable>(
    _ clock: ManualClock,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> (T, Duration) {
    let start = clock.now
    let task = Task { try await operation() }
    let done = LockedFlag()
    let watcher = Task {
        _ = try? await task.value
        done.value = true
    }
    while !done.value {
        if clock.sleeperCount > 0 { clock.advance(by: .seconds(1)) } else { await Task.yield() }
    }
    await watcher.value
    return (try await task.value, start.duration(to: clock.now))
}
