import Foundation
import HTTPTypes
import Logging
import Testing
import Tether
import TetherOAuth
import TetherTesting
import TetherURLSession

/// A token endpoint that answers badly: each answer gives its own typed error, and a session refreshing through
/// it keeps its stored record exactly as it was.
@Suite(.timeLimit(.minutes(3)))
struct BadTokenResponseTests {
    static let answers: [String: CannedServer.Answer] = [
        "malformed": .init(body: #"{"access_token":"#),
        "html-page": .init(
            contentType: "text/html",
            body: "<html><body>Please sign in to the hotel Wi-Fi</body></html>"
        ),
        "html-error": .init(status: .badGateway, contentType: "text/html", body: "<html>502 Bad Gateway</html>"),
        "negative-expiry": .init(body: #"{"access_token":"a","token_type":"Bearer","expires_in":-60}"#),
        "garbage-expiry": .init(body: #"{"access_token":"a","token_type":"Bearer","expires_in":"an hour"}"#),
        "string-expiry": .init(body: #"{"access_token":"a2","token_type":"Bearer","expires_in":"3600"}"#),
        "no-expiry": .init(body: #"{"access_token":"a3","token_type":"Bearer"}"#),
        "mac-token": .init(body: #"{"access_token":"a","token_type":"mac","expires_in":60}"#),
        "no-access-token": .init(body: #"{"token_type":"Bearer","expires_in":60}"#),
        "redirect": .init(
            status: .found,
            contentType: nil,
            body: "",
            headers: [.location: "https://elsewhere.example/token"]
        ),
        "array": .init(body: "[1,2,3]"),
        "huge-expiry": .init(body: #"{"access_token":"a4","token_type":"Bearer","expires_in":1e300}"#),
        "huge-string-expiry": .init(
            body: #"{"access_token":"a5","token_type":"Bearer","expires_in":"99999999999999999999999999"}"#
        ),
        "hostile-error": .init(
            status: .badRequest,
            body: #"{"error":"invalid_grant\u001b[2J","error_description":"\u001b[31mrevoked\nlevel=info msg=forged"#
                + String(repeating: "\\u001b[1m", count: 20_000) + #"","error_subtype":"\u202eevil"}"#
        ),
        "hostile-device": .init(
            body:
                #"{"device_code":"d","user_code":"\u001b[2JWDJB\nMJHT","verification_uri":"https://example.com/device","#
                + #""expires_in":600}"#
        ),
        "huge-error-code": .init(
            status: .badRequest,
            body: #"{"error":"invalid_grant","error_codes":[1e300],"error_description":"revoked"}"#
        ),
        "huge-retry-after": .init(
            status: .serviceUnavailable,
            body: #"{"error":"temporarily_unavailable"}"#,
            headers: [.retryAfter: "99999999999999999999"]
        ),
        "device-huge": device(expiresIn: "1e300", interval: "1e300"),
        "device-negative": device(expiresIn: "600", interval: "-1e300"),
        "device-fractional": device(expiresIn: "600", interval: "2.25"),
        "device-negative-expiry": device(expiresIn: "-1e300", interval: "5"),
    ]

    /// A device authorization response (RFC 8628 §3.2) with the given numbers.
    static func device(expiresIn: String, interval: String) -> CannedServer.Answer {
        .init(
            body: #"{"device_code":"d","user_code":"WDJB-MJHT","verification_uri":"https://example.com/device","#
                + #""expires_in":\#(expiresIn),"interval":\#(interval)}"#
        )
    }

    struct Fixture {
        let server: CannedServer
        let clock: ManualClock
        let store: MemoryStore
        let record: Connection

        static func make() async throws -> Fixture {
            let server = try await CannedServer.start(answers)
            let clock = ManualClock(startDate: Date(timeIntervalSince1970: 1_767_225_600))
            let tokens = TokenSet(
                accessToken: AccessToken("old-access"),
                refreshToken: RefreshToken("old-refresh"),
                receivedAt: clock.date.addingTimeInterval(-7200),
                expiresAt: clock.date.addingTimeInterval(-3600)
            )
            let store = MemoryStore()
            let record = try await store.write(
                Connection(id: "dev", account: Account(providerID: "dev", subject: "s"), tokens: tokens)
            )
            return Fixture(server: server, clock: clock, store: store, record: record)
        }

        func client(_ name: String) throws -> OAuthClient {
            try OAuthClient(
                configuration: ProviderConfiguration(
                    providerID: "canned",
                    tokenEndpoint: server.base.appendingPathComponent("token/\(name)"),
                    clientID: "client"
                ),
                transport: URLSessionTransport(),
                clock: clock,
                dateSource: clock.dateSource,
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            )
        }

        func deviceClient(_ name: String) throws -> OAuthClient {
            try OAuthClient(
                configuration: ProviderConfiguration(
                    providerID: "canned",
                    tokenEndpoint: server.base.appendingPathComponent("token/none"),
                    deviceAuthorizationEndpoint: server.base.appendingPathComponent("token/\(name)"),
                    clientID: "client"
                ),
                transport: URLSessionTransport(),
                clock: clock,
                dateSource: clock.dateSource,
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            )
        }

        func refresh(_ name: String) async throws -> TokenResponse {
            try await client(name).refresh(
                RefreshRequest(
                    connectionID: "dev",
                    refreshToken: RefreshToken("old-refresh"),
                    account: record.account,
                    tokens: record.tokens
                )
            )
        }

        /// Runs a session refresh through the answer and returns the error it threw.
        func sessionError(_ name: String) async throws -> SessionError? {
            let session = Session(
                id: "dev",
                store: store,
                refresher: try client(name),
                configuration: Session.Configuration(retry: Backoff(maximumAttempts: 1)),
                clock: clock,
                dateSource: clock.dateSource,
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            )
            do {
                _ = try await session.validAccessToken()
                return nil
            } catch let error as SessionError {
                return error
            }
        }
    }

    @Test(arguments: [
        ("malformed", OAuthError.malformedResponse, SessionError.offline),
        ("html-page", .unexpectedContentType, .offline),
        ("html-error", .unexpectedContentType, .offline),
        ("mac-token", .unsupportedTokenType, .misconfigured),
        ("no-access-token", .missingAccessToken, .offline),
        ("redirect", .redirected, .misconfigured),
        ("array", .malformedResponse, .offline),
    ])
    func badAnswerIsTypedAndLeavesTheRecord(
        name: String,
        expected: OAuthError,
        sessionExpected: SessionError
    ) async throws {
        let fixture = try await Fixture.make()
        defer { Task { await fixture.server.stop() } }
        await #expect(throws: expected) { try await fixture.refresh(name) }
        let error = try await fixture.sessionError(name)
        #expect(error == sessionExpected)
        #expect(try await fixture.store.read("dev") == fixture.record)
    }

    @Test func numericStringExpiryIsAcceptedAndMissingExpiryIsUnknown() async throws {
        let fixture = try await Fixture.make()
        defer { Task { await fixture.server.stop() } }
        #expect(try await fixture.refresh("string-expiry").expiresIn == .seconds(3600))
        #expect(try await fixture.refresh("no-expiry").expiresIn == nil)
    }

    /// Numbers no provider means (1e300, -1e300, 10^26 as a string) are cut to sane bounds or refused with a typed
    /// error, over real HTTP, and never trap.
    @Test func hugeNumbersAreCutOrRefusedNeverTrapped() async throws {
        let fixture = try await Fixture.make()
        defer { Task { await fixture.server.stop() } }
        let oneYear = Duration.seconds(365 * 86_400)
        #expect(try await fixture.refresh("huge-expiry").expiresIn == oneYear)
        #expect(try await fixture.refresh("huge-string-expiry").expiresIn == oneYear)

        let revoked = await #expect(throws: OAuthError.provider) { try await fixture.refresh("huge-error-code") }
        #expect(revoked?.classification == .permanent(.grantRevoked))
        #expect(revoked?.providerDetail == nil)

        let throttled = await #expect(throws: OAuthError.provider) { try await fixture.refresh("huge-retry-after") }
        #expect(throttled?.retryAfter == .seconds(86_400))
    }

    @Test func deviceIntervalsAndLifetimesAreKeptInBounds() async throws {
        let fixture = try await Fixture.make()
        defer { Task { await fixture.server.stop() } }
        let huge = try await fixture.deviceClient("device-huge").startDeviceAuthorization()
        #expect(huge.interval == .seconds(60))
        #expect(huge.expiresAt == fixture.clock.date.addingTimeInterval(3600))
        #expect(try await fixture.deviceClient("device-negative").startDeviceAuthorization().interval == .seconds(1))
        #expect(try await fixture.deviceClient("device-fractional").startDeviceAuthorization().interval == .seconds(3))
        await #expect(throws: OAuthError.invalidExpiresIn) {
            try await fixture.deviceClient("device-negative-expiry").startDeviceAuthorization()
        }
    }

    /// Provider text (error codes, descriptions, subtypes, user codes) carries no escape sequence or line break
    /// and stays short, however long and hostile the answer.
    @Test func providerTextIsSanitized() async throws {
        let fixture = try await Fixture.make()
        defer { Task { await fixture.server.stop() } }
        let error = try #require(
            await #expect(throws: OAuthError.provider) { try await fixture.refresh("hostile-error") }
        )
        #expect(error.errorCode?.rawValue == "invalid_grant[2J")
        #expect(error.classification == .configuration)
        let description = try #require(error.errorDescription)
        #expect(description.hasPrefix("[31mrevoked level=info msg=forged[1m"))
        #expect(description.unicodeScalars.count == 200)
        for text in [error.message, description, error.providerDetail ?? ""] {
            #expect(!text.contains("\u{1B}") && !text.contains("\n") && !text.contains("\u{202E}"))
        }

        let device = try await fixture.deviceClient("hostile-device").startDeviceAuthorization()
        #expect(device.userCode == "[2JWDJB MJHT")
    }
}
