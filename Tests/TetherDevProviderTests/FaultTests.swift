import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import TetherDevProvider

@Suite(.timeLimit(.minutes(3)))
struct FaultTests {
    @Test func nextRequestsAnswerServerErrorsThenRecover() async throws {
        let (provider, _) = makeProvider()
        await provider.admin.failNext(2, requestsTo: .token)
        try await provider.application().test(.router) { client in
            for _ in 0..<2 {
                let response = try await client.post("/token", form: [("client_id", Fixture.clientID)])
                #expect(response.status == .serviceUnavailable)
            }
            let recovered = try await client.post("/token", form: [("client_id", Fixture.clientID)])
            #expect(recovered.status == .badRequest)
            let counters = await provider.admin.counters()
            #expect(counters.requests(to: .token) == 3)
            #expect(counters.responses(from: .token, status: 503) == 2)
            #expect(counters.responses(from: .token, status: 400) == 1)
            #expect(counters[.injectedServerErrors] == 2)
        }
    }

    @Test func rateLimitAnswers429WithRetryAfter() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let set = try await client.admin(
                "/admin/faults",
                json: #"{"endpoint":"token","rate_limits":1,"retry_after":7}"#,
                adminKey: provider.configuration.adminKey
            )
            #expect(set.status == .ok)
            let limited = try await client.post("/token", form: [("client_id", Fixture.clientID)])
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] == "7")
            let next = try await client.post("/token", form: [("client_id", Fixture.clientID)])
            #expect(next.status == .badRequest)
        }
    }

    @Test func latencyDelaysTheEndpoint() async throws {
        let (provider, _) = makeProvider()
        await provider.admin.setLatency(.milliseconds(300), for: .discovery)
        try await provider.application().test(.router) { client in
            let clock = ContinuousClock()
            let start = clock.now
            let response = try await client.get("/.well-known/openid-configuration")
            #expect(response.status == .ok)
            #expect(clock.now - start >= .milliseconds(300))
            // Other endpoints are not delayed: the fault is recorded for discovery only.
            #expect(await provider.admin.faults().latency[.jwks] == nil)
        }
    }

    @Test func clockSkewShiftsTokenTimestamps() async throws {
        let (provider, clock) = makeProvider()
        await provider.admin.setClockSkew(.seconds(-600))
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            let claims = try jwtClaims(try #require(tokens["id_token"] as? String))
            #expect(claims["iat"] as? Int == Int(clock.now.timeIntervalSince1970) - 600)
            #expect(claims["exp"] as? Int == Int(clock.now.timeIntervalSince1970) - 600 + 3600)
        }
    }

    @Test func countersAreReadableOverHTTP() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            _ = try await client.refresh(try #require(tokens["refresh_token"] as? String))
            var headers = HTTPFields()
            headers[HTTPField.Name("X-Tether-Admin")!] = provider.configuration.adminKey
            let response = try await client.get("/admin/counters", headers: headers)
            #expect(response.status == .ok)
            let json = try response.json()
            let events = try #require(json["events"] as? [String: Int])
            #expect(events["codes_exchanged"] == 1)
            #expect(events["refreshes"] == 1)
            let requests = try #require(json["requests"] as? [String: Int])
            #expect(requests["token"] == 2)
            #expect(requests["authorize"] == 2)
            #expect((json["outcomes"] as? [String: Int])?["authorize 302"] == 1)
        }
    }

    @Test func adminAPIRequiresTheKey() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let noKeyGet = try await client.get("/admin/counters")
            #expect(noKeyGet.status == .unauthorized)
            let noKey = try await client.admin("/admin/reset", adminKey: nil)
            #expect(noKey.status == .unauthorized)
            let wrongKey = try await client.admin("/admin/reset", adminKey: "wrong")
            #expect(wrongKey.status == .unauthorized)
            let rightKey = try await client.admin("/admin/reset", adminKey: provider.configuration.adminKey)
            #expect(rightKey.status == .ok)
        }
    }

    @Test(arguments: ["/admin/users/disable", "/admin/users/enable"])
    func disablingOrEnablingWithoutAUsernameIsInvalidRequest(_ path: String) async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let response = try await client.admin(path, adminKey: provider.configuration.adminKey)
            #expect(response.status == .badRequest)
            let json = try response.json()
            #expect(json["error"] as? String == "invalid_request")
            #expect(json["error_description"] as? String == "username")
        }
    }

    @Test func adminCanDisableUsersAndRevokeTheirGrants() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let tokens = try await client.signIn()
            let refreshToken = try #require(tokens["refresh_token"] as? String)
            let ada = #"{"username":"ada"}"#
            let key = provider.configuration.adminKey
            #expect(try await client.admin("/admin/users/disable", json: ada, adminKey: key).status == .ok)
            let disabled = try await client.refresh(refreshToken).json()
            #expect(disabled["error"] as? String == "invalid_grant")
            #expect(disabled["error_description"] as? String == "The user account is disabled.")
            #expect(try await client.admin("/admin/users/enable", json: ada, adminKey: key).status == .ok)
            #expect(try await client.refresh(refreshToken).status == .ok)

            let revoked = try await client.admin("/admin/revoke-grants", json: ada, adminKey: key)
            #expect(try revoked.json()["revoked"] as? Int == 1)
            #expect(try await client.refresh(refreshToken).status == .badRequest)
        }
    }

    @Test func adminMintsTokensWithoutTheBrowser() async throws {
        let (provider, _) = makeProvider()
        let tokens = try await provider.admin.issueTokens(username: "ada")
        try await provider.application().test(.router) { client in
            let before = try await client.resource(token: tokens.accessToken)
            #expect(before.status == .ok)
            let refreshed = try await client.refresh(try #require(tokens.refreshToken))
            #expect(refreshed.status == .ok)
            await provider.admin.expireAccessTokens()
            let after = try await client.resource(token: tokens.accessToken)
            #expect(after.status == .unauthorized)
        }
    }

    @Test func droppedConnectionIsSeenAsATransportError() async throws {
        let (provider, _) = makeProvider()
        await provider.admin.dropNext(1, connectionsTo: .discovery)
        try await provider.application().test(.live) { client in
            let error = await #expect(throws: (any Error).self) {
                _ = try await client.get("/.well-known/openid-configuration")
            }
            #expect(error != nil)
        }
        #expect(await provider.admin.counters()[.droppedConnections] == 1)
    }

    @Test func droppedAnswerRotatesTheRefreshTokenThenClosesTheConnection() async throws {
        let (provider, _) = makeProvider()
        let tokens = try await provider.admin.issueTokens(username: "ada")
        let refreshToken = try #require(tokens.refreshToken)
        await provider.admin.dropNextAnswers(1, from: .token)
        try await provider.application().test(.live) { client in
            let error = await #expect(throws: (any Error).self) { _ = try await client.refresh(refreshToken) }
            #expect(error != nil)
        }
        var counters = await provider.admin.counters()
        #expect(counters[.droppedAnswers] == 1)
        #expect(counters[.rotations] == 1)
        try await provider.application().test(.router) { client in
            // The client never saw the new refresh token; the old one is spent, and reuse revokes the grant.
            let retry = try await client.refresh(refreshToken)
            #expect(retry.status == .badRequest)
            #expect(try retry.json()["error"] as? String == "invalid_grant")
        }
        counters = await provider.admin.counters()
        #expect(counters[.reuseDetections] == 1)
    }

    @Test func droppedAnswerWithinTheGracePeriodIsReplayed() async throws {
        let (provider, _) = makeProvider { $0.reuseGracePeriod = .seconds(10) }
        let tokens = try await provider.admin.issueTokens(username: "ada")
        let refreshToken = try #require(tokens.refreshToken)
        await provider.admin.dropNextAnswers(1, from: .token)
        try await provider.application().test(.live) { client in
            _ = try? await client.refresh(refreshToken)
        }
        try await provider.application().test(.router) { client in
            let retry = try await client.refresh(refreshToken)
            #expect(retry.status == .ok)
            let rotated = try #require(try retry.json()["refresh_token"] as? String)
            #expect(try await client.refresh(rotated).status == .ok)
        }
        let counters = await provider.admin.counters()
        #expect(counters[.graceReplays] == 1)
        #expect(counters[.reuseDetections] == 0)
    }

    /// The statuses of `count` token requests under random faults with `seed`.
    func statuses(seed: UInt64, count: Int) async throws -> (statuses: [Int], counters: DevProvider.Counters) {
        let random = DevProvider.RandomFaults(rate: 1, kinds: [.serverError, .rateLimit], seed: seed)
        let (provider, _) = makeProvider { $0.faults.random = random }
        let statuses = try await provider.application().test(.router) { client in
            var statuses: [Int] = []
            for _ in 0..<count {
                let response = try await client.post("/token", form: [("client_id", Fixture.clientID)])
                statuses.append(Int(response.status.code))
            }
            return statuses
        }
        return (statuses, await provider.admin.counters())
    }

    @Test func randomFaultsRepeatWithTheSeedAndAreCountedByKind() async throws {
        let first = try await statuses(seed: 42, count: 40)
        let again = try await statuses(seed: 42, count: 40)
        let other = try await statuses(seed: 43, count: 40)
        #expect(first.statuses == again.statuses)
        #expect(first.statuses != other.statuses)
        #expect(Set(first.statuses).isSubset(of: [429, 500, 502, 503, 504]))
        #expect(first.statuses.contains(429) && first.statuses.contains { $0 >= 500 })
        let counters = first.counters
        #expect(counters[.injectedRateLimits] == first.statuses.count { $0 == 429 })
        #expect(counters[.injectedServerErrors] == first.statuses.count { $0 >= 500 })
    }

    @Test func randomFaultsAreSetAndStoppedOverTheAdminAPI() async throws {
        let (provider, _) = makeProvider()
        let key = provider.configuration.adminKey
        try await provider.application().test(.router) { client in
            let on = #"{"endpoint":"token","random_percent":100,"random_kinds":["rate-limit"],"random_seed":7}"#
            #expect(try await client.admin("/admin/faults", json: on, adminKey: key).status == .ok)
            let random = try #require(await provider.admin.faults().random)
            #expect(random.rate == 1 && random.seed == 7 && random.kinds == [.rateLimit])
            #expect(try await client.post("/token", form: [("client_id", Fixture.clientID)]).status == .tooManyRequests)
            let off = #"{"endpoint":"token","random_percent":0}"#
            #expect(try await client.admin("/admin/faults", json: off, adminKey: key).status == .ok)
            #expect(try await client.post("/token", form: [("client_id", Fixture.clientID)]).status == .badRequest)
            let unknown = #"{"endpoint":"token","random_percent":10,"random_kinds":["meteor"]}"#
            #expect(try await client.admin("/admin/faults", json: unknown, adminKey: key).status == .badRequest)
        }
    }
}
