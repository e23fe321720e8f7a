import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ProviderTestSupport
import SignInTestSupport
import Testing
import Tether
import TetherDevProvider
import TetherHummingbird
import TetherOAuth
import TetherServer
import TetherURLSession

/// A resource server on 127.0.0.1:0: `GET /me` behind `BearerTokenMiddleware`, answering the token's subject.
enum ResourceServer {
    static func start(verifier: AccessTokenVerifier) async throws -> LoopbackServer {
        let router = Router(context: BearerRequestContext.self)
        router.add(middleware: BearerTokenMiddleware(verifier: verifier, realm: "story"))
        router.get("/me") { _, context -> String in context.verifiedToken?.subject ?? "" }
        return try await LoopbackServer.start(router)
    }
}

/// "401 an hour after sign-in", with two-second tokens standing in for one-hour ones, on the real clock: 10,000
/// requests from 50 concurrent tasks over many expiries see no 401, and the provider counts one refresh per expiry
/// (±1).
///
/// How the session schedules refreshes: a token is fresh until its expiry minus the leeway — 5 minutes, scaled down
/// to 25 % of the lifetime, so 0.5 s here — and the first caller after that refreshes once for everyone. So one
/// token serves 1.5 s, plus the time the refresh takes. The expected count follows that schedule: the test times
/// every refresh and counts the tokens that went stale while in use, rather than dividing the run's duration by
/// 1.5 s, which overcounts as soon as refreshes are slow (a loaded machine).
///
/// The resource server tolerates 1 s of clock skew because the provider's `exp` is whole seconds: `floor(iat) + 2`,
/// up to 1 s before the client's `receivedAt + expires_in`. With that second the server's deadline is never before
/// the client's idea of expiry minus the time the token response took to arrive, so the 0.5 s leeway is the margin
/// a request has to reach the server — as 5 minutes are for one-hour tokens. A request slower than that gets a 401
/// and `AuthorizedClient` refreshes and retries it once; a caller sees `unauthorized` only when the retry is refused
/// too. Every refusal is recorded on the wire with the token's age, and any failure is reported with its cause.
///
/// It needs the machine to itself (real clock, 0.5 s margin): CI runs it alone after the suite with
/// `TETHER_STORY_TEST=1 swift test --skip-build --filter StoryEndToEndTests`.
@Suite(
    .timeLimit(.minutes(2)),
    .enabled(
        if: ProcessInfo.processInfo.environment["TETHER_STORY_TEST"] == "1",
        "Set TETHER_STORY_TEST=1; run it alone"
    )
)
struct StoryEndToEndTests {
    @Test func tenThousandRequestsAcrossExpiriesSeeNoUnauthorizedAndOneRefreshPerExpiry() async throws {
        let lifetime = 2.0
        let skew = 1.0
        let running = try await DevProvider(
            DevProvider.Configuration(accessTokenLifetime: .seconds(2), accessTokenFormat: .jwt)
        ).start()
        let transport = URLSessionTransport()
        let discovered = try await running.discoverDevClient(transport: transport)
        let oauth = try OAuthClient(configuration: discovered, transport: transport, logger: ProviderHarness.silent)
        let resource = try await ResourceServer.start(
            verifier: .oidc(
                issuer: running.issuer.absoluteString,
                jwksURL: try #require(discovered.jwksURI),
                audience: running.issuer.absoluteString + "/resource",
                transport: transport,
                clockSkew: .seconds(skew),
                logger: ProviderHarness.silent
            )
        )
        defer {
            Task {
                await resource.stop()
                await running.stop()
            }
        }

        let signedIn = try await oauth.signIn(using: FormBrowser().presenter())
        let signInToken = try #require(TokenSpan(signedIn.tokens))
        let timeline = RefreshTimeline()
        let configuration = Session.Configuration()
        let session = Session(
            id: "story",
            store: MemoryStore(),
            refresher: TimedRefresher(base: oauth, timeline: timeline),
            revoker: oauth,
            configuration: configuration,
            logger: ProviderHarness.silent
        )
        try await session.signIn(account: try #require(signedIn.account), tokens: signedIn.tokens)
        let wire = WireLog()
        let client = AuthorizedClient(
            session: session,
            transport: RecordingTransport(base: transport, log: wire),
            logger: ProviderHarness.silent
        )
        let refreshesBefore = await running.admin.counters()[.refreshes]

        let tasks = 50
        let perTask = 200
        let started = Date()
        let clockStarted = ContinuousClock.now
        // Alone the run takes 20–30 s. Past this deadline no new request starts, so that an overloaded run ends with
        // its figures instead of meeting the suite's time limit, whose cancellation of in-flight URLSession requests
        // can deadlock FoundationNetworking on Linux (swift-corelibs-foundation#5412).
        let deadline = clockStarted + .seconds(90)
        let outcomes = await withTaskGroup(of: Outcomes.self) { group in
            for worker in 0..<tasks {
                group.addTask {
                    var outcomes = Outcomes()
                    for number in 0..<perTask {
                        guard ContinuousClock.now < deadline else {
                            outcomes.unsent += perTask - number
                            break
                        }
                        let id = "\(worker)-\(number)"
                        var request = HTTPRequest(method: .get, url: resource.base.appendingPathComponent("me"))
                        request.headerFields[RecordingTransport.requestID] = id
                        do {
                            let (response, body) = try await client.send(request)
                            if response.status == .ok, !body.isEmpty {
                                outcomes.successes += 1
                            } else {
                                outcomes.failures.append("\(id): HTTP \(response.status.code), \(body.count) bytes")
                            }
                        } catch let error as AuthorizedClientError where error == .unauthorized {
                            outcomes.unauthorized.append("\(id): \(Self.describe(error))")
                        } catch let error as AuthorizedClientError {
                            outcomes.failures.append("\(id): \(Self.describe(error))")
                        } catch {
                            outcomes.failures.append("\(id): \(error)")
                        }
                        // Spread the run over several token lifetimes.
                        try? await Task.sleep(for: .milliseconds(35))
                    }
                    return outcomes
                }
            }
            var total = Outcomes()
            for await outcomes in group { total.merge(outcomes) }
            return total
        }
        let elapsed = (ContinuousClock.now - clockStarted).seconds
        let ended = Date()
        // Every caller awaited its refresh, so none is in flight: the provider's count is final.
        let refreshes = await running.admin.counters()[.refreshes] - refreshesBefore
        let reuseDetections = await running.admin.counters()[.reuseDetections]

        let leeway = min(configuration.leeway.seconds, lifetime * configuration.maximumLeewayFraction)
        let schedule = RefreshSchedule(
            signInToken: signInToken,
            refreshes: timeline.entries,
            lifetime: lifetime,
            leeway: leeway,
            ended: ended
        )
        let report = StoryReport(
            elapsed: elapsed,
            started: started,
            skew: skew,
            schedule: schedule,
            outcomes: outcomes,
            wire: wire.snapshot
        )
        print(report.summary(providerRefreshes: refreshes))

        #expect(outcomes.unauthorized.count == 0, "\(report.unauthorizedDetails)")
        #expect(outcomes.failures.count == 0, "\(report.failureDetails)")
        #expect(outcomes.unsent == 0, "\(outcomes.unsent) requests not sent within 90 s")
        #expect(outcomes.successes == tasks * perTask)
        #expect(schedule.expiries >= 3, "the run spanned \(elapsed) s")
        #expect(
            abs(refreshes - schedule.expiries) <= 1,
            "\(refreshes) refreshes at the provider; expected \(schedule.expiries). \(report.scheduleDetails)"
        )
        #expect(reuseDetections == 0)
    }

