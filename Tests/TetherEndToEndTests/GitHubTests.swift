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
import TetherURLSession

/// The `github` preset against the development provider's GitHub dialect: GitHub's paths, form-or-JSON answers,
/// HTTP 200 errors, the account from `GET /user`, non-expiring and expiring (rotating) user tokens, and revocation
/// through the application API.
@Suite(.timeLimit(.minutes(3)))
struct GitHubTests {
    static let secret = "github-dev-secret"

    /// A GitHub-dialect provider with the public client and a confidential one, `confidential`.
    static func start(
        clientID: String = "tether-dev-client",
        secret: String? = nil,
        _ configure: @escaping (inout DevProvider.Configuration) -> Void = { _ in }
    ) async throws -> ProviderHarness {
        try await ProviderHarness.start(
            {
                $0.dialect = .github
                $0.clients.append(
                    DevProvider.ClientRegistration(
                        id: "confidential",
                        secret: GitHubTests.secret,
                        redirectURIs: ["http://127.0.0.1/callback"]
                    )
                )
                configure(&$0)
            },
            provider: { running in
                .github(
                    clientID: clientID,
                    clientSecret: secret.map(ClientSecret.init),
                    redirectURI: URL(string: "http://127.0.0.1/callback"),
                    serverURL: running.issuer
                )
            }
        )
    }

    /// Runs the device flow and approves it on the verification page.
    static func deviceSignIn(_ harness: ProviderHarness, scopes: [String]? = nil) async throws -> SignInResult {
        let authorization = try await harness.client.startDeviceAuthorization(scopes: scopes)
        #expect(authorization.verificationURI.path == "/login/device")
        let waiting = Task { try await harness.client.waitForDeviceAuthorization(authorization) }
        // What a person does: open the page, type the code, sign in, allow.
        var page = try #require(URLComponents(url: authorization.verificationURI, resolvingAgainstBaseURL: false))
        page.queryItems = [URLQueryItem(name: "user_code", value: authorization.userCode)]
        let (_, answer) = try await FormBrowser().submit(try #require(page.url))
        #expect(answer.contains("Device connected"), "\(answer.prefix(300))")
        #expect(await harness.clock.waitForSleepers(1))
        harness.clock.advance(by: authorization.interval)
        return try await waiting.value
    }

    @Test func presetEndpointsForGitHubAndEnterpriseServer() throws {
        let github = ProviderConfiguration.github(clientID: "Iv1.abc")
        #expect(github.authorizationEndpoint?.absoluteString == "https://github.com/login/oauth/authorize")
        #expect(github.tokenEndpoint.absoluteString == "https://github.com/login/oauth/access_token")
        #expect(github.deviceAuthorizationEndpoint?.absoluteString == "https://github.com/login/device/code")
        #expect(github.userinfoEndpoint?.absoluteString == "https://api.github.com/user")
        #expect(github.revocationEndpoint?.absoluteString == "https://api.github.com/applications/Iv1.abc/grant")
        #expect(github.issuer == nil && github.jwksURI == nil && !github.isOpenIDConnect)
        #expect(github.accountLookup == .gitHubUser && github.revocationMethod == .gitHubApplicationGrant)
        try github.validate()

        let enterprise = ProviderConfiguration.github(
            clientID: "Iv1.abc",
            serverURL: URL(string: "https://github.example.com/")!
        )
        #expect(enterprise.tokenEndpoint.absoluteString == "https://github.example.com/login/oauth/access_token")
        #expect(enterprise.userinfoEndpoint?.absoluteString == "https://github.example.com/api/v3/user")

        // The two GitHub settings survive a configuration file.
        let data = try JSONEncoder().encode(github)
        let decoded = try JSONDecoder().decode(ProviderConfiguration.self, from: data)
        #expect(decoded == github)
    }

    @Test func deviceFlowSignsInWithTheAccountFromGetUserAndANonExpiringToken() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let result = try await Self.deviceSignIn(harness)
        #expect(result.idTokenClaims == nil)
        #expect(result.account?.subject == "1")
        #expect(result.account?.displayIdentifier == "ada")
        #expect(result.account?.providerID == "github")
        // `bearer`, comma-separated scopes, no expires_in and no refresh token: an OAuth app's token.
        #expect(result.tokens.scopes == ["read:user", "user:email"])
        #expect(result.missingScopes.isEmpty)
        #expect(result.tokens.expiresAt == nil)
        #expect(result.tokens.refreshToken == nil)
        #expect(await harness.counters().requests(to: .userinfo) == 1)

        // A session never takes it for expired, however much time passes, and never tries to refresh it.
        let session = harness.session(MemoryStore(), id: "github")
        let account = try #require(result.account)
        _ = try await session.signIn(account: account, tokens: result.tokens)
        harness.clock.advance(by: .seconds(400 * 86_400))
        #expect(try await session.validAccessToken() == result.tokens.accessToken)
        guard case .connected(_, let until) = await session.status else {
            Issue.record("Expected connected, got \(await session.status)")
            return
        }
        #expect(until == nil)
        #expect(await harness.counters().requests(to: .token) == 1)
    }

