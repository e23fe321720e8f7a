import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTTestSupport
import NIOCore
import Testing
import Tether
import TetherHummingbird
import TetherJWT
import TetherOAuth
import TetherServer
import TetherTesting

/// `BearerTokenMiddleware` in front of a route, through Hummingbird's in-process test client.
struct BearerTokenMiddlewareTests {
    static let audience = "https://api.test"

    static func header(_ key: TestKey, alg: String? = nil, kid: String? = nil) -> [String: any Sendable] {
        ["alg": alg ?? key.alg, "kid": kid ?? key.kid, "typ": "at+jwt"]
    }

    static func accessClaims(_ overrides: [String: (any Sendable)?] = [:]) -> [String: any Sendable] {
        var values: [String: (any Sendable)?] = ["aud": audience, "nonce": nil, "scope": "read"]
        values.merge(overrides) { $1 }
        return claims(values)
    }

    static func makeApplication(
        transport: StubTransport
    ) -> some ApplicationProtocol {
        let verifier = AccessTokenVerifier.oidc(
            issuer: testIssuer,
            jwksURL: testKeysURL,
            audience: audience,
            transport: transport,
            dateSource: .constant(fixedNow),
            clock: ManualClock()
        )
        let router = Router(context: BearerRequestContext.self)
        router.add(middleware: BearerTokenMiddleware(verifier: verifier, realm: "test"))
        router.get("/me") { _, context -> String in context.verifiedToken?.subject ?? "nobody" }
        return Application(router: router)
    }

    /// Sends `GET /me` with the given `Authorization` values and returns status, challenge and body.
    static func call(
        _ authorization: [String],
        transport: StubTransport
    ) async throws -> (status: HTTPResponse.Status, challenge: String?, retryAfter: String?, body: String) {
        var headers = HTTPFields()
        for value in authorization { headers.append(HTTPField(name: .authorization, value: value)) }
        let fields = headers
        return try await makeApplication(transport: transport).test(.router) { client in
            try await client.execute(uri: "/me", method: .get, headers: fields) { response in
                (
                    response.status, response.headers[.wwwAuthenticate], response.headers[.retryAfter],
                    String(buffer: response.body)
                )
            }
        }
    }

    @Test func aValidTokenReachesTheRouteWithItsSubject() async throws {
        let key = try await TestKey.rsa()
        let token = try await key.sign(Self.accessClaims(), header: Self.header(key))
        let result = try await Self.call(
            ["Bearer \(token.revealedValue)"],
            transport: .serving(KeyDocument(jwks(key)))
        )
        #expect(result.status == .ok)
        #expect(result.body == "user-1")
        #expect(result.challenge == nil)
    }

    @Test(arguments: [[], ["Basic dXNlcjpwYXNz"], ["Bearer "], ["Bearer"], ["Bearer a", "Bearer b"]])
    func noBearerTokenIsAChallengeWithoutAnError(_ authorization: [String]) async throws {
        let key = try await TestKey.rsa()
        let result = try await Self.call(authorization, transport: .serving(KeyDocument(jwks(key))))
        #expect(result.status == .unauthorized)
        #expect(result.challenge == #"Bearer realm="test""#)
    }

    @Test func anExpiredTokenSaysSo() async throws {
        let key = try await TestKey.rsa()
        let token = try await key.sign(
            Self.accessClaims(["exp": fixedNow.timeIntervalSince1970 - 3600]),
            header: Self.header(key)
        )
        let result = try await Self.call(
            ["Bearer \(token.revealedValue)"],
            transport: .serving(KeyDocument(jwks(key)))
        )
        #expect(result.status == .unauthorized)
        #expect(
            result.challenge
                == #"Bearer realm="test", error="invalid_token", error_description="The access token expired""#
        )
    }

    enum BadToken: String, CaseIterable, Sendable {
        case wrongSignature
        case wrongAudience
        case algNone
        case unknownKeyID
        case malformedBase64
        case notAJWT
        case wrongType
    }

    static func make(_ bad: BadToken, key: TestKey) async throws -> String {
        switch bad {
        case .wrongSignature:
            let impostor = try await TestKey.rsa(Fixtures.rsaPrivateKeyB, kid: key.kid)
            return try await impostor.sign(accessClaims(), header: header(key)).revealedValue
        case .wrongAudience:
            return try await key.sign(accessClaims(["aud": "https://other.test"]), header: header(key)).revealedValue
        case .algNone:
            let token = rawToken(
                header: #"{"alg":"none","typ":"at+jwt"}"#,
                claims: String(decoding: try JSONSerialization.data(withJSONObject: accessClaims()), as: UTF8.self),
                signature: ""
            )
            return token.revealedValue
        case .unknownKeyID:
            return try await key.sign(accessClaims(), header: header(key, kid: "unknown")).revealedValue
        case .malformedBase64:
            return "eyJ!!!.@@@.###"
        case .notAJWT:
            return "opaque-token-value"
        case .wrongType:
            return try await key.sign(accessClaims(), header: ["alg": key.alg, "kid": key.kid, "typ": "JWT"])
                .revealedValue
        }
    }

    @Test(arguments: BadToken.allCases) func aBadTokenIsInvalidTokenWithADescription(_ bad: BadToken) async throws {
        let key = try await TestKey.rsa()
        let token = try await Self.make(bad, key: key)
        let result = try await Self.call(["Bearer \(token)"], transport: .serving(KeyDocument(jwks(key))))
        #expect(result.status == .unauthorized)
        let header = try #require(result.challenge)
        let challenge = try #require(AuthenticationChallenge.parse(header).first)
        #expect(challenge.scheme == "Bearer")
        #expect(challenge.parameters["realm"] == "test")
        #expect(challenge.error == "invalid_token")
        let description = try #require(challenge.errorDescription)
        #expect(description.hasPrefix("The access token"))
        #expect(description != "The access token expired")
        #expect(!description.contains(token))
    }

    @Test func unreachableKeysAre503WithRetryAfterNot401() async throws {
        let key = try await TestKey.rsa()
        let token = try await key.sign(Self.accessClaims(), header: Self.header(key))
        let result = try await Self.call(
            ["Bearer \(token.revealedValue)"],
            transport: .status(.badGateway)
        )
        #expect(result.status == .serviceUnavailable)
        #expect(result.retryAfter == "10")
        #expect(result.challenge == nil)
    }
}