    private static func describe(_ error: AuthorizedClientError) -> String {
        var parts = [error.message]
        if let status = error.httpStatus { parts.append("HTTP \(status)") }
        if let description = error.challenge?.errorDescription { parts.append("challenge: \(description)") }
        if let message = error.serverMessage { parts.append("server: \(message)") }
        if error.requiresSignIn { parts.append("requires sign-in") }
        if let cause = error.cause { parts.append("cause: \(cause)") }
        return parts.joined(separator: "; ")
    }
}

/// What the callers saw: successes, and one line per failed call.
private struct Outcomes: Sendable {
    var successes = 0
    var unauthorized: [String] = []
    var failures: [String] = []
    /// Requests not sent because the run's deadline passed.
    var unsent = 0

    mutating func merge(_ other: Outcomes) {
        successes += other.successes
        unsent += other.unsent
        unauthorized += other.unauthorized
        failures += other.failures
    }
}

/// An access token as the client knows it: when it arrived and when the client thinks it expires.
private struct TokenSpan: Sendable {
    let id: String
    let receivedAt: Date
    let expiresAt: Date

    init?(_ tokens: TokenSet) {
        guard let token = tokens.accessToken, let expiresAt = tokens.expiresAt else { return nil }
        self.id = JWTClaims(token.revealedValue)?.id ?? ""
        self.receivedAt = tokens.receivedAt
        self.expiresAt = expiresAt
    }
}

