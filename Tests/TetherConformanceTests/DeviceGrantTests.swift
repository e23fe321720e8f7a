import Foundation
import Testing
import Tether
import TetherOAuth

extension ConformanceTests {
    /// The device authorization grant (RFC 8628) with DOT's device page as the person's second screen. Neither of
    /// DOT's metadata documents names the device endpoint, so the client is told it, as `tether login
    /// --device-authorization-endpoint` does.
    @Suite(.conformanceServer)
    struct DeviceGrantTests {
        static let fastPolling: [String: Setting] = ["DEVICE_FLOW_INTERVAL": .int(1)]
        static let deviceGrant = "urn:ietf:params:oauth:grant-type:device_code"

        static func client(
            _ harness: Harness,
            _ clientID: String = "tether-device",
            authentication: ProviderConfiguration.ClientAuthentication? = nil
        ) async throws -> OAuthClient {
            let secret = clientID.hasSuffix("confidential") ? try harness.server.secret(of: clientID) : nil
            var configuration = try await harness.discover(clientID, secret: secret, authentication: authentication)
            configuration.deviceAuthorizationEndpoint = harness.server.endpoint("device-authorization/")
            return try harness.client(configuration)
        }

        /// Starts a device authorization, waits for it while the person answers on the device page after one poll.
        static func signIn(
            _ harness: Harness,
            _ client: OAuthClient,
            decision: String = "accept"
        ) async throws
            -> SignInResult
        {
            let authorization = try await client.startDeviceAuthorization()
            #expect(authorization.verificationURI == harness.server.url("/o/device/"))
            #expect(authorization.interval == .seconds(1))
            async let result = client.waitForDeviceAuthorization(authorization)
            try await Task.sleep(for: .seconds(1.5))
            try await harness.answerDeviceCode(authorization.userCode, decision: decision)
            return try await result
        }

        @Test func aPublicClientSignsInAndTheAccountComesFromUserinfo() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            try await harness.server.with(Self.fastPolling) {
                let client = try await Self.client(harness)
                let result = try await Self.signIn(harness, client)

                #expect(result.account?.subject == "1")
                #expect(result.account?.displayIdentifier == "ada@example.com")
                // DOT issues no ID token for the device grant (finding 1): none is required.
                #expect(result.tokens.idToken == nil)
                #expect(result.idTokenClaims == nil)
                #expect(result.tokens.refreshToken != nil)
                let requests = try await harness.server.requests()
                #expect(requests.to("/o/device-authorization/").map(\.status) == [200], "\(requests)")
                #expect(requests.to("/o/device-authorization/").map(\.clientAuthentication) == ["none"])
                let polls = requests.tokenRequests(Self.deviceGrant).map(\.status)
                #expect(polls.last == 200, "\(requests)")
                #expect(polls.dropLast().allSatisfy { $0 == 400 } && polls.count >= 2, "\(requests)")
                #expect(requests.to("/o/userinfo/").map(\.status) == [200], "\(requests)")

                // Refreshing the device grant's token does bring an ID token: verified, the same user, kept.
                let session = harness.session(try harness.vault(), client: client)
                try await session.signIn(account: try #require(result.account), tokens: result.tokens)
                _ = try await session.forceRefresh()
                #expect(try await session.connection()?.tokens.idToken != nil)
                #expect(await session.status.kind == .connected)
            }
        }

        @Test func aDeniedDeviceCodeEndsTheWaitWithAccessDenied() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            try await harness.server.with(Self.fastPolling) {
                let client = try await Self.client(harness)
                await #expect(throws: OAuthError.accessDenied) {
                    _ = try await Self.signIn(harness, client, decision: "deny")
                }
                let requests = try await harness.server.requests()
                #expect(requests.tokenRequests(Self.deviceGrant).last?.status == 400, "\(requests)")
            }
        }

        @Test func aConfidentialClientAuthenticatesWithBasicAndStillNamesItself() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            try await harness.server.with(Self.fastPolling) {
                let client = try await Self.client(harness, "tether-device-confidential", authentication: .secretBasic)
                let result = try await Self.signIn(harness, client)
                #expect(result.tokens.accessToken != nil)
                let requests = try await harness.server.requests()
                #expect(
                    requests.to("/o/device-authorization/").map(\.description) == [
                        "POST /o/device-authorization/ client_auth=basic -> 200"
                    ]
                )
                let polls = requests.tokenRequests(Self.deviceGrant)
                #expect(polls.allSatisfy { $0.clientAuthentication == "basic" }, "\(requests)")
                #expect(polls.last?.status == 200, "\(requests)")
            }
        }

        @Test func aCodeNobodyApprovesEndsAtTheClientsOwnDeadline() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let shortCode = Self.fastPolling.merging(["DEVICE_CODE_EXPIRE_SECONDS": .int(3)]) { _, new in new }
            try await harness.server.with(shortCode) {
                let client = try await Self.client(harness)
                let authorization = try await client.startDeviceAuthorization()
                let started = ContinuousClock.now
                // DOT keeps answering authorization_pending after expiry (finding 13): only the client's deadline
                // ends the wait.
                await #expect(throws: OAuthError.deviceCodeExpired) {
                    _ = try await client.waitForDeviceAuthorization(authorization)
                }
                #expect(ContinuousClock.now - started < .seconds(10))
                let requests = try await harness.server.requests()
                let polls = requests.tokenRequests(Self.deviceGrant).map(\.status)
                #expect(!polls.isEmpty && polls.allSatisfy { $0 == 400 }, "\(requests)")
            }
        }
    }
}
