import Foundation
import JWTTestSupport
import ProviderTestSupport
import SignInTestSupport
import Testing
import Tether
import TetherDevProvider
import TetherTesting

@testable import TetherOAuth

/// Token-endpoint answers as real providers send them, against a development provider told to answer so: form
/// encoding despite `Accept: application/json`, errors with HTTP 200, `token_type` in any case, `expires_in` as a
/// string, `scope` left out or narrowed, refreshes without a new refresh token, GitHub's `slow_down` interval, and
/// `invalid_client` with 400 or 401.
@Suite(.timeLimit(.minutes(3)))
struct WireQuirkTests {
    static let scopes = ["openid", "profile", "email", "offline_access"]

    /// Runs the device flow with one `authorization_pending` poll before the person approves.
    static func deviceSignIn(_ harness: ProviderHarness, scopes: [String] = scopes) async throws -> SignInResult {
        let authorization = try await harness.client.startDeviceAuthorization(scopes: scopes)
        let waiting = Task { try await harness.client.waitForDeviceAuthorization(authorization) }
        #expect(await harness.clock.waitForSleepers(1))
        harness.clock.advance(by: authorization.interval)
        #expect(await harness.clock.waitForSleepers(1))
        let page = try #require(authorization.verificationURIComplete)
        let (_, answer) = try await FormBrowser().submit(page, extraFields: ["user_code": authorization.userCode])
        #expect(answer.contains("Device connected"), "\(answer.prefix(300))")
        harness.clock.advance(by: authorization.interval)
        let result = try await waiting.value
        #expect(await harness.counters()[.pendingPolls] == 1)
        return result
    }

