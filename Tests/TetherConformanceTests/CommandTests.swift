import Foundation
import Testing
import Tether
import TetherTestSupport

extension ConformanceTests {
    /// The real `tether` binary against DOT, as a person runs it: `login` through the server's form (or headless
    /// Chromium, or the device page), `status`, `token`, `request` and `logout`, and eight `tether token`
    /// processes across an expiry.
    @Suite(.conformanceServer)
    struct CommandTests {
        static let scope = ["--scope", "openid email profile offline_access read"]
        static let ada =
            Account(providerID: "dot", subject: "1", displayIdentifier: "ada@example.com")
            .maskedDisplayIdentifier ?? ""

        @Test func loginStatusTokenRequestAndLogout() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let server = harness.server
            let tether = TetherTool(harness)

            let login = try await tether.login("dot", Self.scope)
            #expect(login.status == 0, "\(login.stderr)")
            #expect(login.stderr.contains("Signed in to 'dot' as \(Self.ada)."), "\(login.stderr)")
            let row = try #require(try await tether.status().first)
            #expect(row["name"] as? String == "dot")
            #expect(row["state"] as? String == "connected")
            #expect(row["account"] as? String == Self.ada)
            var requests = try await server.requests()
            #expect(requests.tokenRequests("authorization_code").map(\.status) == [200], "\(requests)")

            // A valid token is printed without asking the server.
            let token = try await tether.run(["token", "dot"])
            #expect(token.status == 0, "\(token.stderr)")
            let accessToken = AccessToken(token.trimmedOutput)
            #expect(try await server.status(of: "/api/resource-rfc6750/", bearer: accessToken) == 200)
            requests = try await server.requests()
            #expect(requests.to("/o/token/").isEmpty, "\(requests)")

            let resource = try await tether.run(["request", "dot", server.url("/api/resource-rfc6750/").absoluteString])
            #expect(resource.status == 0, "\(resource.stderr)")
            #expect(resource.trimmedOutput == #"{"resource": "ok", "user": "ada"}"#)
            let userinfo = try await tether.run(["request", "dot", server.endpoint("userinfo/").absoluteString])
            #expect(userinfo.status == 0, "\(userinfo.stderr)")
            #expect(userinfo.trimmedOutput.contains(#""sub": "1""#), "\(userinfo.trimmedOutput)")

            // A token the server expired early: `request` refreshes once and retries.
            try await server.expire("access")
            try await server.requests()
            let retried = try await tether.run(["request", "dot", server.url("/api/resource-rfc6750/").absoluteString])
            #expect(retried.status == 0, "\(retried.stderr)")
            requests = try await server.requests()
            #expect(requests.to("/api/resource-rfc6750/").map(\.status) == [401, 200], "\(requests)")
            #expect(requests.tokenRequests("refresh_token").map(\.status) == [200], "\(requests)")
            let refreshed = try await tether.run(["token", "dot"])
            #expect(AccessToken(refreshed.trimmedOutput) != accessToken)

