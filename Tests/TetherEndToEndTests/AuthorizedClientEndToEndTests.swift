import Foundation
import HTTPTypes
import ProviderTestSupport
import SignInTestSupport
import Testing
import Tether
import TetherDevProvider
import TetherOAuth
import TetherTestSupport
import TetherTesting

/// `AuthorizedClient` over real HTTP on 127.0.0.1, against the development provider's protected resource.
@Suite(.timeLimit(.minutes(3)))
struct AuthorizedClientEndToEndTests {
    struct Resource: Decodable, Equatable {
        let sub: String
        let scope: String
    }

    /// A transport that counts what it sends, around a real one.
    final class CountingTransport: HTTPTransport, @unchecked Sendable {
        let base: any HTTPTransport
        private let lock = NSLock()
        private var sent: [String] = []
        private var headers: [String] = []

        init(_ base: any HTTPTransport) { self.base = base }

        var paths: [String] { lock.withLock { sent } }
        var authorizations: [String] { lock.withLock { headers } }

        func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
            lock.withLock {
                sent.append(request.path ?? "")
                headers.append(request.headerFields[.authorization] ?? "")
            }
            return try await base.send(request, body: body)
        }
    }

    /// A transport that records requests and answers `200` without connecting anywhere.
    final class RecordingTransport: HTTPTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var sent: [HTTPRequest] = []

        var requests: [HTTPRequest] { lock.withLock { sent } }

        func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
            lock.withLock { sent.append(request) }
            return (HTTPResponse(status: .ok), Data())
        }
    }

    static func signedIn(_ harness: ProviderHarness) async throws -> Session {
        let result = try await harness.client.signIn(using: FormBrowser().presenter())
        let session = harness.session(MemoryStore(clock: harness.clock))
        try await session.signIn(account: try #require(result.account), tokens: result.tokens)
        return session
    }

    /// A client on a newly signed-in session, the transport under it that records what it sends, and the session.
    static func countingClient(
        _ harness: ProviderHarness
    ) async throws -> (AuthorizedClient, CountingTransport, Session) {
        let session = try await signedIn(harness)
        let counting = CountingTransport(harness.transport)
        return (AuthorizedClient(session: session, transport: counting, clock: harness.clock), counting, session)
    }

    static func get(_ base: URL, _ path: String) -> HTTPRequest {
        HTTPRequest(method: .get, url: base.appendingPathComponent(path))
    }

    @Test func addsTheBearerTokenAndDecodesJSON() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let (client, counting, session) = try await Self.countingClient(harness)

        let resource: Resource = try await client.json(Self.get(harness.running.issuer, "resource"))
        #expect(resource.sub.isEmpty == false)
        let token = try await session.validAccessToken()
        #expect(counting.authorizations == ["Bearer \(token.revealedValue)"])
        #expect(await harness.counters()[.refreshes] == 0)
    }

    @Test func aBodyOfTheWrongShapeIsADecodingError() async throws {
        struct Other: Decodable { let missing: Int }
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let client = AuthorizedClient(
            session: try await Self.signedIn(harness),
            transport: harness.transport,
            clock: harness.clock
        )
        await #expect(throws: AuthorizedClientError.decoding) {
            _ = try await client.json(Self.get(harness.running.issuer, "resource"), as: Other.self)
        }
    }

    @Test func anExpiredTokenIsRefreshedOnceAndTheRequestRetriedOnce() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let (client, counting, session) = try await Self.countingClient(harness)
        let stale = try await session.validAccessToken()
        await harness.running.admin.expireAccessTokens()

        let resource: Resource = try await client.json(Self.get(harness.running.issuer, "resource"))
        #expect(resource.scope.contains("openid"))
        #expect(counting.paths == ["/resource", "/resource"])
        #expect(await harness.counters()[.refreshes] == 1)
        #expect(try await session.validAccessToken() != stale)
        #expect(await session.status.kind == .connected)
    }

    @Test func aServerThatKeepsRejectingGetsOneRetryAndTheSessionStaysConnected() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let canned = try await CannedServer.start([
            "stubborn": CannedServer.Answer(
                status: .unauthorized,
                body: #"{"error":"invalid_token","error_description":"no"}"#,
                headers: [.wwwAuthenticate: #"Bearer realm="api", error="invalid_token", error_description="no""#]
            )
        ])
        defer { Task { await canned.stop() } }
        let (client, counting, session) = try await Self.countingClient(harness)

        do {
            _ = try await client.send(Self.get(canned.base, "stubborn"))
            Issue.record("a 401 after a refresh succeeded")
        } catch let error as AuthorizedClientError {
            #expect(error == .unauthorized)
            #expect(error.requiresSignIn == false)
            #expect(error.httpStatus == 401)
            #expect(error.challenge?.error == "invalid_token")
        }
        #expect(counting.paths == ["/stubborn", "/stubborn"])
        #expect(await harness.counters()[.refreshes] == 1)
        #expect(await session.status.kind == .connected)
    }

    @Test func aRevokedGrantIsUnauthorizedAndNeedsSignIn() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let (client, counting, session) = try await Self.countingClient(harness)
        _ = await harness.running.admin.revokeAllGrants()
        await harness.running.admin.expireAccessTokens()

        do {
            _ = try await client.send(Self.get(harness.running.issuer, "resource"))
            Issue.record("a revoked grant still reached the resource")
        } catch let error as AuthorizedClientError {
            #expect(error == .unauthorized)
            #expect(error.requiresSignIn)
        }
        #expect(counting.paths == ["/resource"])
        #expect(await session.status.kind == .needsSignIn)
    }

    @Test func insufficientScopeIsForbiddenNamingTheScopeWithoutRetry() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let (client, counting, _) = try await Self.countingClient(harness)

        do {
            _ = try await client.send(Self.get(harness.running.issuer, "resource/admin"))
            Issue.record("the admin resource answered without the admin scope")
        } catch let error as AuthorizedClientError {
            #expect(error == .forbidden)
            #expect(error.scope == "admin")
            #expect(error.httpStatus == 403)
        }
        #expect(counting.paths == ["/resource/admin"])
        #expect(await harness.counters()[.refreshes] == 0)
    }

    @Test func aRateLimitedGetWaitsForRetryAfterThenSucceeds() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let (client, counting, _) = try await Self.countingClient(harness)
        await harness.running.admin.rateLimitNext(1, requestsTo: .resource, retryAfterSeconds: 7)

        let call = Task { try await client.send(Self.get(harness.running.issuer, "resource")) }
        #expect(await harness.clock.waitForSleepers(1))
        #expect(counting.paths.count == 1)
        harness.clock.advance(by: .seconds(7))
        let (response, _) = try await call.value
        #expect(response.status == .ok)
        #expect(counting.paths == ["/resource", "/resource"])
    }

    @Test func aRateLimitedPostIsNotRetriedUnlessOptedIn() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let busy = CannedServer.Answer(
            status: .tooManyRequests,
            body: #"{"message":"slow down"}"#,
            headers: [.retryAfter: "3"]
        )
        let canned = try await CannedServer.start(["busy": busy])
        defer { Task { await canned.stop() } }
        let session = try await Self.signedIn(harness)
        let post = HTTPRequest(method: .post, url: canned.base.appendingPathComponent("token/busy"))

        let counting = CountingTransport(harness.transport)
        let plain = AuthorizedClient(session: session, transport: counting, clock: harness.clock)
        do {
            _ = try await plain.send(post, body: Data("{}".utf8))
            Issue.record("a 429 succeeded")
        } catch let error as AuthorizedClientError {
            #expect(error == .server)
            #expect(error.httpStatus == 429)
            #expect(error.serverMessage == "slow down")
            #expect(error.retryAfter == .seconds(3))
        }
        #expect(counting.paths.count == 1)

        let optedIn = AuthorizedClient(
            session: session,
            transport: counting,
            configuration: AuthorizedClient.Configuration(retriesNonIdempotentRequests: true),
            clock: harness.clock
        )
        let call = Task { try await optedIn.send(post, body: Data("{}".utf8)) }
        #expect(await harness.clock.waitForSleepers(1))
        canned.set("busy", CannedServer.Answer(body: #"{"ok":true}"#))
        harness.clock.advance(by: .seconds(3))
        let (response, _) = try await call.value
        #expect(response.status == .ok)
        #expect(counting.paths.count == 3)
    }

    @Test func aServerMessageReachesTheErrorWithoutControlCharacters() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let hostile =
            #"\u001b[2J\u001b]0;owned\u0007broken\nlevel=error msg=forged\u202e"#
            + String(repeating: "x", count: 100_000)
        let canned = try await CannedServer.start([
            "broken": CannedServer.Answer(status: .internalServerError, body: #"{"message":"\#(hostile)"}"#)
        ])
        defer { Task { await canned.stop() } }
        let client = AuthorizedClient(
            session: try await Self.signedIn(harness),
            transport: harness.transport,
            clock: harness.clock
        )

        let error = await #expect(throws: AuthorizedClientError.server) {
            try await client.send(HTTPRequest(method: .get, url: canned.base.appendingPathComponent("broken")))
        }
        let message = try #require(error?.serverMessage)
        #expect(message.hasPrefix("[2J]0;ownedbroken level=error msg=forgedxxx"))
        #expect(message.unicodeScalars.count == 200)
    }

    @Test func plainHTTPToAHostOtherThanLoopbackIsRefusedBeforeATokenIsSent() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        // Records what it would send and connects nowhere: no request may leave for these hosts.
        let recording = RecordingTransport()
        let client = AuthorizedClient(session: try await Self.signedIn(harness), transport: recording)

        for url in ["http://api.example.com/events", "http://10.0.0.1:8080/events", "HTTP://128.0.0.1/events"] {
            let request = HTTPRequest(method: .get, url: try #require(URL(string: url)))
            let error = await #expect(throws: AuthorizedClientError.insecureTransport) {
                try await client.send(request)
            }
            #expect(error?.message.contains("Bearer") == false)
        }
        #expect(recording.requests.isEmpty)
        // Plain http to a loopback host is still allowed.
        for url in ["http://127.0.0.1:9/events", "http://localhost/events", "http://[::1]:8080/events"] {
            _ = try await client.send(HTTPRequest(method: .get, url: try #require(URL(string: url))))
        }
        #expect(recording.requests.count == 3)
        #expect(recording.requests.allSatisfy { $0.headerFields[.authorization]?.hasPrefix("Bearer ") == true })
    }

    @Test func anAPIThatRejectsEveryTokenWithoutAChallengeCausesOneRefreshPerInterval() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let canned = try await CannedServer.start([
            "rejects": CannedServer.Answer(status: .unauthorized, body: #"{"message":"no"}"#)
        ])
        defer { Task { await canned.stop() } }
        let session = try await Self.signedIn(harness)
        let client = AuthorizedClient(session: session, transport: harness.transport, clock: harness.clock)

        // Rounds of concurrent requests, each round starting after the previous one failed: without a limit every
        // round would force another refresh.
        for _ in 0..<3 {
            let failures = await withTaskGroup(of: AuthorizedClientError?.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        do {
                            _ = try await client.send(Self.get(canned.base, "rejects"))
                            return nil
                        } catch {
                            return error as? AuthorizedClientError
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(failures.count == 8)
            for failure in failures {
                #expect(failure == .unauthorized)
                #expect(failure?.requiresSignIn == false)
            }
        }
        #expect(await harness.counters()[.refreshes] == 1)
        #expect(await session.status.kind == .connected)

        // Once the interval (30 seconds by default) has passed, one more refresh is allowed.
        harness.clock.advance(by: .seconds(31))
        await #expect(throws: AuthorizedClientError.unauthorized) {
            try await client.send(Self.get(canned.base, "rejects"))
        }
        #expect(await harness.counters()[.refreshes] == 2)
    }
}