/// The `jti` and `exp` of a JWT access token, read without verification (the server verified it).
private struct JWTClaims {
    let id: String
    let expiresAt: Date

    init?(_ token: String) {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let id = object["jti"] as? String, let exp = object["exp"] as? Int
        else { return nil }
        self.id = id
        self.expiresAt = Date(timeIntervalSince1970: TimeInterval(exp))
    }
}

/// One call of the session's refresher: when it started, which token it replaced, and what it got.
private struct RefreshEntry: Sendable {
    let started: Date
    let replaced: TokenSpan?
    var finished: Date?
    var issued: TokenSpan?
    var failure: String?
}

/// The refresh calls, in the order they started.
private final class RefreshTimeline: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [RefreshEntry] = []

    var entries: [RefreshEntry] { lock.withLock { recorded } }

    func start(replacing tokens: TokenSet) -> Int {
        let entry = RefreshEntry(started: Date(), replaced: TokenSpan(tokens))
        return lock.withLock {
            recorded.append(entry)
            return recorded.count - 1
        }
    }

    func finish(_ index: Int, issued: TokenSpan?, failure: String?) {
        let now = Date()
        lock.withLock {
            recorded[index].finished = now
            recorded[index].issued = issued
            recorded[index].failure = failure
        }
    }
}

/// Times the session's refreshes. The session anchors the new token at the moment the response returns, as this
/// wrapper does, so the spans it records are the session's own (to within a few microseconds).
private struct TimedRefresher: TokenRefresher {
    let base: any TokenRefresher
    let timeline: RefreshTimeline

    func refresh(_ request: RefreshRequest) async throws -> TokenResponse {
        let index = timeline.start(replacing: request.tokens)
        do {
            let response = try await base.refresh(request)
            timeline.finish(index, issued: TokenSpan(TokenSet(response, receivedAt: Date())), failure: nil)
            return response
        } catch {
            timeline.finish(index, issued: nil, failure: "\(error)")
            throw error
        }
    }
}

/// The expiries of the run, derived from the refresh timeline and the session's leeway.
private struct RefreshSchedule {
    /// Tokens whose fresh time ran out while they were in use: refreshed at or after expiry minus leeway, plus
    /// the last token if it went stale before the end (nobody needed it refreshed then: the "±1").
    let expiries: Int
    /// Tokens refreshed before they went stale: only a 401 (`forceRefresh`) does that.
    let early: Int
    /// Refresher calls, failed ones included.
    let calls: Int
    let failedCalls: [String]
    /// Whether the last token went stale before the run ended.
    let lastWentStale: Bool
    /// From the moment a token went stale to the start of its refresh: how long until a caller noticed.
    let noticeDelays: [Double]
    /// How long each refresh took at the provider, as the client saw it.
    let durations: [Double]
    /// The tokens in the order they were issued, the sign-in token first.
    let tokens: [TokenSpan]
    let lifetime: Double
    let leeway: Double