    /// A refresh with a token the provider never issued.
    static func refreshWithUnknownToken(_ harness: ProviderHarness) async throws -> OAuthError? {
        await #expect(throws: OAuthError.self) {
            try await harness.client.refresh(
                RefreshRequest(
                    connectionID: "dev",
                    refreshToken: RefreshToken("never-issued"),
                    account: .unknown(providerID: "dev"),
                    tokens: TokenSet(
                        accessToken: nil,
                        receivedAt: Date(timeIntervalSince1970: 1_700_000_000),
                        expiresAt: nil
                    )
                )
            )
        }
    }

    @Test func formEncodedAnswersAreReadDespiteAcceptJSON() async throws {
        let harness = try await ProviderHarness.start { $0.interoperability.formEncodedTokenResponses = true }
        defer { Task { await harness.stop() } }
        let result = try await Self.deviceSignIn(harness)
        #expect(result.tokens.accessToken != nil)
        #expect(result.tokens.refreshToken != nil)
        #expect(result.tokens.scopes == Self.scopes)
        #expect(result.tokens.expiresAt == harness.clock.date.addingTimeInterval(3600))
        #expect(result.account?.displayIdentifier == "ada@example.com")
        let error = try await Self.refreshWithUnknownToken(harness)
        #expect(error?.errorCode == .invalidGrant)
        #expect(error?.requiresReauthentication == true)
    }

    @Test func errorsWithHTTP200AreErrors() async throws {
        let harness = try await ProviderHarness.start { $0.interoperability.tokenErrorsWithHTTP200 = true }
        defer { Task { await harness.stop() } }
        // `authorization_pending` with HTTP 200 keeps the device flow polling.
        let result = try await Self.deviceSignIn(harness)
        #expect(result.tokens.accessToken != nil)
        let error = try await Self.refreshWithUnknownToken(harness)
        #expect(error?.errorCode == .invalidGrant)
        #expect(error?.httpStatus == 200)
        #expect(error?.requiresReauthentication == true)
    }

    @Test(arguments: ["bearer", "BEARER", "Bearer"])
    func tokenTypeInAnyCase(spelling: String) async throws {
        let harness = try await ProviderHarness.start { $0.interoperability.tokenType = spelling }
        defer { Task { await harness.stop() } }
        let result = try await Self.deviceSignIn(harness)
        #expect(result.tokens.accessToken != nil)
    }

    @Test func anotherTokenTypeIsRefused() async throws {
        let harness = try await ProviderHarness.start { $0.interoperability.tokenType = "mac" }
        defer { Task { await harness.stop() } }
        let error = await #expect(throws: OAuthError.self) { try await Self.deviceSignIn(harness) }
        #expect(error == .unsupportedTokenType)
    }

    @Test func expiresInAsANumericString() async throws {
        let harness = try await ProviderHarness.start { $0.interoperability.expiresInAsString = true }
        defer { Task { await harness.stop() } }
        let result = try await Self.deviceSignIn(harness)
        #expect(result.tokens.expiresAt == harness.clock.date.addingTimeInterval(3600))
    }

    @Test func aResponseWithoutScopeGrantedWhatWasAskedFor() async throws {
        let harness = try await ProviderHarness.start { $0.interoperability.omitsScopeInTokenResponse = true }
        defer { Task { await harness.stop() } }
        let result = try await Self.deviceSignIn(harness)
        #expect(result.tokens.scopes == nil)
        #expect(result.missingScopes.isEmpty)
        #expect(result.account?.displayIdentifier == "ada@example.com")
    }

    @Test func aNarrowedGrantIsReportedAndLogged() async throws {
        let recorder = InMemoryLogRecorder()
        let harness = try await ProviderHarness.start(
            { $0.interoperability.grantableScopes = ["openid", "profile", "offline_access"] },
            logger: recorder.logger
        )
        defer { Task { await harness.stop() } }
        let result = try await Self.deviceSignIn(harness)
        #expect(result.missingScopes == ["email"])
        #expect(result.tokens.scopes == ["openid", "profile", "offline_access"])
        #expect(
            recorder.entries.contains {
                $0.hasPrefix("info The provider granted fewer scopes than requested")
                    && $0.contains("oauth.scopes_missing=email")
            }
        )
    }

    @Test func aRefreshWithoutANewRefreshTokenKeepsTheOldOne() async throws {
        let harness = try await ProviderHarness.start { $0.refreshTokenRotation = false }
        defer { Task { await harness.stop() } }
        let result = try await Self.deviceSignIn(harness)
        let refreshToken = try #require(result.tokens.refreshToken)
        let session = harness.session(MemoryStore())
        _ = try await session.signIn(account: try #require(result.account), tokens: result.tokens)
        for _ in 0..<2 {
            harness.clock.advance(by: .seconds(3600))
            _ = try await session.validAccessToken()
            #expect(try await session.connection()?.tokens.refreshToken == refreshToken)
        }
        #expect(await session.counters.refreshes == 2)
    }

    @Test func gitHubSlowDownIntervalAndFormEncodedDeviceAnswer() async throws {
        let harness = try await ProviderHarness.start(
            {
                $0.dialect = .github
                $0.devicePollingInterval = .seconds(7)
                $0.interoperability.formEncodedTokenResponses = true
            },
            provider: { .github(clientID: "tether-dev-client", serverURL: $0.issuer) }
        )
        defer { Task { await harness.stop() } }
        // `interval=7` in a form-encoded answer is a string; it is still 7 seconds, not the default 5.
        let authorization = try await harness.client.startDeviceAuthorization()
        #expect(authorization.interval == .seconds(7))
        let poll = [
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
            ("device_code", authorization.deviceCode.revealedValue),
        ]
        let pending = await #expect(throws: OAuthError.self) {
            try await harness.client.tokenRequest(poll, grantType: "device_code")
        }
        #expect(pending?.errorCode == .authorizationPending)
        // Polled again at once: `slow_down` with GitHub's new interval, 7 + 5 seconds.
        let slowDown = await #expect(throws: OAuthError.self) {
            try await harness.client.tokenRequest(poll, grantType: "device_code")
        }
        #expect(slowDown?.errorCode == .slowDown)
        #expect(slowDown?.retryAfter == .seconds(12))
        #expect(slowDown?.httpStatus == 200)
    }

    /// A refresh by the confidential client `confidential` with a wrong secret, sent the way `method` says.
    static func refreshWithAWrongSecret(
        sentWith method: ProviderConfiguration.ClientAuthentication,
        invalidClientAnswers400: Bool = false
    ) async throws -> OAuthError? {
        let harness = try await ProviderHarness.start(
            {
                $0.interoperability.invalidClientAnswers400 = invalidClientAnswers400
                $0.clients.append(
                    DevProvider.ClientRegistration(
                        id: "confidential",
                        secret: "right",
                        redirectURIs: ["http://127.0.0.1/callback"]
                    )
                )
            },
            provider: { running in
                ProviderConfiguration(
                    providerID: "dev",
                    tokenEndpoint: running.url("/token"),
                    clientID: "confidential",
                    clientSecret: ClientSecret("wrong"),
                    clientAuthentication: method
                )
            }
        )
        defer { Task { await harness.stop() } }
        return try await refreshWithUnknownToken(harness)
    }

    @Test(arguments: [false, true])
    func invalidClientWith400Or401IsAConfigurationProblem(answers400: Bool) async throws {
        let error = try await Self.refreshWithAWrongSecret(sentWith: .secretPost, invalidClientAnswers400: answers400)
        #expect(error?.errorCode == .invalidClient)
        #expect(error?.httpStatus == (answers400 ? 400 : 401))
        #expect(error?.classification == .configuration)
        #expect(error?.requiresReauthentication == false)
    }

    /// A wrong secret sent with HTTP Basic: the provider answers `401` with `WWW-Authenticate: Basic` (RFC 6749
    /// §5.2). Through `URLSessionTransport` on Linux such an answer never came back before the transport declined
    /// the challenge (docs/decisions.md §30); FoundationNetworking then drops the body, so only the status is known.
    @Test func aWrongSecretSentWithHTTPBasicComesBackAsAConfigurationProblem() async throws {
        let error = try await Self.refreshWithAWrongSecret(sentWith: .secretBasic)
        #expect(error?.httpStatus == 401)
        #expect(error?.classification == .configuration)
        #expect(error?.requiresReauthentication == false)
    }
}
