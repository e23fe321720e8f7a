import Foundation
import HTTPTypes
import ProviderTestSupport
import SignInTestSupport
import Testing
import Tether
import TetherDevProvider
import TetherOAuth
import TetherTestSupport
import TetherTesting

/// `AuthorizedClient` against the development provider's resource answering a refused token the way Microsoft
/// Graph, Google APIs, GitHub's REST API and RFC 6750 do, and with claims challenges, over 127.0.0.1.
@Suite(.timeLimit(.minutes(3)))
struct RefusedTokenEndToEndTests {
    static let styles: [DevProvider.ResourceErrorStyle] = [.standard, .microsoftGraph, .googleAPI, .github]

    static func start(
        _ style: DevProvider.ResourceErrorStyle,
        dialect: DevProvider.Dialect = .standard
    ) async throws -> ProviderHarness {
        try await ProviderHarness.start {
            $0.resourceErrors = style
            $0.dialect = dialect
        }
    }

    static func client(
        _ harness: ProviderHarness
    ) async throws -> (AuthorizedClient, AuthorizedClientEndToEndTests.CountingTransport, Session) {
        try await AuthorizedClientEndToEndTests.countingClient(harness)
    }

    static func resource(_ harness: ProviderHarness) -> HTTPRequest {
        HTTPRequest(method: .get, url: harness.running.issuer.appendingPathComponent("resource"))
    }

    @Test(arguments: styles)
    func aRefusedTokenIsRefreshedOnceAndTheRequestRetriedOnce(_ style: DevProvider.ResourceErrorStyle) async throws {
        let harness = try await Self.start(style)
        defer { Task { await harness.stop() } }
        let (client, counting, session) = try await Self.client(harness)
        let stale = try await session.validAccessToken()
        await harness.running.admin.expireAccessTokens()

        let (response, _) = try await client.send(Self.resource(harness))
        #expect(response.status == .ok)
        #expect(counting.paths == ["/resource", "/resource"])
        #expect(await harness.counters().responses(from: .resource, status: 401) == 1)
        #expect(await harness.counters()[.refreshes] == 1)
        #expect(try await session.validAccessToken() != stale)
        #expect(await session.status.kind == .connected)
    }

    @Test(arguments: styles)
    func aRefusedRefreshEndsTheGrantWithAReason(_ style: DevProvider.ResourceErrorStyle) async throws {
        let harness = try await Self.start(style)
        defer { Task { await harness.stop() } }
        let (client, counting, session) = try await Self.client(harness)
        _ = await harness.running.admin.revokeAllGrants()
        await harness.running.admin.expireAccessTokens()

        do {
            _ = try await client.send(Self.resource(harness))
            Issue.record("a refused refresh must fail the request")
        } catch let error as AuthorizedClientError {
            #expect(error == .unauthorized)
            #expect(error.requiresSignIn)
            #expect(error.signInReason == .grantRevoked)
            #expect(error.message.contains(try #require(error.signInReason).message))
        }
        #expect(counting.paths == ["/resource"])
        guard case .needsSignIn(let reason, _) = await session.status else {
            Issue.record("the session must need sign-in, not \(await session.status)")
            return
        }
        #expect(reason == .grantRevoked)
    }

    @Test func aRefusedTokenWithoutARefreshTokenEndsTheGrant() async throws {
        let harness = try await Self.start(.github)
        defer { Task { await harness.stop() } }
        // A token that does not expire and cannot be renewed, like a GitHub OAuth app's.
        let result = try await harness.client.signIn(using: FormBrowser().presenter())
        var tokens = result.tokens
        tokens.refreshToken = nil
        let session = harness.session(MemoryStore(clock: harness.clock))
        try await session.signIn(account: try #require(result.account), tokens: tokens)
        let counting = AuthorizedClientEndToEndTests.CountingTransport(harness.transport)
        let client = AuthorizedClient(session: session, transport: counting, clock: harness.clock)
        #expect(try await client.send(Self.resource(harness)).0.status == .ok)
        _ = await harness.running.admin.revokeAllGrants()

        do {
            _ = try await client.send(Self.resource(harness))
            Issue.record("a refused token without a refresh token must fail the request")
        } catch let error as AuthorizedClientError {
            #expect(error == .unauthorized)
            #expect(error.requiresSignIn)
            #expect(error.signInReason?.message.contains("without a refresh token") == true)
        }
        #expect(counting.paths == ["/resource", "/resource"])
        #expect(await session.status.kind == .needsSignIn)
        #expect(try await session.connection()?.tokens.accessToken == nil)
    }

    @Test func forcedRefreshesAreLimitedPerConnection() async throws {
        let harness = try await Self.start(.microsoftGraph)
        defer { Task { await harness.stop() } }
        let (client, counting, session) = try await Self.client(harness)
        await harness.running.admin.expireAccessTokens()
        _ = try await client.send(Self.resource(harness))
        #expect(await harness.counters()[.refreshes] == 1)

        // An API that refuses the new token at once gets no second refresh within the minimum interval.
        await harness.running.admin.expireAccessTokens()
        await #expect(throws: AuthorizedClientError.unauthorized) {
            _ = try await client.send(Self.resource(harness))
        }
        #expect(await harness.counters()[.refreshes] == 1)
        #expect(counting.paths.count == 3)
        #expect(await session.status.kind == .connected)

        // Once the interval has passed, a refused token is refreshed again.
        harness.clock.advance(by: Session.Configuration().minimumForcedRefreshInterval)
        _ = try await client.send(Self.resource(harness))
        #expect(await harness.counters()[.refreshes] == 2)
    }

    @Test func aClaimsChallengeRefreshesWithTheClaimsAndRetriesOnce() async throws {
        let harness = try await Self.start(.microsoftGraph)
        defer { Task { await harness.stop() } }
        let (client, counting, session) = try await Self.client(harness)
        let claims = #"{"access_token":{"nbf":{"essential":true,"value":"1700000000"}}}"#
        await harness.running.admin.challengeNextResourceRequests(1, claims: claims)

        let (response, _) = try await client.send(Self.resource(harness))
        #expect(response.status == .ok)
        #expect(counting.paths == ["/resource", "/resource"])
        let counters = await harness.counters()
        #expect(counters[.refreshes] == 1)
        #expect(counters[.claimsRefreshes] == 1)
        #expect(await session.status.kind == .connected)
    }

    @Test func aClaimsChallengeThatNeedsTheUserEndsTheGrantSayingWhy() async throws {
        let harness = try await Self.start(.microsoftGraph, dialect: .microsoft)
        defer { Task { await harness.stop() } }
        let (client, counting, session) = try await Self.client(harness)
        await harness.running.admin.challengeNextResourceRequests(1)
        await harness.running.admin.requireInteractionOnNextRefreshes(1)

        do {
            _ = try await client.send(Self.resource(harness))
            Issue.record("a claims challenge the provider answers with interaction_required must fail the request")
        } catch let error as AuthorizedClientError {
            #expect(error == .unauthorized)
            #expect(error.requiresSignIn)
            #expect(error.challenge?.error == "insufficient_claims")
            #expect(error.signInReason == .interactionRequired, "\(error.message)")
            #expect(error.signInReason?.message.contains("multi-factor authentication") == true)
        }
        #expect(counting.paths == ["/resource"])
        #expect(await harness.counters()[.claimsRefreshes] == 1)
        guard case .needsSignIn(let reason, _) = await session.status else {
            Issue.record("the session must need sign-in, not \(await session.status)")
            return
        }
        #expect(reason == .interactionRequired)
    }
}
