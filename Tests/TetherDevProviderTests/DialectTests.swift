import Foundation
import HTTPTypes
import HummingbirdTesting
import JWTKit
import Testing
import TetherDevProvider

@Suite(.timeLimit(.minutes(3)))
struct DialectTests {
    @Test func googleDoesNotRotateAndUsesItsErrorBodies() async throws {
        let (provider, _) = makeProvider { $0.dialect = .google }
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            #expect(tokens["scope"] as? String == "openid email profile offline_access")
            let refreshToken = try #require(tokens["refresh_token"] as? String)
            let refreshed = try await client.refresh(refreshToken).json()
            #expect(refreshed["refresh_token"] == nil)
            #expect(refreshed["access_token"] is String)
            #expect(try await client.refresh(refreshToken).status == .ok)

            await provider.admin.revokeAllGrants()
            let revoked = try await client.refresh(refreshToken)
            #expect(revoked.status == .badRequest)
            let body = try revoked.json()
            #expect(body["error"] as? String == "invalid_grant")
            #expect(body["error_description"] as? String == "Token has been expired or revoked.")

            let unknown = try await client.post("/revoke", form: [("token", "bogus")])
            #expect(unknown.status == .badRequest)
            let unknownBody = try unknown.json()
            #expect(unknownBody.count == 1)
            #expect(unknownBody["error"] as? String == "invalid_token")
        }
    }

    @Test func microsoftErrorsCarryAADSTSFields() async throws {
        let (provider, _) = makeProvider { $0.dialect = .microsoft }
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            #expect(tokens["ext_expires_in"] as? Int == 3600)
            let refreshToken = try #require(tokens["refresh_token"] as? String)
            let rotated = try await client.refresh(refreshToken).json()
            let next = try #require(rotated["refresh_token"] as? String)
            #expect(next != refreshToken)

            await provider.admin.requireInteractionOnNextRefreshes()
            let interaction = try await client.refresh(next).json()
            #expect(interaction["error"] as? String == "interaction_required")
            #expect(interaction["error_codes"] as? [Int] == [50076])
            #expect((interaction["error_description"] as? String)?.hasPrefix("AADSTS50076:") == true)

            await provider.admin.revokeAllGrants()
            let revoked = try await client.refresh(next).json()
            #expect(revoked["error"] as? String == "invalid_grant")
            #expect(revoked["error_codes"] as? [Int] == [50173])
            #expect((revoked["error_description"] as? String)?.hasPrefix("AADSTS50173:") == true)
            #expect(revoked["timestamp"] is String)
            #expect(revoked["trace_id"] is String)
            #expect(revoked["correlation_id"] is String)
            #expect(revoked["error_uri"] as? String == "https://login.microsoftonline.com/error?code=50173")
        }
    }

    @Test func microsoftExpiredRefreshTokenIsAADSTS700082() async throws {
        let (provider, clock) = makeProvider {
            $0.dialect = .microsoft
            $0.refreshTokenLifetime = .seconds(3600)
        }
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            clock.advance(by: 3601)
            let response = try await client.refresh(try #require(tokens["refresh_token"] as? String)).json()
            #expect(response["error_codes"] as? [Int] == [700_082])
        }
    }

    @Test func microsoftDeviceDenialIsAuthorizationDeclined() async throws {
        let (provider, _) = makeProvider { $0.dialect = .microsoft }
        try await provider.application().test(.router) { client in
            let start = try await client.post("/device_authorization", form: [("client_id", Fixture.clientID)]).json()
            let deviceCode = try #require(start["device_code"] as? String)
            let page = try await client.get("/device?user_code=" + (try #require(start["user_code"] as? String)))
            let requestID = try #require(page.requestID)
            _ = try await client.post("/device", form: [("request_id", requestID), ("decision", "deny")])
            let poll = try await client.post(
                "/token",
                form: [
                    ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode),
                    ("client_id", Fixture.clientID),
                ]
            )
            #expect(try poll.json()["error"] as? String == "authorization_declined")
        }
    }

    @Test func firebaseRefreshUsesStringExpiresInAndItsErrorBodies() async throws {
        let (provider, _) = makeProvider { $0.dialect = .firebase }
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            let refreshToken = try #require(tokens["refresh_token"] as? String)
            let response = try await client.post(
                "/v1/token?key=tether-dev-api-key",
                form: [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
            )
            #expect(response.status == .ok)
            let json = try response.json()
            #expect(json["expires_in"] as? String == "3600")
            #expect(json["token_type"] as? String == "Bearer")
            #expect(json["refresh_token"] as? String == refreshToken)
            #expect(json["id_token"] is String)
            #expect(json["user_id"] as? String == "ada-0001")
            #expect(json["project_id"] as? String == "tether-dev")

            let badKey = try await client.post(
                "/v1/token?key=wrong",
                form: [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
            )
            #expect(badKey.status == .badRequest)
            let badKeyError = try #require(try badKey.json()["error"] as? [String: Any])
            #expect(badKeyError["message"] as? String == "API key not valid. Please pass a valid API key.")

            let unknown = try await client.post(
                "/v1/token?key=tether-dev-api-key",
                form: [("grant_type", "refresh_token"), ("refresh_token", "bogus")]
            )
            #expect((try unknown.json()["error"] as? [String: Any])?["message"] as? String == "INVALID_REFRESH_TOKEN")

            await provider.admin.disableUser("ada")
            let disabled = try await client.post(
                "/v1/token?key=tether-dev-api-key",
                form: [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
            )
            let error = try #require(try disabled.json()["error"] as? [String: Any])
            #expect(error["code"] as? Int == 400)
            #expect(error["message"] as? String == "USER_DISABLED")
            #expect(error["status"] as? String == "INVALID_ARGUMENT")

            await provider.admin.enableUser("ada")
            await provider.admin.revokeAllGrants()
            let expired = try await client.post(
                "/v1/token?key=tether-dev-api-key",
                form: [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
            )
            #expect((try expired.json()["error"] as? [String: Any])?["message"] as? String == "TOKEN_EXPIRED")

            let wrongGrant = try await client.post(
                "/v1/token?key=tether-dev-api-key",
                form: [("grant_type", "password")]
            )
            #expect((try wrongGrant.json()["error"] as? [String: Any])?["message"] as? String == "INVALID_GRANT_TYPE")
            let missing = try await client.post(
                "/v1/token?key=tether-dev-api-key",
                form: [("grant_type", "refresh_token")]
            )
            #expect((try missing.json()["error"] as? [String: Any])?["message"] as? String == "MISSING_REFRESH_TOKEN")
        }
    }

    @Test func appleAcceptsAValidClientSecretJWTAndRejectsOthers() async throws {
        let signingKey = ES256PrivateKey()
        let appleClient = DevProvider.ClientRegistration(
            id: "com.example.app",
            redirectURIs: [Fixture.redirectURI],
            appleSignInKey: .init(
                teamID: "TEAM123456",
                keyID: "KEY1234567",
                publicKeyPEM: signingKey.publicKey.pemRepresentation
            )
        )
        let (provider, clock) = makeProvider {
            $0.dialect = .apple
            $0.clients = [appleClient]
        }
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: signingKey, kid: "KEY1234567")
        let otherKey = JWTKeyCollection()
        await otherKey.add(ecdsa: ES256PrivateKey(), kid: "KEY1234567")
        let now = Int(clock.now.timeIntervalSince1970)
        let valid = try await appleSecret(keys, iat: now, exp: now + 3600)
        let wrongTeam = try await appleSecret(keys, team: "OTHERTEAM1", iat: now, exp: now + 3600)
        let tooLong = try await appleSecret(keys, iat: now, exp: now + 15_777_001)
        let forged = try await appleSecret(otherKey, iat: now, exp: now + 3600)

        try await provider.application().test(.router) { client in
            let result = try await client.authorize(clientID: "com.example.app")
            let code = try #require(result.query["code"])
            let rejected = try await client.exchange(
                code: code,
                clientID: "com.example.app",
                extraFields: [("client_secret", wrongTeam)]
            )
            #expect(rejected.status == .unauthorized)
            #expect(try rejected.json()["error"] as? String == "invalid_client")
            for secret in [tooLong, forged, "not-a-jwt"] {
                let response = try await client.exchange(
                    code: code,
                    clientID: "com.example.app",
                    extraFields: [("client_secret", secret)]
                )
                #expect(try response.json()["error"] as? String == "invalid_client")
            }

            let accepted = try await client.exchange(
                code: code,
                clientID: "com.example.app",
                extraFields: [("client_secret", valid)]
            )
            #expect(accepted.status == .ok)
            let tokens = try accepted.json()
            #expect(Set(tokens.keys) == ["access_token", "expires_in", "id_token", "refresh_token", "token_type"])

            let refresh = try await client.refresh(
                try #require(tokens["refresh_token"] as? String),
                clientID: "com.example.app",
                extraFields: [("client_secret", valid)]
            )
            #expect(refresh.status == .ok)
            #expect(try refresh.json()["refresh_token"] == nil)

            let revoke = try await client.post(
                "/auth/revoke",
                form: [("client_id", "com.example.app"), ("client_secret", valid), ("token", "bogus")]
            )
            #expect(revoke.status == .ok)
        }
    }
}

struct AppleClientSecret: JWTPayload {
    let iss: String
    let sub: String
    let aud: String
    let iat: Int
    let exp: Int

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

func appleSecret(_ keys: JWTKeyCollection, team: String = "TEAM123456", iat: Int, exp: Int) async throws -> String {
    let claims = AppleClientSecret(
        iss: team,
        sub: "com.example.app",
        aud: "https://appleid.apple.com",
        iat: iat,
        exp: exp
    )
    return try await keys.sign(claims, kid: "KEY1234567")
}
