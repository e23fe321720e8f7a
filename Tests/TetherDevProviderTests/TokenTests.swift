import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import TetherDevProvider

@Suite(.timeLimit(.minutes(3)))
struct TokenTests {
    @Test func codeExchangeWithTheRightVerifierReturnsTokens() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let result = try await client.authorize()
            let response = try await client.exchange(code: try #require(result.query["code"]))
            #expect(response.status == .ok)
            #expect(response.headers[.cacheControl] == "no-store")
            #expect(response.headers[HTTPField.Name("Pragma")!] == "no-cache")
            let json = try response.json()
            #expect(json["token_type"] as? String == "Bearer")
            #expect(json["expires_in"] as? Int == 3600)
            #expect((json["access_token"] as? String)?.isEmpty == false)
            #expect((json["refresh_token"] as? String)?.isEmpty == false)
            let idToken = try #require(json["id_token"] as? String)
            let claims = try jwtClaims(idToken)
            #expect(claims["nonce"] as? String == "nonce-456")
            #expect(claims["email_verified"] as? Bool == true)
            #expect(claims["name"] as? String == "Ada Lovelace")
            #expect(claims["auth_time"] is Int)
            #expect(await provider.admin.counters()[.codesExchanged] == 1)
        }
    }

    /// A wrong verifier is invalid_grant, a missing one invalid_request.
    @Test(arguments: [(Fixture.wrongVerifier, "invalid_grant"), (nil, "invalid_request")] as [(String?, String)])
    func aWrongOrMissingVerifierIsRefused(verifier: String?, error: String) async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let result = try await client.authorize()
            let response = try await client.exchange(code: try #require(result.query["code"]), verifier: verifier)
            #expect(response.status == .badRequest)
            #expect(try response.json()["error"] as? String == error)
        }
    }

    @Test func reusedCodeIsInvalidGrantAndRevokesTheFirstTokens() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let code = try #require(try await client.authorize().query["code"])
            let first = try await client.exchange(code: code).json()
            let accessToken = try #require(first["access_token"] as? String)
            let refreshToken = try #require(first["refresh_token"] as? String)
            #expect(try await client.resource(token: accessToken).status == .ok)
            let second = try await client.exchange(code: code)
            #expect(second.status == .badRequest)
            #expect(try second.json()["error"] as? String == "invalid_grant")
            #expect(try await client.resource(token: accessToken).status == .unauthorized)
            #expect(try await client.refresh(refreshToken).status == .badRequest)
            #expect(await provider.admin.counters()[.codeReuses] == 1)
        }
    }

    @Test func codeIsBoundToTheRedirectURI() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let code = try #require(try await client.authorize().query["code"])
            let response = try await client.post(
                "/token",
                form: [
                    ("grant_type", "authorization_code"), ("code", code), ("client_id", Fixture.clientID),
                    ("redirect_uri", "http://127.0.0.1:1/callback"), ("code_verifier", Fixture.verifier),
                ]
            )
            #expect(try response.json()["error"] as? String == "invalid_grant")
        }
    }

    @Test func codeIsBoundToTheClient() async throws {
        let other = DevProvider.ClientRegistration(id: "other-client", redirectURIs: [Fixture.redirectURI])
        let (provider, _) = makeProvider { $0.clients = [.defaultClient, other] }
        try await provider.application().test(.router) { client in
            let code = try #require(try await client.authorize().query["code"])
            let response = try await client.exchange(code: code, clientID: "other-client")
            #expect(response.status == .badRequest)
            #expect(try response.json()["error"] as? String == "invalid_grant")
        }
    }

    @Test func refreshRotatesTheRefreshToken() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            let first = try #require(tokens["refresh_token"] as? String)
            let refreshed = try await client.refresh(first)
            #expect(refreshed.status == .ok)
            #expect(refreshed.headers[.cacheControl] == "no-store")
            let json = try refreshed.json()
            let second = try #require(json["refresh_token"] as? String)
            #expect(second != first)
            #expect(json["access_token"] as? String != tokens["access_token"] as? String)
            #expect(json["id_token"] is String)
            let third = try await client.refresh(second)
            #expect(third.status == .ok)
            let counters = await provider.admin.counters()
            #expect(counters[.refreshes] == 2)
            #expect(counters[.rotations] == 2)
        }
    }

    @Test func reusingASpentRefreshTokenRevokesTheWholeFamily() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            let first = try #require(tokens["refresh_token"] as? String)
            let rotated = try await client.refresh(first).json()
            let current = try #require(rotated["refresh_token"] as? String)
            let currentAccess = try #require(rotated["access_token"] as? String)

            let reuse = try await client.refresh(first)
            #expect(reuse.status == .badRequest)
            #expect(try reuse.json()["error"] as? String == "invalid_grant")

            let afterReuse = try await client.refresh(current)
            #expect(afterReuse.status == .badRequest)
            #expect(try afterReuse.json()["error"] as? String == "invalid_grant")
            #expect(try await client.resource(token: currentAccess).status == .unauthorized)
            #expect(await provider.admin.counters()[.reuseDetections] == 1)
        }
    }

    @Test func reuseWithinTheGracePeriodReturnsTheSameTokens() async throws {
        let (provider, clock) = makeProvider { $0.reuseGracePeriod = .seconds(30) }
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            let first = try #require(tokens["refresh_token"] as? String)
            let rotated = try await client.refresh(first).json()
            clock.advance(by: 10)
            let replay = try await client.refresh(first)
            #expect(replay.status == .ok)
            let replayed = try replay.json()
            #expect(replayed["refresh_token"] as? String == rotated["refresh_token"] as? String)
            #expect(replayed["access_token"] as? String == rotated["access_token"] as? String)
            clock.advance(by: 60)
            let late = try await client.refresh(first)
            #expect(late.status == .badRequest)
            let counters = await provider.admin.counters()
            #expect(counters[.graceReplays] == 1)
            #expect(counters[.reuseDetections] == 1)
        }
    }

    @Test func confidentialClientsAuthenticateWithBasicOrPost() async throws {
        let confidential = DevProvider.ClientRegistration(
            id: "confidential",
            secret: "s3cret",
            redirectURIs: [Fixture.redirectURI]
        )
        let (provider, _) = makeProvider { $0.clients = [confidential] }
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn(
                clientID: "confidential",
                extraTokenFields: [("client_secret", "s3cret")]
            )
            let refreshToken = try #require(tokens["refresh_token"] as? String)

            var basic = HTTPFields()
            basic[.authorization] = "Basic " + Data("confidential:s3cret".utf8).base64EncodedString()
            let viaBasic = try await client.post(
                "/token",
                form: [("grant_type", "refresh_token"), ("refresh_token", refreshToken)],
                headers: basic
            )
            #expect(viaBasic.status == .ok)

            var wrong = HTTPFields()
            wrong[.authorization] = "Basic " + Data("confidential:nope".utf8).base64EncodedString()
            let rejected = try await client.post("/token", form: [("grant_type", "refresh_token")], headers: wrong)
            #expect(rejected.status == .unauthorized)
            #expect(rejected.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)
            #expect(try rejected.json()["error"] as? String == "invalid_client")

            let noSecret = try await client.refresh("whatever", clientID: "confidential")
            #expect(try noSecret.json()["error"] as? String == "invalid_client")
        }
    }

    @Test func unknownGrantTypeIsUnsupported() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let response = try await client.post(
                "/token",
                form: [("grant_type", "password"), ("client_id", Fixture.clientID)]
            )
            #expect(try response.json()["error"] as? String == "unsupported_grant_type")
        }
    }

    @Test func jwtAccessTokensFollowRFC9068() async throws {
        let (provider, _) = makeProvider { $0.accessTokenFormat = .jwt }
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            let accessToken = try #require(tokens["access_token"] as? String)
            #expect(try jwtHeader(accessToken)["typ"] as? String == "at+jwt")
            let claims = try jwtClaims(accessToken)
            #expect(claims["client_id"] as? String == Fixture.clientID)
            #expect(claims["sub"] as? String == "ada-0001")
            #expect(try await client.resource(token: accessToken).status == .ok)
        }
    }

    @Test func noRefreshTokenWithoutOfflineAccessUnlessConfigured() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn(scope: "openid")
            #expect(tokens["refresh_token"] == nil)
        }
        let (always, _) = makeProvider { $0.refreshTokenIssuance = .always }
        try await always.application().test(.router) { client in
            let tokens = try await client.signIn(scope: "openid")
            #expect(tokens["refresh_token"] is String)
        }
    }
}
