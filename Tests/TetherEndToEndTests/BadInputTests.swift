import Foundation
import ProviderTestSupport
import SignInTestSupport
import Testing
import Tether
import TetherDevProvider
import TetherTesting

@testable import TetherOAuth

/// Every bad input gives its own typed error and leaves the stored record as it was.
@Suite(.timeLimit(.minutes(3)))
struct BadInputTests {
    /// A harness with a connection stored in a vault, and the vault file's bytes to compare against.
    struct Stored {
        let harness: ProviderHarness
        let store: VaultStore
        let session: Session
        let record: Connection

        static func make(
            usingAsyncHTTPClient: Bool = false,
            _ configure: (inout DevProvider.Configuration) -> Void = { _ in }
        ) async throws -> Stored {
            let harness = try await ProviderHarness.start(configure, usingAsyncHTTPClient: usingAsyncHTTPClient)
            let result = try await harness.client.signIn(using: FormBrowser().presenter())
            let store = try harness.vault()
            let session = harness.session(store)
            try await session.signIn(account: try #require(result.account), tokens: result.tokens)
            let record = try #require(try await store.read("dev"))
            return Stored(harness: harness, store: store, session: session, record: record)
        }

        func expectUntouched(sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let now = try await store.read("dev")
            #expect(now == record, "the stored record changed", sourceLocation: sourceLocation)
        }
    }

    func callback(_ request: AuthorizationRequest, _ items: [String: String]) -> URL {
        var components = URLComponents(url: request.redirectURI, resolvingAgainstBaseURL: false)!
        components.queryItems = items.map { URLQueryItem(name: $0.key, value: $0.value) }
        return components.url!
    }

    /// The provider's callback for `request` after the user signed in, with the query item `name` set to `value`.
    func forgedCallback(_ request: AuthorizationRequest, _ name: String, _ value: String) async throws -> URL {
        let (location, _) = try await FormBrowser().submit(request.url)
        var components = URLComponents(url: try #require(location), resolvingAgainstBaseURL: false)!
        components.queryItems = components.queryItems?.map {
            $0.name == name ? URLQueryItem(name: name, value: value) : $0
        }
        return try #require(components.url)
    }

    @Test func stateMismatchNeverRedeemsTheCode() async throws {
        let stored = try await Stored.make()
        defer { Task { await stored.harness.stop() } }
        let request = try stored.harness.client.makeAuthorizationRequest()
        let forged = try await forgedCallback(request, "state", "forged")
        let exchangedBefore = await stored.harness.counters()[.codesExchanged]
        await #expect(throws: OAuthError.stateMismatch) {
            try await stored.harness.client.completeSignIn(callbackURL: forged, for: request)
        }
        #expect(await stored.harness.counters()[.codesExchanged] == exchangedBefore)
        try await stored.expectUntouched()
    }

    @Test func deniedConsentIsAccessDenied() async throws {
        let stored = try await Stored.make()
        defer { Task { await stored.harness.stop() } }
        var browser = FormBrowser()
        browser.decision = "deny"
        await #expect(throws: OAuthError.accessDenied) {
            _ = try await stored.harness.client.signIn(using: browser.presenter())
        }
        try await stored.expectUntouched()
    }

