import HTTPTypes
import HummingbirdTesting
import Testing
import TetherDevProvider

@Suite(.timeLimit(.minutes(3)))
struct RevocationTests {
    @Test func revokingARefreshTokenKillsItsGrantFamily() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            let refreshToken = try #require(tokens["refresh_token"] as? String)
            let accessToken = try #require(tokens["access_token"] as? String)
            let response = try await client.post(
                "/revoke",
                form: [("token", refreshToken), ("token_type_hint", "refresh_token"), ("client_id", Fixture.clientID)]
            )
            #expect(response.status == .ok)
            #expect(try await client.refresh(refreshToken).status == .badRequest)
            #expect(try await client.resource(token: accessToken).status == .unauthorized)
            #expect(await provider.admin.counters()[.revocations] == 1)
        }
    }

    @Test func revokingAnAccessTokenKillsOnlyThatToken() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            let accessToken = try #require(tokens["access_token"] as? String)
            let refreshToken = try #require(tokens["refresh_token"] as? String)
            _ = try await client.post("/revoke", form: [("token", accessToken), ("client_id", Fixture.clientID)])
            #expect(try await client.resource(token: accessToken).status == .unauthorized)
            #expect(try await client.refresh(refreshToken).status == .ok)
        }
    }

    @Test func revokingAnUnknownTokenSucceeds() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let response = try await client.post(
                "/revoke",
                form: [("token", "bogus"), ("client_id", Fixture.clientID)]
            )
            #expect(response.status == .ok)
            let missing = try await client.post("/revoke", form: [("client_id", Fixture.clientID)])
            #expect(try missing.json()["error"] as? String == "invalid_request")
        }
    }
}
