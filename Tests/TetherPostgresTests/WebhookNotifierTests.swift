import Foundation
import HTTPTypes
import Hummingbird
import ProviderTestSupport
import Testing
import Tether
import TetherDevProvider
import TetherPostgres
import TetherTesting
import TetherURLSession

/// A webhook receiver on 127.0.0.1 that keeps every request, and answers with the statuses it is told to first.
final class WebhookReceiver: Sendable {
    struct Received: Sendable {
        let body: Data
        let signature: String?
        let idempotencyKey: String?
        let eventID: String?
        let retryAfterSent: Bool
    }

    private struct State {
        var received: [Received] = []
        var failures: [(HTTPResponse.Status, retryAfter: String?)] = []
    }

    private let server: LoopbackServer

    private init(server: LoopbackServer, state: LockedState<State>) {
        self.server = server
        self.stateBox = state
    }

    private let stateBox: LockedState<State>

    static func start() async throws -> WebhookReceiver {
        let state = LockedState(State())
        let router = Router()
        router.post("/hooks") { request, _ -> Response in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            let body = Data(buffer.readableBytesView)
            let fields = request.headers
            let answer = state.withLock { state -> (HTTPResponse.Status, String?) in
                let failure = state.failures.isEmpty ? nil : state.failures.removeFirst()
                state.received.append(
                    Received(
                        body: body,
                        signature: HTTPField.Name("Tether-Signature").flatMap { fields[$0] },
                        idempotencyKey: HTTPField.Name("Idempotency-Key").flatMap { fields[$0] },
                        eventID: HTTPField.Name("Tether-Event-ID").flatMap { fields[$0] },
                        retryAfterSent: failure?.retryAfter != nil
                    )
                )
                return failure.map { ($0.0, $0.retryAfter) } ?? (.ok, nil)
            }
            var headers = HTTPFields()
            if let retryAfter = answer.1 { headers[.retryAfter] = retryAfter }
            return Response(status: answer.0, headers: headers)
        }
        return WebhookReceiver(server: try await LoopbackServer.start(router), state: state)
    }

    var url: URL { server.base.appendingPathComponent("hooks") }

    /// The next requests are answered with these statuses, in order.
    func failNext(_ failures: [(HTTPResponse.Status, retryAfter: String?)]) {
        stateBox.withLock { $0.failures += failures }
    }

    var received: [Received] { stateBox.withLock { $0.received } }

    /// Waits until `count` requests came, at most `timeout`.
    func waitFor(_ count: Int, timeout: Duration = .seconds(10)) async throws -> [Received] {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            let received = self.received
            if received.count >= count { return received }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("\(received.count) webhook requests within \(timeout), expected \(count)")
        return received
    }

    func stop() async { await server.stop() }
}

/// Events a test delegate keeps.
actor RecordingDelegate: RefreshSchedulerDelegate {
    private(set) var events: [RefreshScheduler.Event] = []
    func refreshScheduler(didReport event: RefreshScheduler.Event) async { events.append(event) }
}

/// `RefreshScheduler`'s events, and `WebhookNotifier` sending them to a receiver on 127.0.0.1, against a real
/// PostgreSQL server and the development provider.
@Suite(
    .enabled(if: PostgresTestDatabase.isEnabled, PostgresTestDatabase.skipMessage),
    .timeLimit(.minutes(2))
)
struct WebhookNotifierTests {
    typealias Database = PostgresTestDatabase
    typealias Scheduling = RefreshSchedulerTests

    static let secret = WebhookSecret("whsec-test-secret")

    static func notifier(_ receiver: WebhookReceiver, backoff: Backoff? = nil) throws -> WebhookNotifier {
        try WebhookNotifier(
            configuration: .init(
                url: receiver.url,
                secret: secret,
                backoff: backoff ?? Backoff(maximumAttempts: 3, initialDelay: .milliseconds(10), jitter: 0)
            ),
            transport: URLSessionTransport(),
            logger: ProviderHarness.silent
        )
    }

    static let noTokens = TokenSet(accessToken: nil, receivedAt: Date(timeIntervalSince1970: 0), expiresAt: nil)

