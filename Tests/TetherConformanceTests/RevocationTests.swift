import Foundation
import HTTPTypes
import Testing
import Tether
import TetherOAuth

extension ConformanceTests {
    /// Signing out revokes the grant (RFC 7009) at the endpoint only DOT's RFC 8414 document names.
    @Suite(.conformanceServer)
    struct RevocationTests {
        @Test func signingOutRevokesTheRefreshTokenAndWithItTheAccessToken() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let (client, session, result) = try await harness.signedInSession()
            let account = try #require(result.account)
            let accessToken = try #require(result.tokens.accessToken)
            let refreshToken = try #require(result.tokens.refreshToken)
            #expect(try await harness.server.status(of: "/api/resource-rfc6750/", bearer: accessToken) == 200)
            try await harness.server.requests()

            try await session.signOut()

            #expect(try await session.connection() == nil)
            let requests = try await harness.server.requests()
            let revocations = requests.to("/o/revoke_token/")
            #expect(revocations.map(\.status) == [200], "\(requests)")
            #expect(revocations.map(\.tokenTypeHint) == ["refresh_token"], "\(requests)")
            #expect(revocations.map(\.clientAuthentication) == ["none"], "\(requests)")
            // Both tokens are dead at the server.
            #expect(try await harness.server.status(of: "/api/resource-rfc6750/", bearer: accessToken) == 401)
            let refused = await #expect(throws: OAuthError.self) {
                _ = try await client.refresh(
                    RefreshRequest(
                        connectionID: "dot",
                        refreshToken: refreshToken,
                        account: account,
                        tokens: result.tokens
                    )
                )
            }
            #expect(refused?.errorCode == .invalidGrant)
            #expect(refused?.requiresReauthentication == true)
        }

        @Test func revokingAnAlreadyRevokedTokenSucceeds() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let (client, result) = try await harness.signIn()
            let account = try #require(result.account)
            try await harness.server.requests()
            try await client.revoke(result.tokens, account: account)
            try await client.revoke(result.tokens, account: account)
            let requests = try await harness.server.requests()
            #expect(requests.to("/o/revoke_token/").map(\.status) == [200, 200], "\(requests)")
        }
    }

    /// `AuthorizedClient` against DOT's resources: one protected with RFC 6750 challenges (`401` with
    /// `WWW-Authenticate: Bearer error="invalid_token"`), one the way DOT protects by default (a bare `403`).
    @Suite(.conformanceServer)
    struct ResourceTests {
        static let resource = "/api/resource-rfc6750/"

        struct Answer: Decodable, Equatable {
            let resource: String
            let user: String
        }

        static func get(_ harness: Harness, _ session: Session, _ path: String = resource) async throws -> Answer {
            try await AuthorizedClient(session: session, transport: harness.transport, logger: Harness.silent)
                .json(HTTPRequest(method: .get, url: harness.server.url(path)))
        }

        @Test func aTokenTheServerExpiredEarlyIsRefreshedOnceAndTheRequestRetried() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let (_, session, _) = try await harness.signedInSession()
            #expect(try await Self.get(harness, session) == Answer(resource: "ok", user: "ada"))
            #expect(try await harness.server.expire("access") >= 1)
            try await harness.server.requests()

            #expect(try await Self.get(harness, session) == Answer(resource: "ok", user: "ada"))

            let requests = try await harness.server.requests()
            let sequence = requests.filter { $0.path == Self.resource || $0.grantType == "refresh_token" }
            #expect(
                sequence.map(\.description) == [
                    "GET \(Self.resource) bearer -> 401",
                    "POST /o/token/ grant_type=refresh_token client_auth=none -> 200",
                    "GET \(Self.resource) bearer -> 200",
                ],
                "\(requests)"
            )
        }

        @Test func aGrantEndedBehindTheClientsBackNeedsSignIn() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let (_, session, _) = try await harness.signedInSession()
            try await harness.server.expire("all")
            try await harness.server.requests()

            let error = await #expect(throws: AuthorizedClientError.unauthorized) {
                _ = try await Self.get(harness, session)
            }
            #expect(error?.requiresSignIn == true)
            #expect(error?.signInReason != nil)
            #expect(await session.status.kind == .needsSignIn)
            let requests = try await harness.server.requests()
            #expect(requests.to(Self.resource).map(\.status) == [401], "\(requests)")
            #expect(requests.tokenRequests("refresh_token").map(\.status) == [400], "\(requests)")
        }

        @Test func aBare403FromDOTsDefaultProtectionIsForbiddenWithoutARefresh() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let (_, session, _) = try await harness.signedInSession()
            #expect(try await Self.get(harness, session, "/api/resource/") == Answer(resource: "ok", user: "ada"))
            try await harness.server.expire("access")
            try await harness.server.requests()

            let error = await #expect(throws: AuthorizedClientError.forbidden) {
                _ = try await Self.get(harness, session, "/api/resource/")
            }
            #expect(error?.httpStatus == 403)
            #expect(error?.scope == nil)
            let requests = try await harness.server.requests()
            #expect(requests.to("/api/resource/").map(\.status) == [403], "\(requests)")
            #expect(requests.tokenRequests("refresh_token").isEmpty, "\(requests)")
        }
    }
}
