import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import TetherDevProvider

/// How `/resource` refuses a token in each ``DevProvider/ResourceErrorStyle``, and the admin routes of claims
/// challenges and refused refreshes.
@Suite(.timeLimit(.minutes(3)))
struct ResourceErrorStyleTests {
    @Test func graphRefusesWithoutAnErrorAttribute() async throws {
        let (provider, _) = makeProvider { $0.resourceErrors = .microsoftGraph }
        try await provider.application().test(.router) { client in
            let response = try await client.resource(token: "not-a-token")
            #expect(response.status == .unauthorized)
            let challenge = try #require(response.headers[.wwwAuthenticate])
            #expect(challenge.hasPrefix(#"Bearer realm="", authorization_uri=""#))
            #expect(challenge.contains(#"client_id="00000003-0000-0000-c000-000000000000""#))
            #expect(!challenge.contains("error="))
            let error = try #require(try response.json()["error"] as? [String: Any])
            #expect(error["code"] as? String == "InvalidAuthenticationToken")
        }
    }

    @Test func googleRefusesWithInvalidTokenAndAJSONBody() async throws {
        let (provider, _) = makeProvider { $0.resourceErrors = .googleAPI }
        try await provider.application().test(.router) { client in
            let response = try await client.resource(token: "not-a-token")
            #expect(response.status == .unauthorized)
            #expect(response.headers[.wwwAuthenticate]?.contains(#"error="invalid_token""#) == true)
            let error = try #require(try response.json()["error"] as? [String: Any])
            #expect(error["status"] as? String == "UNAUTHENTICATED")
        }
    }

    @Test func githubRefusesWithBadCredentialsAndNoChallenge() async throws {
        let (provider, _) = makeProvider { $0.resourceErrors = .github }
        try await provider.application().test(.router) { client in
            let response = try await client.resource(token: "not-a-token")
            #expect(response.status == .unauthorized)
            #expect(response.headers[.wwwAuthenticate] == nil)
            #expect(try response.json()["message"] as? String == "Bad credentials")
        }
    }

    @Test func aClaimsChallengeCarriesTheClaimsBase64Encoded() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let set = try await client.admin(
                "/admin/claims-challenge",
                json: #"{"count":1,"claims":"{\"access_token\":{}}"}"#,
                adminKey: provider.configuration.adminKey
            )
            #expect(set.status == .ok)
            let tokens = try await client.signIn()
            let token = try #require(tokens["access_token"] as? String)
            let challenged = try await client.resource(token: token)
            #expect(challenged.status == .unauthorized)
            let encoded = Data(#"{"access_token":{}}"#.utf8).base64EncodedString()
            let challenge = try #require(challenged.headers[.wwwAuthenticate])
            #expect(challenge.contains(#"error="insufficient_claims", claims="\#(encoded)""#))
            #expect(try await client.resource(token: token).status == .ok)
        }
    }

    @Test func refusalsAreSetOverHTTPByName() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let set = try await client.admin(
                "/admin/refuse-refreshes",
                json: #"{"count":2,"refusal":"passwordChanged"}"#,
                adminKey: provider.configuration.adminKey
            )
            #expect(set.status == .ok)
            #expect(await provider.admin.faults().refreshRefusals == [.passwordChanged, .passwordChanged])
            let unknown = try await client.admin(
                "/admin/refuse-refreshes",
                json: #"{"refusal":"nope"}"#,
                adminKey: provider.configuration.adminKey
            )
            #expect(unknown.status == .badRequest)
        }
    }
}