    static func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func signedPostsForNeedsSignInAndForRecovery() async throws {
        let harness = try await Scheduling.startProvider()
        defer { Task { await harness.stop() } }
        let receiver = try await WebhookReceiver.start()
        defer { Task { await receiver.stop() } }
        let notifier = try Self.notifier(receiver)
        let delivery = Task { try await notifier.run() }
        defer { delivery.cancel() }
        try await Database.withStore(tenant: Database.uniqueTenant(), key: .generate()) { store, _ in
            try await Scheduling.seed("ended", username: "grace", harness: harness, store: store)
            let grant = try #require(try await store.read("ended"))
            let scheduler = RefreshScheduler(
                store: store,
                refreshers: ["dev": harness.client],
                configuration: .init(session: Session.Configuration(retry: Backoff(maximumAttempts: 1, jitter: 0))),
                clock: harness.clock,
                dateSource: harness.clock.dateSource,
                delegate: notifier,
                logger: ProviderHarness.silent
            )
            await harness.running.admin.revokeGrants(ofUser: "grace")
            harness.clock.advance(by: Scheduling.step)
            #expect(await scheduler.runRound().endedGrants == 1)

            let first = try #require(try await receiver.waitFor(1).first)
            let signature = try #require(first.signature)
            try WebhookSignature.verify(payload: first.body, header: signature, secret: Self.secret, now: Date())
            let needs = try Self.json(first.body)
            #expect(needs["type"] as? String == "connection.needs_sign_in")
            #expect(needs["connection"] as? String == "ended")
            #expect(needs["provider"] as? String == "dev")
            #expect((needs["reason"] as? [String: Any])?["code"] as? String == SignInReason.grantRevoked.code)
            #expect(first.idempotencyKey == needs["id"] as? String)
            #expect(first.eventID == needs["id"] as? String)
            // No token of the grant, in any form.
            let text = String(decoding: first.body, as: UTF8.self)
            for token in [grant.tokens.accessToken?.revealedValue, grant.tokens.refreshToken?.revealedValue].compactMap(
                { $0 })
            {
                #expect(!text.contains(token))
            }
            // The body is signed as sent: one byte more and the signature no longer holds.
            #expect(throws: WebhookSignatureError.signatureMismatch) {
                try WebhookSignature.verify(
                    payload: first.body + Data(" ".utf8),
                    header: signature,
                    secret: Self.secret,
                    now: Date()
                )
            }

            // The next round reports nothing new; signing in again is reported as a recovery.
            _ = await scheduler.runRound()
            try await Scheduling.seed("ended", username: "grace", harness: harness, store: store, expecting: .any)
            _ = await scheduler.runRound()
            let both = try await receiver.waitFor(2)
            #expect(both.count == 2)
            let recovered = try Self.json(try #require(both.last).body)
            #expect(recovered["type"] as? String == "connection.recovered")
            #expect(recovered["recovered_from"] as? String == "needs_sign_in")
            #expect(recovered["connection"] as? String == "ended")
            #expect(recovered["id"] as? String != needs["id"] as? String)
            try WebhookSignature.verify(
                payload: try #require(both.last).body,
                header: try #require(both.last?.signature),
                secret: Self.secret,
                now: Date()
            )
        }
    }

    @Test func aSecondWorkerReportsTheSameChangeWithTheSameID() async throws {
        let harness = try await Scheduling.startProvider()
        defer { Task { await harness.stop() } }
        try await Database.withStore(tenant: Database.uniqueTenant(), key: .generate()) { store, _ in
            try await Scheduling.seed("ended", username: "grace", harness: harness, store: store)
            let marking = RecordingDelegate()
            let watching = RecordingDelegate()
            let make = { (delegate: RecordingDelegate) in
                RefreshScheduler(
                    store: store,
                    refresher: harness.client,
                    configuration: .init(
                        session: Session.Configuration(retry: Backoff(maximumAttempts: 1, jitter: 0))
                    ),
                    clock: harness.clock,
                    dateSource: harness.clock.dateSource,
                    delegate: delegate,
                    logger: ProviderHarness.silent
                )
            }
            let first = make(marking)
            let second = make(watching)
            // The second worker's first round learns what is already marked (nothing).
            _ = await second.runRound()
            await harness.running.admin.revokeGrants(ofUser: "grace")
            harness.clock.advance(by: Scheduling.step)
            _ = await first.runRound()
            _ = await second.runRound()
            let marked = await marking.events
            let seen = await watching.events
            #expect(marked.map(\.kind) == [.needsSignIn])
            #expect(seen.map(\.kind) == [.needsSignIn])
            #expect(marked.first?.id == seen.first?.id)
        }
    }

