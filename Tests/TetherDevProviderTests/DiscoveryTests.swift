import Foundation
import HTTPTypes
import HummingbirdTesting
import JWTKit
import Testing
import TetherDevProvider

@Suite(.timeLimit(.minutes(3)))
struct DiscoveryTests {
    @Test func discoveryDocumentAdvertisesEndpointsAndIssuer() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            for path in ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"] {
                let response = try await client.get(path)
                #expect(response.status == .ok)
                let json = try response.json()
                #expect(json["issuer"] as? String == "http://127.0.0.1:9999")
                #expect(json["token_endpoint"] as? String == "http://127.0.0.1:9999/token")
                #expect(json["authorization_endpoint"] as? String == "http://127.0.0.1:9999/authorize")
                #expect(json["revocation_endpoint"] as? String == "http://127.0.0.1:9999/revoke")
                #expect(
                    json["device_authorization_endpoint"] as? String == "http://127.0.0.1:9999/device_authorization"
                )
                #expect(json["userinfo_endpoint"] as? String == "http://127.0.0.1:9999/userinfo")
                #expect(json["jwks_uri"] as? String == "http://127.0.0.1:9999/jwks")
                #expect(json["code_challenge_methods_supported"] as? [String] == ["S256"])
                #expect(json["authorization_response_iss_parameter_supported"] as? Bool == true)
                #expect(json["id_token_signing_alg_values_supported"] as? [String] == ["RS256"])
                #expect((json["grant_types_supported"] as? [String])?.contains("refresh_token") == true)
                #expect(json["response_types_supported"] as? [String] == ["code"])
            }
        }
    }

    @Test func jwksPublishesTheKeyThatSignsIDTokens() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            let idToken = try #require(tokens["id_token"] as? String)
            let jwks = try await client.get("/jwks")
            let keys = JWTKeyCollection()
            try await keys.add(jwksJSON: jwks.text)
            let claims = try await keys.verify(idToken, as: IDTokenClaims.self)
            #expect(claims.iss.value == "http://127.0.0.1:9999")
            #expect(claims.aud.value == [Fixture.clientID])
            #expect(claims.nonce == "nonce-456")
            #expect(claims.sub.value == "ada-0001")
            #expect(claims.email == "ada@example.com")
            #expect(claims.azp == Fixture.clientID)
            let header = try #require(idToken.split(separator: ".").first)
            let headerJSON = try JSONSerialization.jsonObject(with: base64URLDecode(String(header))) as? [String: Any]
            let kid = try #require(headerJSON?["kid"] as? String)
            #expect(kid == (await provider.admin.currentKeyID()))
        }
    }

    @Test func jwksKeepsThePreviousKeyAfterRotation() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let oldKID = await provider.admin.currentKeyID()
            let oldTokens = try await client.signIn()
            let rotated = try await client.admin("/admin/rotate-keys", adminKey: provider.configuration.adminKey)
            let newKID = try #require(try rotated.json()["kid"] as? String)
            #expect(newKID != oldKID)
            let jwks = try await client.get("/jwks").json()
            let kids = (jwks["keys"] as? [[String: Any]])?.compactMap { $0["kid"] as? String }
            #expect(kids == [newKID, oldKID])
            // Tokens signed before and after rotation both verify against the published set.
            let newTokens = try await client.signIn()
            let keys = JWTKeyCollection()
            try await keys.add(jwksJSON: try await client.get("/jwks").text)
            _ = try await keys.verify(try #require(oldTokens["id_token"] as? String), as: IDTokenClaims.self)
            _ = try await keys.verify(try #require(newTokens["id_token"] as? String), as: IDTokenClaims.self)
        }
    }
}

struct IDTokenClaims: JWTPayload {
    let iss: IssuerClaim
    let sub: SubjectClaim
    let aud: AudienceClaim
    let exp: ExpirationClaim
    let iat: IssuedAtClaim
    let nonce: String?
    let azp: String?
    let email: String?
    let emailVerified: Bool?
    let name: String?
    let authTime: Int?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, azp, email, name
        case emailVerified = "email_verified"
        case authTime = "auth_time"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {
        // Tests run on a manual clock far from real time; expiry is checked separately.
    }
}

func base64URLDecode(_ string: String) -> Data {
    var base64 = string.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    return Data(base64Encoded: base64) ?? Data()
}

func jwtClaims(_ token: String) throws -> [String: Any] {
    let parts = token.split(separator: ".")
    guard parts.count == 3 else { throw TestFailure("not a JWT") }
    return try JSONSerialization.jsonObject(with: base64URLDecode(String(parts[1]))) as? [String: Any] ?? [:]
}

func jwtHeader(_ token: String) throws -> [String: Any] {
    let parts = token.split(separator: ".")
    guard parts.count == 3 else { throw TestFailure("not a JWT") }
    return try JSONSerialization.jsonObject(with: base64URLDecode(String(parts[0]))) as? [String: Any] ?? [:]
}
