import HTTPTypes
import HummingbirdTesting
import Testing
import TetherDevProvider

@Suite(.timeLimit(.minutes(3)))
struct DeviceFlowTests {
    private func poll(_ client: some TestClientProtocol, _ deviceCode: String) async throws -> TestResponse {
        try await client.post(
            "/token",
            form: [
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode),
                ("client_id", Fixture.clientID),
            ]
        )
    }

    @Test func deviceFlowGoesFromPendingToSlowDownToApproved() async throws {
        let (provider, clock) = makeProvider { $0.devicePollingInterval = .seconds(1) }
        try await provider.application().test(.router) { client in
            let start = try await client.post(
                "/device_authorization",
                form: [("client_id", Fixture.clientID), ("scope", "openid offline_access")]
            )
            #expect(start.status == .ok)
            let json = try start.json()
            let deviceCode = try #require(json["device_code"] as? String)
            let userCode = try #require(json["user_code"] as? String)
            #expect(userCode.count == 9 && userCode.contains("-"))
            #expect(json["verification_uri"] as? String == "http://127.0.0.1:9999/device")
            #expect((json["verification_uri_complete"] as? String)?.contains("user_code=") == true)
            #expect(json["interval"] as? Int == 1)
            #expect(json["expires_in"] as? Int == 600)

            #expect(try await self.poll(client, deviceCode).json()["error"] as? String == "authorization_pending")
            #expect(try await self.poll(client, deviceCode).json()["error"] as? String == "slow_down")
            clock.advance(by: 2)
            // The interval grew by 5 s, so 2 s later is still too fast.
            #expect(try await self.poll(client, deviceCode).json()["error"] as? String == "slow_down")

            let entry = try await client.get("/device")
            #expect(entry.text.contains(#"name="user_code""#))
            let page = try await client.get("/device?user_code=" + userCode.lowercased())
            let requestID = try #require(page.requestID)
            #expect(page.text.contains(#"id="allow" name="decision" value="allow""#))
            let approved = try await client.post(
                "/device?user_code=" + userCode,
                form: [("request_id", requestID), ("username", "ada"), ("password", "lovelace"), ("decision", "allow")]
            )
            #expect(approved.status == .ok)
            #expect(approved.text.contains("Device connected"))

            clock.advance(by: 20)
            let tokens = try await self.poll(client, deviceCode)
            #expect(tokens.status == .ok)
            #expect(try tokens.json()["refresh_token"] is String)
            #expect(try await self.poll(client, deviceCode).json()["error"] as? String == "invalid_grant")
            let counters = await provider.admin.counters()
            #expect(counters[.slowDowns] == 2)
            #expect(counters[.deviceApprovals] == 1)
        }
    }

    @Test func expiredDeviceCodeIsExpiredToken() async throws {
        let (provider, clock) = makeProvider { $0.deviceCodeLifetime = .seconds(30) }
        try await provider.application().test(.router) { client in
            let start = try await client.post("/device_authorization", form: [("client_id", Fixture.clientID)])
            let deviceCode = try #require(try start.json()["device_code"] as? String)
            clock.advance(by: 31)
            #expect(try await self.poll(client, deviceCode).json()["error"] as? String == "expired_token")
        }
    }

    @Test func deniedDeviceCodeIsAccessDenied() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let start = try await client.post("/device_authorization", form: [("client_id", Fixture.clientID)])
            let json = try start.json()
            let deviceCode = try #require(json["device_code"] as? String)
            let page = try await client.get("/device?user_code=" + (try #require(json["user_code"] as? String)))
            _ = try await client.post(
                "/device",
                form: [("request_id", try #require(page.requestID)), ("decision", "deny")]
            )
            #expect(try await self.poll(client, deviceCode).json()["error"] as? String == "access_denied")
        }
    }
}
