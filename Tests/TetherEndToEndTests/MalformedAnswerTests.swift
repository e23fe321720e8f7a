import Foundation
import HTTPTypes
import Logging
import Testing
import Tether
import TetherOAuth
import TetherTesting
import TetherURLSession

/// Answers that break the protocol in one field: a sign-in refuses them with a typed error naming the field, a
/// refresh keeps the tokens the provider may have rotated already, and a device authorization never sends the person
/// to a page in the clear nor waits longer than a minute between polls.
@Suite(.timeLimit(.minutes(2)))
struct MalformedAnswerTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    static func tokens(expiresIn: String) -> CannedServer.Answer {
        .init(
            body: #"{"access_token":"new-access","token_type":"Bearer","refresh_token":"rotated-refresh","#
                + #""expires_in":\#(expiresIn)}"#
        )
    }

    static func device(
        verification: String = "https://example.com/device",
        complete: String? = nil,
        expiresIn: String = "600",
        interval: String = "5"
    ) -> CannedServer.Answer {
        let completeMember = complete.map { #","verification_uri_complete":"\#($0)""# } ?? ""
        return .init(
            body: #"{"device_code":"d","user_code":"WDJB-MJHT","verification_uri":"\#(verification)""#
                + #"\#(completeMember),"expires_in":\#(expiresIn),"interval":\#(interval)}"#
        )
    }

    struct Fixture {
        let server: CannedServer
        let clock = ManualClock(startDate: Date(timeIntervalSince1970: 1_767_225_600))

        static func make(_ answers: [String: CannedServer.Answer]) async throws -> Fixture {
            Fixture(server: try await CannedServer.start(answers))
        }

        func client(token: String = "token", device: String = "device") throws -> OAuthClient {
            try OAuthClient(
                configuration: ProviderConfiguration(
                    providerID: "canned",
                    authorizationEndpoint: server.base.appendingPathComponent("authorize"),
                    tokenEndpoint: server.base.appendingPathComponent("token/\(token)"),
                    deviceAuthorizationEndpoint: server.base.appendingPathComponent("token/\(device)"),
                    clientID: "client",
                    redirectURI: URL(string: "http://127.0.0.1:40000/callback")
                ),
                transport: URLSessionTransport(),
                clock: clock,
                dateSource: clock.dateSource,
                logger: quiet
            )
        }
    }

    // MARK: - expires_in

    @Test(arguments: ["-60", #""an hour""#, "12.5", "1e300"])
    func aSignInWithAMalformedLifetimeFailsNamingTheFieldAndIsNoNetworkFailure(value: String) async throws {
        let fixture = try await Fixture.make(["token": Self.tokens(expiresIn: value)])
        defer { Task { await fixture.server.stop() } }
        let client = try fixture.client()
        let request = try client.makeAuthorizationRequest()
        let error = try #require(
            await #expect(throws: OAuthError.invalidExpiresIn) {
                try await client.exchange(AuthorizationCode("code"), for: request)
            }
        )
        #expect(error.classification == .configuration)
        #expect(error.message.contains("expires_in"))
    }

    /// The provider rotated the refresh token in an answer whose `expires_in` is malformed: the session stores the
    /// rotated one (the old one is spent), with an unknown lifetime — or a year for one too large to read.
    @Test(arguments: [
        ("-60", TimeInterval?.none), (#""an hour""#, nil), ("12.5", nil), ("1e300", 365 * 86_400),
    ])
    func aRefreshWithAMalformedLifetimeKeepsTheRotatedTokens(value: String, lifetime: TimeInterval?) async throws {
        let fixture = try await Fixture.make(["token": Self.tokens(expiresIn: value)])
        defer { Task { await fixture.server.stop() } }
        let store = MemoryStore()
        let old = TokenSet(
            accessToken: AccessToken("old-access"),
            refreshToken: RefreshToken("old-refresh"),
            receivedAt: fixture.clock.date.addingTimeInterval(-7200),
            expiresAt: fixture.clock.date.addingTimeInterval(-3600)
        )
        _ = try await store.write(
            Connection(id: "canned", account: Account(providerID: "canned", subject: "s"), tokens: old)
        )
        let session = Session(
            id: "canned",
            store: store,
            refresher: try fixture.client(),
            configuration: Session.Configuration(retry: Backoff(maximumAttempts: 1)),
            clock: fixture.clock,
            dateSource: fixture.clock.dateSource,
            logger: Self.quiet
        )

        #expect(try await session.validAccessToken() == AccessToken("new-access"))

        let stored = try #require(try await store.read("canned")).tokens
        #expect(stored.refreshToken == RefreshToken("rotated-refresh"))
        #expect(stored.expiresAt == lifetime.map { fixture.clock.date.addingTimeInterval($0) })
    }

    // MARK: - Device authorization

    @Test(arguments: [
        "http://evil.example/device", "javascript:alert(1)", "file:///etc/passwd", "example.com/device",
        "https:///device",
    ])
    func aVerificationURIThatIsNotHTTPSIsRefused(uri: String) async throws {
        let fixture = try await Fixture.make(["device": Self.device(verification: uri)])
        defer { Task { await fixture.server.stop() } }
        let error = try #require(
            await #expect(throws: OAuthError.invalidVerificationURI) {
                try await fixture.client().startDeviceAuthorization()
            }
        )
        #expect(error.classification == .configuration)
        #expect(error.message.contains("verification_uri"))
        #expect(!error.message.contains("evil.example") && !error.message.contains("javascript"))
    }

    @Test(arguments: ["http://evil.example/device?code=WDJB", "javascript:alert(1)", "data:text/html,hi"])
    func aCompleteVerificationURIThatIsNotHTTPSIsLeftOut(uri: String) async throws {
        let fixture = try await Fixture.make(["device": Self.device(complete: uri)])
        defer { Task { await fixture.server.stop() } }
        let authorization = try await fixture.client().startDeviceAuthorization()
        #expect(authorization.verificationURIComplete == nil)
        #expect(authorization.verificationURI == URL(string: "https://example.com/device"))
    }

    @Test(arguments: ["https://example.com/device?code=WDJB", "http://127.0.0.1:8080/device?code=WDJB"])
    func aCompleteVerificationURIOverHTTPSOrToLoopbackIsKept(uri: String) async throws {
        let fixture = try await Fixture.make([
            "device": Self.device(verification: "http://localhost:8080/device", complete: uri)
        ])
        defer { Task { await fixture.server.stop() } }
        let authorization = try await fixture.client().startDeviceAuthorization()
        #expect(authorization.verificationURIComplete == URL(string: uri))
        #expect(authorization.verificationURI == URL(string: "http://localhost:8080/device"))
    }

    @Test(arguments: [
        ("1e300", "1e300", Duration.seconds(60), TimeInterval(3600)), (#""120""#, "7200", .seconds(60), 3600),
        ("5", "900", .seconds(5), 900),
    ])
    func devicePollingIntervalAndLifetimeAreCut(
        interval: String,
        expiresIn: String,
        expectedInterval: Duration,
        expectedLifetime: TimeInterval
    ) async throws {
        let fixture = try await Fixture.make(["device": Self.device(expiresIn: expiresIn, interval: interval)])
        defer { Task { await fixture.server.stop() } }
        let authorization = try await fixture.client().startDeviceAuthorization()
        #expect(authorization.interval == expectedInterval)
        #expect(authorization.expiresAt == fixture.clock.date.addingTimeInterval(expectedLifetime))
    }

    @Test func aNegativeDeviceLifetimeIsAProtocolError() async throws {
        let fixture = try await Fixture.make(["device": Self.device(expiresIn: "-600")])
        defer { Task { await fixture.server.stop() } }
        let error = try #require(
            await #expect(throws: OAuthError.invalidExpiresIn) { try await fixture.client().startDeviceAuthorization() }
        )
        #expect(error.classification == .configuration)
        #expect(error.message.contains("device authorization response"))
    }

    /// `slow_down` naming an absurd interval (GitHub names the new one) makes the next poll wait a minute, no more.
    @Test func slowDownWaitsAMinuteAtMost() async throws {
        let fixture = try await Fixture.make([
            "device": Self.device(interval: "5"),
            "poll": .init(status: .badRequest, body: #"{"error":"slow_down","interval":1e300}"#),
        ])
        defer { Task { await fixture.server.stop() } }
        let client = try fixture.client(token: "poll")
        let authorization = try await client.startDeviceAuthorization()
        let waiting = Task { try await client.waitForDeviceAuthorization(authorization) }
        defer { waiting.cancel() }

        #expect(await fixture.clock.waitForSleepers())
        fixture.clock.advance(by: .seconds(5))
        // The first poll answers slow_down; the wait after it is a minute.
        #expect(await fixture.clock.waitForSleepers())
        fixture.server.set("poll", Self.tokens(expiresIn: "3600"))
        fixture.clock.advance(by: .seconds(60))
        try #require(fixture.clock.sleeperCount == 0, "the poll after slow_down waits longer than a minute")

        let result = try await waiting.value
        #expect(result.tokens.accessToken == AccessToken("new-access"))
    }
}