    init(signInToken: TokenSpan, refreshes: [RefreshEntry], lifetime: Double, leeway: Double, ended: Date) {
        var expiries = 0
        var early = 0
        var replaced: Set<String> = []
        var noticeDelays: [Double] = []
        for entry in refreshes {
            // A failed attempt is retried for the same token: one expiry, however many attempts.
            guard let token = entry.replaced, replaced.insert(token.id).inserted else { continue }
            let staleAt = token.expiresAt.addingTimeInterval(-leeway)
            if entry.started >= staleAt {
                expiries += 1
                noticeDelays.append(entry.started.timeIntervalSince(staleAt))
            } else {
                early += 1
            }
        }
        let tokens = [signInToken] + refreshes.compactMap(\.issued)
        let last = tokens.max { $0.receivedAt < $1.receivedAt } ?? signInToken
        lastWentStale = last.expiresAt.addingTimeInterval(-leeway) < ended
        self.expiries = expiries + (lastWentStale ? 1 : 0)
        self.early = early
        self.calls = refreshes.count
        self.failedCalls = refreshes.compactMap(\.failure)
        self.noticeDelays = noticeDelays
        self.durations = refreshes.compactMap { entry in entry.finished.map { $0.timeIntervalSince(entry.started) } }
        self.tokens = tokens
        self.lifetime = lifetime
        self.leeway = leeway
    }
}

/// A response the resource server refused with 401, as seen on the wire.
private struct Refusal: Sendable {
    let requestID: String
    let attempt: Int
    let sent: Date
    let latency: Double
    let tokenID: String?
    let tokenExpiresAt: Date?
    let reason: String
}

/// What crossed the wire to the resource server.
private struct WireSnapshot: Sendable {
    var latencies: [Double] = []
    var statuses: [Int: Int] = [:]
    var refusals: [Refusal] = []
}

private final class WireLog: @unchecked Sendable {
    private let lock = NSLock()
    private var attempts: [String: Int] = [:]
    private var recorded = WireSnapshot()

    var snapshot: WireSnapshot { lock.withLock { recorded } }

    func attempt(_ requestID: String) -> Int {
        lock.withLock {
            attempts[requestID, default: 0] += 1
            return attempts[requestID, default: 0]
        }
    }

    func record(status: Int, latency: Double, refusal: Refusal?) {
        lock.withLock {
            recorded.latencies.append(latency)
            recorded.statuses[status, default: 0] += 1
            if let refusal { recorded.refusals.append(refusal) }
        }
    }
}

/// Forwards to a transport, timing every response and keeping the details of every 401: which attempt of which
/// caller's request, the token's `jti` and `exp`, and the server's reason. Tokens themselves are not kept.
private struct RecordingTransport: HTTPTransport {
    static let requestID = HTTPField.Name("x-story-request")!

    let base: any HTTPTransport
    let log: WireLog

    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let requestID = request.headerFields[Self.requestID] ?? "?"
        let attempt = log.attempt(requestID)
        let sent = Date()
        let start = ContinuousClock.now
        let (response, data) = try await base.send(request, body: body)
        let latency = (ContinuousClock.now - start).seconds
        var refusal: Refusal?
        if response.status == .unauthorized {
            let bearer = request.headerFields[.authorization].map { String($0.dropFirst("Bearer ".count)) }
            let claims = bearer.flatMap(JWTClaims.init)
            let challenge = response.headerFields[values: .wwwAuthenticate].flatMap(AuthenticationChallenge.parse)
            refusal = Refusal(
                requestID: requestID,
                attempt: attempt,
                sent: sent,
                latency: latency,
                tokenID: claims?.id,
                tokenExpiresAt: claims?.expiresAt,
                reason: challenge.first?.errorDescription ?? challenge.first?.error ?? "no challenge"
            )
        }
        log.record(status: response.status.code, latency: latency, refusal: refusal)
        return (response, data)
    }
}

/// The figures of a run, and the causes of whatever went wrong.
private struct StoryReport {
    let elapsed: Double
    let started: Date
    let skew: Double
    let schedule: RefreshSchedule
    let outcomes: Outcomes
    let wire: WireSnapshot

