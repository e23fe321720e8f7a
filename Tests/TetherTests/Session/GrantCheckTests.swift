import Foundation
import Logging
import Testing
import Tether
import TetherTesting

struct GrantCheckTests {
    struct FixedCheck: GrantCheck {
        let result: Result<GrantStatus, any Error>
        func grantStatus(of connection: Connection) async throws -> GrantStatus { try result.get() }
    }

    func makeSession(_ check: FixedCheck, store: MemoryStore, issuer: TestIssuer, clock: ManualClock) -> Session {
        Session(
            id: "apple",
            store: store,
            refresher: issuer,
            grantCheck: check,
            clock: clock,
            dateSource: clock.dateSource,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
    }

    func seededStore(_ issuer: TestIssuer) async throws -> MemoryStore {
        let store = MemoryStore()
        try await store.write(
            Connection(id: "apple", account: SessionHarness.account, tokens: try issuer.signInTokens(subject: "user-1"))
        )
        return store
    }

    @Test func revokedCredentialAtRestoreNeedsSignIn() async throws {
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        let store = try await seededStore(issuer)
        let reason = SignInReason(code: "apple_credential_revoked", message: "Sign in with Apple was turned off")
        let session = makeSession(
            FixedCheck(result: .success(.revoked(reason))),
            store: store,
            issuer: issuer,
            clock: clock
        )
        #expect(await session.restore() == .needsSignIn(reason: reason, accountHint: SessionHarness.account))
        let stored = try #require(try await store.read("apple"))
        #expect(stored.tokens.refreshToken == nil && stored.tokens.accessToken == nil)
        #expect(stored.account == SessionHarness.account)
    }

    @Test func activeCredentialKeepsTheSession() async throws {
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        let store = try await seededStore(issuer)
        let session = makeSession(FixedCheck(result: .success(.active)), store: store, issuer: issuer, clock: clock)
        #expect(await session.restore().kind == .connected)
    }

    @Test func failingCheckNeverSignsAnyoneOut() async throws {
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        let store = try await seededStore(issuer)
        let session = makeSession(
            FixedCheck(result: .failure(URLError(.notConnectedToInternet))),
            store: store,
            issuer: issuer,
            clock: clock
        )
        #expect(await session.restore().kind == .connected)
        #expect(try await store.read("apple")?.tokens.refreshToken != nil)
    }
}
