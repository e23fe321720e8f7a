import HTTPTypes
import HummingbirdTesting
import Testing
import TetherDevProvider

@Suite(.timeLimit(.minutes(3)))
struct ResourceTests {
    @Test func userinfoReturnsTheSignedInUser() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            let response = try await client.resource(
                "/userinfo",
                token: try #require(tokens["access_token"] as? String)
            )
            #expect(response.status == .ok)
            let json = try response.json()
            #expect(json["sub"] as? String == "ada-0001")
            #expect(json["email"] as? String == "ada@example.com")
            #expect(json["email_verified"] as? Bool == true)
            #expect(json["name"] as? String == "Ada Lovelace")
        }
    }

    @Test func resourceAnswers200WithAValidToken() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            let response = try await client.resource(token: try #require(tokens["access_token"] as? String))
            #expect(response.status == .ok)
            #expect(try response.json()["sub"] as? String == "ada-0001")
        }
    }

    @Test func resourceChallengesWithoutAnError() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let response = try await client.resource(token: nil)
            #expect(response.status == .unauthorized)
            #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="tether-dev""#)
        }
    }

    @Test func expiredAndUnknownTokensGetInvalidToken() async throws {
        let (provider, clock) = makeProvider()
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            let accessToken = try #require(tokens["access_token"] as? String)
            clock.advance(by: 3601)
            let expired = try await client.resource(token: accessToken)
            #expect(expired.status == .unauthorized)
            #expect(
                expired.headers[.wwwAuthenticate]
                    == #"Bearer realm="tether-dev", error="invalid_token", error_description="The access token expired""#
            )
            let unknown = try await client.resource(token: "nope")
            #expect(
                unknown.headers[.wwwAuthenticate]
                    == #"Bearer realm="tether-dev", error="invalid_token", error_description="The access token is not valid""#
            )
        }
    }

    @Test func adminResourceNeedsTheAdminScope() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn(scope: "openid")
            let response = try await client.resource(
                "/resource/admin",
                token: try #require(tokens["access_token"] as? String)
            )
            #expect(response.status == .forbidden)
            #expect(
                response.headers[.wwwAuthenticate]
                    == #"Bearer realm="tether-dev", error="insufficient_scope", scope="admin""#
            )
            let admin = try await client.signIn(scope: "openid admin")
            let allowed = try await client.resource(
                "/resource/admin",
                token: try #require(admin["access_token"] as? String)
            )
            #expect(allowed.status == .ok)
        }
    }
}
