#if !canImport(Security)
import Foundation
import KeychainSimulator
import SecItemShim
import Logging
import Testing
import Tether
import TetherKeychain
import TetherTesting

/// The `Session` running on the real `KeychainStore` code, through the simulator.
struct SessionOnKeychainTests {
    static let account = Account(providerID: "google", subject: "1234", displayIdentifier: "jane@example.com")

    func makeSession(_ store: KeychainStore, _ issuer: TestIssuer, _ clock: ManualClock) -> Session {
        Session(
            id: "google",
            store: store,
            refresher: issuer,
            revoker: issuer,
            configuration: Session.Configuration(retry: .init(jitter: 0)),
            clock: clock,
            dateSource: clock.dateSource,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
    }

    @Test func restoreBeforeFirstUnlockIsStorageUnavailableAndRecoversAfterUnlock() async throws {
        let simulator = makeSimulator()
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        try await withKeychain(simulator) {
            let store = try makeStore()
            try await makeSession(store, issuer, clock)
                .signIn(account: Self.account, tokens: try issuer.signInTokens(subject: "1234"))
            simulator.restart()  // the app is launched in the background before the first unlock

            let prewarmed = makeSession(store, issuer, clock)
            let status = await prewarmed.restore()
            #expect(status.kind == .storageUnavailable)
            #expect(status != .notConnected)
            await #expect(throws: SessionError.storageUnavailable) { try await prewarmed.validAccessToken() }
            #expect(simulator.itemCount == 1, "nothing was deleted")

            simulator.unlock()  // protected data became available
            #expect(await prewarmed.restore().kind == .connected)
            _ = try await prewarmed.validAccessToken()
        }
    }

    @Test func refreshAndSignOutOnTheKeychainRemoveSynchronizedAndLocalCopies() async throws {
        let simulator = makeSimulator()
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        try await withKeychain(simulator) {
            let store = try makeStore()
            let session = makeSession(store, issuer, clock)
            let first = try await session.signIn(
                account: Self.account,
                tokens: try issuer.signInTokens(subject: "1234")
            )
            clock.advance(by: .seconds(3600))
            let token = try await session.validAccessToken()
            #expect(token != first.tokens.accessToken)
            #expect(try await store.read("google")?.tokens.accessToken == token)

            // A synchronized copy from another device sits beside the local item.
            var synced = try #require(simulator.items.first)
            synced.isSynchronizable = true
            synced.accessibility = "kSecAttrAccessibleAfterFirstUnlock"
            simulator.insert(synced, data: try ConnectionCodec.encode(first))
            #expect(simulator.itemCount == 2)

            try await session.signOut()
            #expect(simulator.itemCount == 0)
            #expect(await session.status == .notConnected)
            #expect(try issuer.counters().revocations == 1)
        }
    }
}
#endif