    func summary(providerRefreshes: Int) -> String {
        let latencies = wire.latencies.sorted()
        let statuses = wire.statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        var lines = [
            "Story: \(latencies.count) responses in \(Self.format(elapsed)) s (\(statuses.joined(separator: ", "))); "
                + "callers saw \(outcomes.unauthorized.count) unauthorized, \(outcomes.failures.count) other failures, "
                + "\(outcomes.unsent) not sent by the deadline",
            "  latency p50 \(Self.milliseconds(latencies, 0.5)), p99 \(Self.milliseconds(latencies, 0.99)), "
                + "max \(Self.milliseconds(latencies, 1))",
            "  refreshes at the provider \(providerRefreshes), expected \(schedule.expiries) (±1). \(scheduleDetails)",
        ]
        if !wire.refusals.isEmpty {
            lines.append("  401s on the wire (a first attempt is retried once after a refresh):")
            lines += wire.refusals.prefix(10).map { "    " + describe($0) }
        }
        return lines.joined(separator: "\n")
    }

    var scheduleDetails: String {
        let freshFor = schedule.lifetime - schedule.leeway
        var text =
            "Expiries: \(schedule.expiries) (last token stale at the end: \(schedule.lastWentStale ? "yes" : "no")); "
            + "early refreshes: \(schedule.early); refresher calls: \(schedule.calls); "
            + "at most \(Int(elapsed / freshFor) + 1) by the clock (one per \(freshFor) s); "
            + "stale to refresh: mean \(Self.milliseconds(mean: schedule.noticeDelays)), max "
            + "\(Self.milliseconds(schedule.noticeDelays.sorted(), 1)); refresh took: mean "
            + "\(Self.milliseconds(mean: schedule.durations)), max \(Self.milliseconds(schedule.durations.sorted(), 1))"
        if !schedule.failedCalls.isEmpty {
            text += "; failed refreshes: " + schedule.failedCalls.prefix(5).joined(separator: " | ")
        }
        return text
    }

    var unauthorizedDetails: String { details(outcomes.unauthorized) }

    var failureDetails: String { details(outcomes.failures) }

    /// Each failed call with the 401s its request met on the wire.
    private func details(_ lines: [String]) -> String {
        lines.prefix(5).map { line in
            let requestID = String(line.prefix { $0 != ":" })
            let refusals = wire.refusals.filter { $0.requestID == requestID }.map { "\n    " + describe($0) }
            return line + refusals.joined()
        }.joined(separator: "\n")
    }

    /// When the token was sent and answered, against the client's and the server's idea of its lifetime.
    private func describe(_ refusal: Refusal) -> String {
        var text =
            "\(refusal.requestID) attempt \(refusal.attempt), sent at \(Self.format(refusal.sent, from: started)) s, "
            + "answered after \(Self.format(refusal.latency)) s: \(refusal.reason)"
        guard let index = schedule.tokens.firstIndex(where: { $0.id == refusal.tokenID }) else {
            return text + "; token unknown"
        }
        let token = schedule.tokens[index]
        text +=
            "; token #\(index) received at \(Self.format(token.receivedAt, from: started)) s, "
            + "sent \(Self.format(refusal.sent, from: token.receivedAt)) s after receipt "
            + "(stale at \(Self.format(token.expiresAt.addingTimeInterval(-schedule.leeway), from: token.receivedAt)), "
            + "expired for the client at \(Self.format(token.expiresAt, from: token.receivedAt))"
        if let exp = refusal.tokenExpiresAt {
            text += ", refused by the server after \(Self.format(exp.addingTimeInterval(skew), from: token.receivedAt))"
        }
        return text + ")"
    }

    private static func format(_ seconds: Double) -> String { String(format: "%.3f", seconds) }

    private static func format(_ date: Date, from origin: Date) -> String { format(date.timeIntervalSince(origin)) }

    private static func milliseconds(_ sorted: [Double], _ quantile: Double) -> String {
        guard !sorted.isEmpty else { return "-" }
        let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * quantile).rounded(.up)))
        return String(format: "%.0f ms", sorted[index] * 1000)
    }

    private static func milliseconds(mean values: [Double]) -> String {
        guard !values.isEmpty else { return "-" }
        return String(format: "%.0f ms", values.reduce(0, +) / Double(values.count) * 1000)
    }
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
