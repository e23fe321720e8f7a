import Foundation
import JWTTestSupport
import Logging
import Testing
import Tether
import TetherJWT
import TetherTesting
import TetherURLSession

@testable import TetherOAuth

/// ID tokens that must not sign anyone in: each gives its own typed error, and nothing is stored.
@Suite(.timeLimit(.minutes(3)))
struct BadIDTokenTests {
    struct Fixture {
        let server: CannedServer
        let client: OAuthClient
        let request: AuthorizationRequest
        let key: TestKey

        static func make(jwksAt jwksURL: URL? = nil) async throws -> Fixture {
            let key = try await TestKey.rsa()
            let server = try await CannedServer.start(["jwks": .init(body: jwks(key))])
            let transport = URLSessionTransport()
            let configuration = ProviderConfiguration(
                providerID: "canned",
                issuer: testIssuer,
                authorizationEndpoint: server.base.appendingPathComponent("authorize"),
                tokenEndpoint: server.base.appendingPathComponent("token/exchange"),
                clientID: testClientID,
                scopes: ["openid", "email"],
                redirectURI: URL(string: "http://127.0.0.1:40000/callback")
            )
            let client = try OAuthClient(
                configuration: configuration,
                transport: transport,
                idTokenValidator: JWKSIDTokenValidator(
                    jwksURL: jwksURL ?? server.base.appendingPathComponent("jwks"),
                    transport: transport
                ),
                dateSource: .constant(fixedNow),
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            )
            return Fixture(server: server, client: client, request: try client.makeAuthorizationRequest(), key: key)
        }

        /// Answers the code exchange with an ID token carrying `overrides`, signed by `signer`.
        func answer(_ overrides: [String: (any Sendable)?], signer: TestKey? = nil) async throws {
            var claims = claims(overrides)
            if overrides["nonce"] == nil { claims["nonce"] = request.nonce }
            let idToken = try await (signer ?? key).sign(claims)
            server.set(
                "exchange",
                .init(
                    body:
                        #"{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt","id_token":"\#(idToken.revealedValue)"}"#
                )
            )
        }

        func exchange() async throws -> SignInResult {
            try await client.exchange(AuthorizationCode("code-1"), for: request)
        }
    }