    /// A grant with an absolute end (here a maximum age of 7 days, as Google's for apps in Testing) is within the
    /// 14-day threshold from the start: reported after the first refresh, and not again at the next ones; another
    /// worker reports it with the same identifier. (With a provider that rotates refresh tokens, each new refresh
    /// token has its own end, and each end is reported once.)
    @Test func aGrantThatEndsSoonIsReportedOncePerEnd() async throws {
        // As Google: refresh tokens are not rotated, so the end counts from the sign-in.
        let harness = try await ProviderHarness.start { configuration in
            configuration.accessTokenLifetime = Scheduling.lifetime
            configuration.refreshTokenRotation = false
        }
        defer { Task { await harness.stop() } }
        try await Database.withStore(tenant: Database.uniqueTenant(), key: .generate()) { store, _ in
            try await Scheduling.seed("testing", harness: harness, store: store)
            let signedIn = try #require(try await store.read("testing")).tokens.receivedAt
            var session = Session.Configuration(retry: Backoff(maximumAttempts: 1, jitter: 0))
            session.grantLifetime = GrantLifetime(provider: "Google", maximumAge: .seconds(7 * 86_400))
            let make = { (delegate: RecordingDelegate) in
                RefreshScheduler(
                    store: store,
                    refresher: harness.client,
                    configuration: .init(session: session),
                    clock: harness.clock,
                    dateSource: harness.clock.dateSource,
                    delegate: delegate,
                    logger: ProviderHarness.silent
                )
            }
            let recording = RecordingDelegate()
            let first = make(recording)
            var refreshed = 0
            for _ in 0..<3 {
                harness.clock.advance(by: Scheduling.step)
                refreshed += await first.runRound().refreshed
            }
            #expect(refreshed == 3)
            let events = await recording.events
            #expect(events.map(\.kind) == [.expiresSoon])
            let endsAt = try #require(events.first?.endsAt)
            #expect(abs(endsAt.timeIntervalSince(signedIn) - 7 * 86_400) < 1)

            let other = RecordingDelegate()
            harness.clock.advance(by: Scheduling.step)
            #expect(await make(other).runRound().refreshed == 1)
            let seen = await other.events
            #expect(seen.map(\.kind) == [.expiresSoon])
            #expect(seen.first?.id == events.first?.id)
        }
    }

    /// Without rules and without `refresh_token_expires_in`, a grant has no known end, and nothing is reported.
    @Test func aGrantWithoutAKnownEndIsNotReported() async throws {
        let harness = try await Scheduling.startProvider()
        defer { Task { await harness.stop() } }
        try await Database.withStore(tenant: Database.uniqueTenant(), key: .generate()) { store, _ in
            try await Scheduling.seed("plain", harness: harness, store: store)
            let recording = RecordingDelegate()
            let scheduler = RefreshScheduler(
                store: store,
                refresher: harness.client,
                configuration: .init(session: Session.Configuration(retry: Backoff(maximumAttempts: 1, jitter: 0))),
                clock: harness.clock,
                dateSource: harness.clock.dateSource,
                delegate: recording,
                logger: ProviderHarness.silent
            )
            harness.clock.advance(by: Scheduling.step)
            #expect(await scheduler.runRound().refreshed == 1)
            #expect(await recording.events.isEmpty)
        }
    }

    @Test func retriesAfterA503AndHonoursRetryAfter() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { Task { await receiver.stop() } }
        receiver.failNext([(.serviceUnavailable, retryAfter: "1"), (.internalServerError, retryAfter: nil)])
        let notifier = try Self.notifier(receiver)
        let record = Connection(
            id: "c",
            account: Account(providerID: "dev", subject: "s", displayIdentifier: "ada@x"),
            tokens: Self.noTokens
        )
        let event = RefreshScheduler.Event(
            kind: .needsSignIn,
            tenant: "t",
            record: record,
            reason: .grantRevoked,
            occurredAt: Date()
        )
        let started = ContinuousClock.now
        #expect(await notifier.deliver(event) == .delivered(attempts: 3))
        // The 503 asked for a second; the backoff alone would have waited 10 ms, then 20 ms.
        #expect(ContinuousClock.now - started >= .seconds(1))
        let received = receiver.received
        #expect(received.count == 3)
        // At least once, with one key: every attempt carries the event's identifier and the same body.
        #expect(Set(received.map(\.idempotencyKey)) == [event.id])
        #expect(Set(received.map(\.body)).count == 1)
        #expect(try Self.json(received[0].body)["account"] as? String == record.account.maskedDisplayIdentifier)
    }

    @Test func givesUpAfterItsAttemptsAndOnAPermanentRefusal() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { Task { await receiver.stop() } }
        let notifier = try Self.notifier(receiver)
        let event = RefreshScheduler.Event(
            kind: .recovered,
            tenant: "t",
            record: Connection(id: "c", account: .unknown(providerID: "dev"), tokens: Self.noTokens),
            recoveredFrom: "failing",
            occurredAt: Date()
        )
        receiver.failNext(Array(repeating: (.badGateway, retryAfter: nil), count: 3))
        #expect(await notifier.deliver(event) == .dropped(attempts: 3))
        receiver.failNext([(.unauthorized, retryAfter: nil)])
        #expect(await notifier.deliver(event) == .dropped(attempts: 1))
        #expect(receiver.received.count == 4)
    }

    @Test func refusesPlainHTTPToAnotherHost() throws {
        #expect(throws: TransportError.invalidRequest) {
            try WebhookNotifier(
                configuration: .init(url: URL(string: "http://hooks.example.com/x")!, secret: Self.secret),
                transport: URLSessionTransport()
            )
        }
        _ = try WebhookNotifier(
            configuration: .init(url: URL(string: "https://hooks.example.com/x")!, secret: Self.secret),
            transport: URLSessionTransport()
        )
    }
}
