import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import TetherDevProvider

@Suite(.timeLimit(.minutes(3)))
struct AuthorizationTests {
    @Test func authorizePageRendersTheFormContract() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let page = try await client.authorizationPage(scope: "openid email", loginHint: "ada")
            #expect(page.status == .ok)
            let html = page.text
            #expect(html.contains(#"<form method="post">"#))
            #expect(html.contains(#"id="username" name="username""#))
            #expect(html.contains(#"id="password" name="password""#))
            #expect(html.contains(#"id="allow" name="decision" value="allow""#))
            #expect(html.contains(#"id="deny" name="decision" value="deny""#))
            #expect(html.contains(#"value="ada""#))
            #expect(html.contains("tether-dev-client"))
            #expect(html.contains("<code>openid</code>") && html.contains("<code>email</code>"))
            #expect(page.requestID != nil)
            #expect(!html.contains("redirect_uri"))
        }
    }

    @Test func rightPasswordRedirectsWithCodeStateAndIssuer() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let result = try await client.authorize()
            #expect(result.location.hasPrefix(Fixture.redirectURI + "?"))
            #expect(result.query["code"]?.isEmpty == false)
            #expect(result.query["state"] == "state-123")
            #expect(result.query["iss"] == "http://127.0.0.1:9999")
        }
    }

    @Test func wrongPasswordShowsThePageAgainWithAnError() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let page = try await client.authorizationPage()
            let requestID = try #require(page.requestID)
            let response = try await client.post(
                "/authorize",
                form: [("request_id", requestID), ("username", "ada"), ("password", "wrong"), ("decision", "allow")]
            )
            #expect(response.status == .ok)
            #expect(response.headers[.location] == nil)
            #expect(response.text.contains("Wrong username or password."))
            #expect(response.text.contains(#"<form method="post">"#))
            #expect(await provider.admin.counters()[.loginFailures] == 1)
        }
    }

    @Test func denyRedirectsWithAccessDenied() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let result = try await client.authorize(password: "", decision: "deny")
            #expect(result.query["error"] == "access_denied")
            #expect(result.query["state"] == "state-123")
            #expect(result.query["iss"] == "http://127.0.0.1:9999")
            #expect(result.query["code"] == nil)
        }
    }

    @Test func unregisteredRedirectURIShowsAnErrorPageWithoutRedirecting() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let response = try await client.authorizationPage(redirectURI: "https://evil.example/callback")
            #expect(response.status == .badRequest)
            #expect(response.headers[.location] == nil)
            #expect(response.text.contains("Invalid redirect URI"))
            let unknownClient = try await client.authorizationPage(clientID: "nobody")
            #expect(unknownClient.status == .badRequest)
            #expect(unknownClient.headers[.location] == nil)
        }
    }

    @Test func loopbackRedirectOnAnotherPortIsAccepted() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let ipv4 = try await client.authorizationPage(redirectURI: "http://127.0.0.1:1234/callback")
            #expect(ipv4.status == .ok)
            let ipv6 = try await client.authorizationPage(redirectURI: "http://[::1]:61000/callback")
            #expect(ipv6.status == .ok)
            let otherPath = try await client.authorizationPage(redirectURI: "http://127.0.0.1:1234/elsewhere")
            #expect(otherPath.status == .badRequest)
        }
    }

    @Test func missingOrPlainChallengeIsRejectedWithInvalidRequest() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let missing = try await client.authorizationPage(challenge: nil, method: nil)
            #expect(missing.status == .found)
            let query = queryItems(of: try #require(missing.headers[.location]))
            #expect(query["error"] == "invalid_request")
            #expect(query["iss"] == "http://127.0.0.1:9999")
            let plain = try await client.authorizationPage(method: "plain")
            #expect(queryItems(of: try #require(plain.headers[.location]))["error"] == "invalid_request")
        }
    }
}