    static func rejection(_ fixture: Fixture) async -> IDTokenError? {
        do {
            _ = try await fixture.exchange()
            return nil
        } catch let error as OAuthError {
            #expect(error == .idTokenRejected)
            return error.cause as? IDTokenError
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func validIDTokenSignsIn() async throws {
        let fixture = try await Fixture.make()
        defer { Task { await fixture.server.stop() } }
        try await fixture.answer([:])
        let result = try await fixture.exchange()
        #expect(result.account?.subject == "user-1")
        #expect(result.idTokenClaims?.nonce == fixture.request.nonce)
    }

    @Test func badSignatureIsRejected() async throws {
        let fixture = try await Fixture.make()
        defer { Task { await fixture.server.stop() } }
        let impostor = try await TestKey.rsa(Fixtures.rsaPrivateKeyB, kid: fixture.key.kid)
        try await fixture.answer([:], signer: impostor)
        #expect(await Self.rejection(fixture) == .badSignature)
    }

    /// A key the provider's key set lacks even after a fresh fetch, at a sign-in over plain HTTP (this canned server
    /// on loopback): without TLS nothing stands in for the signature, so the sign-in is refused
    /// (docs/decisions.md §32; `UnknownKeyTests` covers the same token over https, where its claims decide).
    @Test func keyMissingFromTheKeySetIsRefusedOverPlainHTTP() async throws {
        let fixture = try await Fixture.make()
        defer { Task { await fixture.server.stop() } }
        let rotated = try await TestKey.rsa(Fixtures.rsaPrivateKeyB, kid: "rsa-rotated")
        try await fixture.answer([:], signer: rotated)
        #expect(await Self.rejection(fixture) == .unknownKey)
    }

    @Test(arguments: [
        ("aud", "another-client", IDTokenError.wrongAudience),
        ("nonce", "replayed-nonce", .nonceMismatch),
    ])
    func keyMissingFromTheKeySetStillNeedsTheRightClaims(
        claim: String,
        value: String,
        expected: IDTokenError
    ) async throws {
        let fixture = try await Fixture.make()
        defer { Task { await fixture.server.stop() } }
        let rotated = try await TestKey.rsa(Fixtures.rsaPrivateKeyB, kid: "rsa-rotated")
        try await fixture.answer([claim: value], signer: rotated)
        #expect(await Self.rejection(fixture) == expected)
    }

    @Test(arguments: [
        ("aud", "another-client", IDTokenError.wrongAudience),
        ("iss", "https://evil.example", .wrongIssuer),
        ("nonce", "replayed-nonce", .nonceMismatch),
    ])
    func wrongClaimIsRejected(claim: String, value: String, expected: IDTokenError) async throws {
        let fixture = try await Fixture.make()
        defer { Task { await fixture.server.stop() } }
        try await fixture.answer([claim: value])
        #expect(await Self.rejection(fixture) == expected)
    }

    @Test func expiredIDTokenIsRejected() async throws {
        let fixture = try await Fixture.make()
        defer { Task { await fixture.server.stop() } }
        try await fixture.answer([
            "exp": fixedNow.timeIntervalSince1970 - 3600, "iat": fixedNow.timeIntervalSince1970 - 7200,
        ])
        #expect(await Self.rejection(fixture) == .expired)
    }

    @Test func unreachableJWKSIsTransient() async throws {
        let fixture = try await Fixture.make(jwksAt: URL(string: "http://127.0.0.1:9/jwks"))
        defer { Task { await fixture.server.stop() } }
        try await fixture.answer([:])
        do {
            _ = try await fixture.exchange()
            Issue.record("signed in without keys")
        } catch let error as OAuthError {
            #expect(error == .idTokenRejected)
            #expect(error.classification == .transient)
            #expect((error.cause as? IDTokenError) == .keysUnavailable)
        }
    }

    /// A refresh whose ID token cannot be checked against the provider's keys because they cannot be fetched: the
    /// provider has rotated the refresh token already, so the answer stands on its claims (docs/decisions.md §35).
    @Test func unreachableJWKSDuringARefreshFallsBackToTheClaims() async throws {
        let fixture = try await Fixture.make(jwksAt: URL(string: "http://127.0.0.1:9/jwks"))
        defer { Task { await fixture.server.stop() } }
        try await fixture.answer([:])
        let response = try await fixture.client.refresh(Self.refreshRequest(subject: "user-1"))
        #expect(response.refreshToken == RefreshToken("rt"))
    }

    @Test(arguments: [
        ("sub", "another-user", "another user"),
        ("aud", "another-client", "audience"),
    ])
    func unreachableJWKSDuringARefreshStillNeedsTheRightClaims(
        claim: String,
        value: String,
        named: String
    ) async throws {
        let fixture = try await Fixture.make(jwksAt: URL(string: "http://127.0.0.1:9/jwks"))
        defer { Task { await fixture.server.stop() } }
        try await fixture.answer([claim: value])
        do {
            _ = try await fixture.client.refresh(Self.refreshRequest(subject: "user-1"))
            Issue.record("a refreshed ID token with a wrong \(claim) was accepted")
        } catch let error as OAuthError {
            #expect(error == .idTokenRejected)
            #expect(error.message.contains(named), "\(error.message)")
        }
    }

    static func refreshRequest(subject: String) -> RefreshRequest {
        RefreshRequest(
            connectionID: ConnectionID("canned"),
            refreshToken: RefreshToken("rt-old"),
            account: Account(providerID: "canned", subject: subject),
            tokens: TokenSet(
                accessToken: AccessToken("at-old"),
                tokenType: "Bearer",
                receivedAt: fixedNow,
                expiresAt: nil
            )
        )
    }
}