    @Test func expiringUserTokensLastEightHoursAndRotateTheirRefreshToken() async throws {
        let harness = try await Self.start {
            $0.refreshTokenIssuance = .always
            $0.accessTokenLifetime = .seconds(28_800)
        }
        defer { Task { await harness.stop() } }
        let result = try await Self.deviceSignIn(harness)
        let firstRefreshToken = try #require(result.tokens.refreshToken)
        let expiresAt = try #require(result.tokens.expiresAt)
        #expect(expiresAt == harness.clock.date.addingTimeInterval(28_800))

        let session = harness.session(MemoryStore(), id: "github")
        _ = try await session.signIn(account: try #require(result.account), tokens: result.tokens)
        harness.clock.advance(by: .seconds(28_800))
        let refreshed = try await session.validAccessToken()
        #expect(refreshed != result.tokens.accessToken)
        let stored = try #require(try await session.connection()?.tokens.refreshToken)
        #expect(stored != firstRefreshToken)

        // The spent refresh token is refused with GitHub's HTTP 200 `bad_refresh_token`: sign in again.
        let error = await #expect(throws: OAuthError.self) {
            try await harness.client.refresh(
                RefreshRequest(
                    connectionID: "github",
                    refreshToken: firstRefreshToken,
                    account: try #require(result.account),
                    tokens: result.tokens
                )
            )
        }
        #expect(error?.errorCode?.rawValue == "bad_refresh_token")
        #expect(error?.httpStatus == 200)
        #expect(error?.requiresReauthentication == true)
    }

    @Test func revocationDeletesTheGrantThroughTheApplicationAPI() async throws {
        let harness = try await Self.start(clientID: "confidential", secret: Self.secret)
        defer { Task { await harness.stop() } }
        let result = try await Self.deviceSignIn(harness)
        let account = try #require(result.account)
        try await harness.client.revoke(result.tokens, account: account)
        #expect(await harness.counters()[.revocations] == 1)
        #expect(await harness.counters()[.grantsRevoked] == 1)
        // The token no longer works at the API.
        await #expect(throws: OAuthError.self) {
            try await harness.client.userInfo(accessToken: try #require(result.tokens.accessToken))
        }
    }

    @Test func revocationWithAWrongSecretIsReportedNotTakenForDone() async throws {
        let harness = try await Self.start(clientID: "confidential", secret: "wrong")
        defer { Task { await harness.stop() } }
        // Device flow works without the right secret at GitHub; here the provider checks it, so mint the tokens
        // with the right one and revoke with the wrong one.
        let right = try await Self.start(clientID: "confidential", secret: Self.secret)
        defer { Task { await right.stop() } }
        let result = try await Self.deviceSignIn(right)
        let wrongClient = try OAuthClient(
            configuration: .github(
                clientID: "confidential",
                clientSecret: ClientSecret("wrong"),
                serverURL: right.running.issuer
            ),
            transport: right.transport
        )
        let error = await #expect(throws: OAuthError.self) {
            try await wrongClient.revoke(result.tokens, account: try #require(result.account))
        }
        #expect(error?.httpStatus == 401)
        #expect(await right.counters()[.grantsRevoked] == 0)
    }

    @Test func revocationWithoutAClientSecretIsUnsupported() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let result = try await Self.deviceSignIn(harness)
        let error = await #expect(throws: ProviderConfigurationError.self) {
            try await harness.client.revoke(result.tokens, account: try #require(result.account))
        }
        #expect(error == .revocationUnsupported)
        #expect(await harness.counters().requests(to: .revoke) == 0)
    }

    @Test func webFlowWithPKCE() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let shown = LockedURLs()
        let result = try await harness.client.signIn(using: FormBrowser().presenter(shown: shown))
        let url = try #require(shown.urls.first)
        #expect(url.path == "/login/oauth/authorize")
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.contains(URLQueryItem(name: "code_challenge_method", value: "S256")))
        #expect(!query.contains { $0.name == "nonce" })
        #expect(result.account?.displayIdentifier == "ada")
        #expect(result.tokens.accessToken != nil)
    }

    @Test func answersAreFormEncodedUnlessJSONIsAccepted() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let url = harness.running.url("/login/oauth/access_token")
        for accept in [nil, "application/json"] {
            var request = HTTPRequest(method: .post, url: url)
            request.headerFields[.contentType] = "application/x-www-form-urlencoded"
            if let accept { request.headerFields[.accept] = accept }
            let body = Data("grant_type=refresh_token&refresh_token=nope&client_id=tether-dev-client".utf8)
            let (response, data) = try await harness.transport.send(request, body: body)
            #expect(response.status == .ok)
            let text = String(decoding: data, as: UTF8.self)
            if accept == nil {
                #expect(response.headerFields[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true)
                #expect(text.hasPrefix("error=bad_refresh_token&"))
            } else {
                #expect(response.headerFields[.contentType]?.hasPrefix("application/json") == true)
                #expect(text.contains(#""error":"bad_refresh_token""#))
            }
        }
        // No discovery, no OpenID Connect.
        let (discovery, _) = try await harness.transport.send(
            HTTPRequest(method: .get, url: harness.running.url("/.well-known/openid-configuration")),
            body: nil
        )
        #expect(discovery.status == .notFound)
    }
}