    @Test func callbackWithoutCodeOrFromAnotherIssuerIsRejected() async throws {
        let stored = try await Stored.make()
        defer { Task { await stored.harness.stop() } }
        let client = stored.harness.client
        let request = try client.makeAuthorizationRequest()
        let issuer = stored.harness.running.issuer.absoluteString
        await #expect(throws: OAuthError.missingIssuer) {
            try await client.completeSignIn(
                callbackURL: callback(request, ["code": "c", "state": request.state]),
                for: request
            )
        }
        await #expect(throws: OAuthError.missingCode) {
            try await client.completeSignIn(
                callbackURL: callback(request, ["state": request.state, "iss": issuer]),
                for: request
            )
        }
        let forged = try await forgedCallback(request, "iss", "https://evil.example")
        await #expect(throws: OAuthError.issuerMismatch) {
            try await client.completeSignIn(callbackURL: forged, for: request)
        }
        try await stored.expectUntouched()
    }

    @Test func reusedCodeIsInvalidGrant() async throws {
        let stored = try await Stored.make()
        defer { Task { await stored.harness.stop() } }
        let client = stored.harness.client
        let request = try client.makeAuthorizationRequest()
        let (location, _) = try await FormBrowser().submit(request.url)
        let callbackURL = try #require(location)
        _ = try await client.completeSignIn(callbackURL: callbackURL, for: request)
        do {
            _ = try await client.completeSignIn(callbackURL: callbackURL, for: request)
            Issue.record("a code was redeemed twice")
        } catch let error as OAuthError {
            #expect(error.errorCode == .invalidGrant)
        }
        try await stored.expectUntouched()
    }

    @Test func providerOutageKeepsTheSessionAndItsRecord() async throws {
        let stored = try await Stored.make()
        defer { Task { await stored.harness.stop() } }
        await stored.harness.running.admin.failNext(3, requestsTo: .token, status: 503)
        stored.harness.clock.advance(by: .seconds(3600))
        let call = Task { try await stored.session.validAccessToken() }
        for _ in 0..<2 {
            #expect(await stored.harness.clock.waitForSleepers(1))
            stored.harness.clock.advance(by: .seconds(5))
        }
        await #expect(throws: SessionError.offline) { try await call.value }
        #expect(await stored.session.status.kind == .offline)
        try await stored.expectUntouched()
        // The provider recovers.
        _ = try await stored.session.validAccessToken()
        #expect(await stored.session.status.kind == .connected)
    }

    @Test func rateLimitWithRetryAfterIsHonoured() async throws {
        let stored = try await Stored.make()
        defer { Task { await stored.harness.stop() } }
        await stored.harness.running.admin.rateLimitNext(1, requestsTo: .token, retryAfterSeconds: 7)
        stored.harness.clock.advance(by: .seconds(3600))
        let call = Task { try await stored.session.validAccessToken() }
        #expect(await stored.harness.clock.waitForSleepers(1))
        guard case .offline(_, let next?, let error) = await stored.session.status else {
            Issue.record("expected offline with a next attempt")
            return
        }
        #expect(error.retryAfter == .seconds(7))
        #expect(abs(next.timeIntervalSince(stored.harness.clock.date) - 7) < 0.5)
        stored.harness.clock.advance(by: .seconds(7))
        _ = try await call.value
    }

    /// Over AsyncHTTPClient a dropped connection surfaces at once. (FoundationNetworking on Linux waits for the
    /// request timeout when the dropped connection was a reused keep-alive one; see docs/decisions.md.)
    @Test func droppedConnectionIsTransient() async throws {
        let stored = try await Stored.make(usingAsyncHTTPClient: true)
        defer { Task { await stored.harness.stop() } }
        await stored.harness.running.admin.dropNext(1, connectionsTo: .token)
        stored.harness.clock.advance(by: .seconds(3600))
        let call = Task { try await stored.session.validAccessToken() }
        #expect(await stored.harness.clock.waitForSleepers(1))
        #expect(await stored.session.status.kind == .offline)
        try await stored.expectUntouched()
        stored.harness.clock.advance(by: .seconds(5))
        _ = try await call.value
        #expect(await stored.session.status.kind == .connected)
    }

    @Test func interactionRequiredEndsTheSessionWithItsReason() async throws {
        let stored = try await Stored.make { $0.dialect = .microsoft }
        defer { Task { await stored.harness.stop() } }
        await stored.harness.running.admin.requireInteractionOnNextRefreshes(1)
        stored.harness.clock.advance(by: .seconds(3600))
        do {
            _ = try await stored.session.validAccessToken()
            Issue.record("expected needsSignIn")
        } catch let error as SessionError {
            #expect(error.signInReason == .interactionRequired)
        }
    }

    @Test func disabledUserEndsTheSession() async throws {
        let stored = try await Stored.make()
        defer { Task { await stored.harness.stop() } }
        await stored.harness.running.admin.disableUser("ada")
        stored.harness.clock.advance(by: .seconds(3600))
        await #expect(throws: SessionError.needsSignIn) { try await stored.session.validAccessToken() }
    }
}