            // Logout revokes at the endpoint only the RFC 8414 document names.
            let logout = try await tether.run(["logout", "dot"])
            #expect(logout.status == 0, "\(logout.stderr)")
            #expect(logout.stderr == "Signed out of 'dot'.\n", "\(logout.stderr)")
            requests = try await server.requests()
            #expect(
                requests.to("/o/revoke_token/").map(\.description) == [
                    "POST /o/revoke_token/ client_auth=none token_type_hint=refresh_token -> 200"
                ],
                "\(requests)"
            )
            #expect(try await tether.status().first?["state"] as? String == "not-connected")
            let afterLogout = try await tether.run(["token", "dot"])
            #expect(afterLogout.status != 0)
        }

        @Test func deviceLoginThroughTheServersDevicePage() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            try await harness.server.with(["DEVICE_FLOW_INTERVAL": .int(1)]) {
                let tether = TetherTool(harness)
                let running = try tether.launch(
                    [
                        "login", "--issuer", harness.server.issuer, "--client-id", "tether-device", "--name", "dev",
                        "--device", "--device-authorization-endpoint",
                        harness.server.endpoint("device-authorization/").absoluteString,
                    ] + Self.scope
                )
                let line = try await running.waitForErrorLine(timeout: .seconds(30)) { $0.contains("enter the code") }
                let code = try #require(line.split(separator: " ").last.map(String.init))
                try await harness.answerDeviceCode(code)
                let login = try await running.finish(timeout: .seconds(30))
                #expect(login.status == 0, "\(login.stderr)")
                #expect(login.stderr.contains("Signed in to 'dev' as \(Self.ada)."), "\(login.stderr)")
                #expect(try await tether.status().first?["state"] as? String == "connected")
                let requests = try await harness.server.requests()
                #expect(requests.tokenRequests(DeviceGrantTests.deviceGrant).last?.status == 200, "\(requests)")
            }
        }

        @Test func confidentialClientsSignInWithTheirMethod() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let server = harness.server
            let tether = TetherTool(harness)
            let authentication = { (requests: [LoggedRequest]) in
                requests.filter { $0.path == "/o/token/" || $0.path == "/o/revoke_token/" }.map(\.description)
            }

            // DOT lists client_secret_post first: the default, right for tether-post.
            let post = try await tether.login(
                "post",
                client: "tether-post",
                ["--client-secret-file", try tether.secretFile(for: "tether-post")] + Self.scope
            )
            #expect(post.status == 0, "\(post.stderr)")
            #expect(
                authentication(try await server.requests()) == [
                    "POST /o/token/ grant_type=authorization_code client_auth=post -> 200"
                ]
            )

            // tether-basic must be told; then signing in again, refreshing and logging out keep the method.
            let basicSecret = ["--client-secret-file", try tether.secretFile(for: "tether-basic")]
            let refused = try await tether.login("basic", client: "tether-basic", basicSecret + Self.scope)
            #expect(refused.status == 5, "\(refused.stderr)")
            #expect(refused.stderr.contains("invalid_client"), "\(refused.stderr)")
            let basic = try await tether.login(
                "basic",
                client: "tether-basic",
                basicSecret + Self.scope + ["--client-auth-method", "client_secret_basic"]
            )
            #expect(basic.status == 0, "\(basic.stderr)")
            let again = try await tether.run(["login", "basic", "--timeout", "60"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try await tether.run(["token", "basic", "--force-refresh"]).status == 0)
            #expect(try await tether.run(["logout", "basic"]).status == 0)
            #expect(
                authentication(try await server.requests()) == [
                    "POST /o/token/ grant_type=authorization_code client_auth=post -> 401",
                    "POST /o/token/ grant_type=authorization_code client_auth=basic -> 200",
                    "POST /o/token/ grant_type=authorization_code client_auth=basic -> 200",
                    "POST /o/token/ grant_type=refresh_token client_auth=basic -> 200",
                    "POST /o/revoke_token/ client_auth=basic token_type_hint=refresh_token -> 200",
                ]
            )
        }

        @Test func eightTokenProcessesAcrossAnExpirySendOneRefresh() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let server = harness.server
            let tether = TetherTool(harness)
            // Signed in with a 5-second token; the refreshed one lives an hour, so no process can see it stale.
            let login = try await server.with(["ACCESS_TOKEN_EXPIRE_SECONDS": .int(5)]) {
                try await tether.login("pub", Self.scope)
            }
            #expect(login.status == 0, "\(login.stderr)")
            try await server.requests()

            // Past the token's expiry.
            try await Task.sleep(for: .seconds(5.5))
            let processes = try (0..<8).map { _ in try tether.launch(["token", "pub"]) }
            var results: [Subprocess.Result] = []
            for process in processes { results.append(try await process.finish(timeout: .seconds(90))) }

            #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
            // One refresh at the server, whose token all eight printed.
            let tokens = Set(results.map { AccessToken($0.trimmedOutput) })
            #expect(tokens.count == 1)
            let requests = try await server.requests()
            #expect(requests.tokenRequests("refresh_token").map(\.status) == [200], "\(requests)")
            for token in tokens {
                #expect(try await server.status(of: "/api/resource-rfc6750/", bearer: token) == 200)
            }
        }

        @Test(.enabled(if: HeadlessBrowser.isEnabled, "Needs Scripts/install-test-dependencies.sh"))
        func loginWithHeadlessChromium() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let tether = TetherTool(harness).with([
                "BROWSER": "python3 '\(HeadlessBrowser.script.path)'",
                "HEADLESS_BROWSER_USERNAME": "ada",
                "HEADLESS_BROWSER_PASSWORD": "lovelace",
            ])
            let login = try await tether.login("chromium", Self.scope)
            #expect(login.status == 0, "\(login.stderr)")
            #expect(login.stderr.contains("Signed in to 'chromium' as \(Self.ada)."), "\(login.stderr)")
            let requests = try await harness.server.requests()
            #expect(requests.to("/accounts/login/").map(\.method).contains("POST"), "\(requests)")
            #expect(requests.tokenRequests("authorization_code").map(\.status) == [200], "\(requests)")
        }
    }
}
