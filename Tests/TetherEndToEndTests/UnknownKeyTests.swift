import Foundation
import HTTPTypes
import JWTTestSupport
import Logging
import Testing
import Tether
import TetherJWT
import TetherTesting
import TetherURLSession

@testable import TetherOAuth

/// An ID token from the token endpoint that names a key the provider's key set lacks (docs/decisions.md §32): the
/// key set is fetched again at once; if the key is still missing, the claims decide only over TLS; and over plain
/// HTTP (the development provider on loopback) a refresh drops the ID token but keeps the rotated tokens.
@Suite(.timeLimit(.minutes(2)))
struct UnknownKeyTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Counts the requests for the key set while passing everything on.
    struct CountingKeyRequests: HTTPTransport {
        let inner: any HTTPTransport
        let keyRequests = LockedState(0)

        func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
            if request.path?.hasSuffix("/jwks") == true { keyRequests.withLock { $0 += 1 } }
            return try await inner.send(request, body: body)
        }
    }

    /// A canned provider on 127.0.0.1 (plain HTTP) whose key set holds `key`.
    struct LoopbackFixture {
        let server: CannedServer
        let transport = CountingKeyRequests(inner: URLSessionTransport())
        let key: TestKey
        let client: OAuthClient

        static func make() async throws -> LoopbackFixture {
            let key = try await TestKey.rsa()
            let server = try await CannedServer.start(["jwks": .init(body: jwks(key))])
            return try LoopbackFixture(server: server, key: key)
        }

        init(server: CannedServer, key: TestKey) throws {
            self.server = server
            self.key = key
            client = try OAuthClient(
                configuration: ProviderConfiguration(
                    providerID: "canned",
                    issuer: testIssuer,
                    authorizationEndpoint: server.base.appendingPathComponent("authorize"),
                    tokenEndpoint: server.base.appendingPathComponent("token/answer"),
                    clientID: testClientID,
                    scopes: ["openid", "email"],
                    redirectURI: URL(string: "http://127.0.0.1:40000/callback")
                ),
                transport: transport,
                idTokenValidator: JWKSIDTokenValidator(
                    jwksURL: server.base.appendingPathComponent("jwks"),
                    transport: transport
                ),
                dateSource: .constant(fixedNow),
                logger: quiet
            )
        }

        /// Answers the token endpoint with rotated tokens and an ID token carrying `overrides`, signed by `signer`.
        func answer(_ overrides: [String: (any Sendable)?] = [:], signer: TestKey) async throws {
            let idToken = try await signer.sign(claims(overrides))
            server.set("answer", UnknownKeyTests.tokenAnswer(idToken))
        }

        var keyRequests: Int { transport.keyRequests.withLock { $0 } }
    }

    static func tokenAnswer(_ idToken: IDToken) -> CannedServer.Answer {
        .init(
            body: #"{"access_token":"new-access","token_type":"Bearer","expires_in":3600,"#
                + #""refresh_token":"rotated-refresh","id_token":"\#(idToken.revealedValue)"}"#
        )
    }

    static func refreshRequest(subject: String = "user-1", idToken: IDToken? = nil) -> RefreshRequest {
        RefreshRequest(
            connectionID: ConnectionID("canned"),
            refreshToken: RefreshToken("old-refresh"),
            account: Account(providerID: "canned", subject: subject),
            tokens: TokenSet(
                accessToken: AccessToken("old-access"),
                refreshToken: RefreshToken("old-refresh"),
                idToken: idToken,
                receivedAt: fixedNow,
                expiresAt: nil
            )
        )
    }

    static func rotatedKey() async throws -> TestKey {
        try await TestKey.rsa(Fixtures.rsaPrivateKeyB, kid: "rsa-rotated")
    }

    // MARK: - Over plain HTTP (loopback)

    /// The provider rotated its key a moment after the client fetched the set: the client fetches it again at once
    /// and verifies the signature, without waiting out the re-fetch interval.
    @Test func aKeyAddedByARotationIsFetchedAtOnceAndVerifies() async throws {
        let fixture = try await LoopbackFixture.make()
        defer { Task { await fixture.server.stop() } }
        try await fixture.answer(signer: fixture.key)
        _ = try await fixture.client.refresh(Self.refreshRequest())
        #expect(fixture.keyRequests == 1)

        let rotated = try await Self.rotatedKey()
        fixture.server.set("jwks", .init(body: jwks(fixture.key, rotated)))
        let request = try fixture.client.makeAuthorizationRequest()
        try await fixture.answer(["nonce": request.nonce], signer: rotated)

        let result = try await fixture.client.exchange(AuthorizationCode("code"), for: request)

        #expect(result.account?.subject == "user-1")
        #expect(fixture.keyRequests == 2)
    }

    /// Nothing vouches for a token whose key is missing even from a fresh set when the token endpoint is reached
    /// without TLS: the sign-in is refused (nothing is stored yet; the person can try again).
    @Test func aSignInOverPlainHTTPRefusesAKeyTheSetLacks() async throws {
        let fixture = try await LoopbackFixture.make()
        defer { Task { await fixture.server.stop() } }
        let request = try fixture.client.makeAuthorizationRequest()
        try await fixture.answer(["nonce": request.nonce], signer: try await Self.rotatedKey())

        let error = try #require(
            await #expect(throws: OAuthError.idTokenRejected) {
                try await fixture.client.exchange(AuthorizationCode("code"), for: request)
            }
        )
        #expect((error.cause as? IDTokenError) == .unknownKey)
        #expect(error.classification == .configuration)
        #expect(error.message.contains("plain HTTP"))
    }

    /// A refresh over plain HTTP whose ID token names an unknown key: the provider has rotated the refresh token,
    /// so the answer is kept without its ID token, and the session keeps the previous ID token and account.
    @Test func aRefreshOverPlainHTTPDropsTheUnverifiableIDTokenAndKeepsTheRotatedTokens() async throws {
        let fixture = try await LoopbackFixture.make()
        defer { Task { await fixture.server.stop() } }
        let previous = try await fixture.key.sign(claims())
        try await fixture.answer(signer: try await Self.rotatedKey())

        let response = try await fixture.client.refresh(Self.refreshRequest())
        #expect(response.refreshToken == RefreshToken("rotated-refresh"))
        #expect(response.idToken == nil)

        let store = MemoryStore()
        let account = Account(providerID: "canned", subject: "user-1", displayIdentifier: "user@example.test")
        _ = try await store.write(
            Connection(id: "canned", account: account, tokens: Self.refreshRequest(idToken: previous).tokens)
        )
        let session = Session(
            id: "canned",
            store: store,
            refresher: fixture.client,
            dateSource: .constant(fixedNow),
            logger: Self.quiet
        )
        _ = try await session.forceRefresh()
        let stored = try #require(try await store.read("canned"))
        #expect(stored.tokens.refreshToken == RefreshToken("rotated-refresh"))
        #expect(stored.tokens.idToken == previous)
        #expect(stored.account == account)
    }

    /// Claims that are wrong are refused whatever the transport: the checks run before the verdict on TLS.
    @Test(arguments: [("aud", "another-client", "audience"), ("sub", "another-user", "another user")])
    func aRefreshOverPlainHTTPStillRefusesWrongClaims(claim: String, value: String, named: String) async throws {
        let fixture = try await LoopbackFixture.make()
        defer { Task { await fixture.server.stop() } }
        try await fixture.answer([claim: value], signer: try await Self.rotatedKey())
        let error = try #require(
            await #expect(throws: OAuthError.idTokenRejected) {
                try await fixture.client.refresh(Self.refreshRequest())
            }
        )
        #expect(error.message.contains(named), "\(error.message)")
    }

    // MARK: - Over TLS

    /// An in-process provider at `https://issuer.test`: the token endpoint answers `tokenAnswer`, the key set has
    /// `key` only.
    static func tlsClient(key: TestKey, idToken: IDToken, logger: Logger) throws -> OAuthClient {
        let transport = StubTransport { request in
            var response = HTTPResponse(status: .ok)
            response.headerFields[.contentType] = "application/json"
            let body = request.path == "/keys" ? jwks(key) : tokenAnswer(idToken).body
            return (response, Data(body.utf8))
        }
        return try OAuthClient(
            configuration: ProviderConfiguration(
                providerID: "tls",
                issuer: testIssuer,
                tokenEndpoint: URL(string: "https://issuer.test/token")!,
                clientID: testClientID,
                scopes: ["openid"]
            ),
            transport: transport,
            idTokenValidator: JWKSIDTokenValidator(jwksURL: testKeysURL, transport: transport, logger: logger),
            dateSource: .constant(fixedNow),
            logger: logger
        )
    }

    @Test func overTLSAKeyTheSetLacksIsAcceptedOnItsClaimsAndSaysSo() async throws {
        let recorder = InMemoryLogRecorder()
        let idToken = try await Self.rotatedKey().sign(claims())
        let client = try Self.tlsClient(key: try await TestKey.rsa(), idToken: idToken, logger: recorder.logger)

        let response = try await client.refresh(Self.refreshRequest())

        #expect(response.idToken == idToken)
        #expect(
            recorder.entries.contains {
                $0.hasPrefix("info ") && $0.contains("its claims are accepted, as it came over TLS")
            },
            "\(recorder.entries)"
        )
    }

    /// A token without a signature is no signed token, whatever key it names.
    @Test func overTLSAKeyTheSetLacksWithAnEmptySignatureIsRefused() async throws {
        let signed = try await Self.rotatedKey().sign(claims()).revealedValue
        let unsigned = IDToken(String(signed[...signed.lastIndex(of: ".")!]))
        let client = try Self.tlsClient(key: try await TestKey.rsa(), idToken: unsigned, logger: Self.quiet)

        let error = try #require(
            await #expect(throws: OAuthError.idTokenRejected) { try await client.refresh(Self.refreshRequest()) }
        )
        #expect((error.cause as? IDTokenError) == .malformed)
    }
}
