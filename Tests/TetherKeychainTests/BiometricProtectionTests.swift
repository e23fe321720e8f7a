#if !canImport(Security)
import Foundation
import InMemoryLogging
import KeychainSimulator
import Logging
import SecItemShim
import Testing
import Tether
import TetherKeychain
import TetherTesting

/// A refresh token kept behind the user's presence (`refreshTokenProtection`): a `Session` on the real
/// `KeychainStore` code, over the simulator, which plays the user, the biometric enrolment and the passcode.
struct BiometricProtectionTests {
    static let account = Account(providerID: "google", subject: "1234", displayIdentifier: "jane@example.com")
    static let prompt = "Stay signed in to your calendar"

    func makeProtectedStore(
        _ policy: KeychainStore.RefreshTokenProtection.Policy = .biometryCurrentSet,
        reuse: Duration = .seconds(10),
        clock: ManualClock,
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws -> KeychainStore {
        try KeychainStore(
            secItems: .simulator,
            configuration: KeychainStore.Configuration(
                service: "com.example.app.tether",
                refreshTokenProtection: .init(policy: policy, reuseDuration: reuse, prompt: Self.prompt)
            ),
            clock: clock,
            logger: logger
        )
    }

    func makeSession(
        _ store: KeychainStore,
        _ refresher: any TokenRefresher,
        _ clock: ManualClock,
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    ) -> Session {
        Session(
            id: "google",
            store: store,
            refresher: refresher,
            configuration: Session.Configuration(retry: .init(jitter: 0)),
            clock: clock,
            dateSource: clock.dateSource,
            logger: logger
        )
    }

    /// The protected items on the device: one per refresh token kept.
    func protectedItems(_ simulator: KeychainSimulator) -> [KeychainSimulator.Item] {
        simulator.items.filter { $0.service == "com.example.app.tether.refresh" }
    }

    // MARK: Never prompting for a fresh access token

    @Test func aFreshAccessTokenIsRestoredAndHandedOutWithoutAPrompt() async throws {
        let simulator = makeSimulator()
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        try await withKeychain(simulator) {
            let store = try makeProtectedStore(clock: clock)
            let signedIn = try await makeSession(store, issuer, clock)
                .signIn(account: Self.account, tokens: try issuer.signInTokens(subject: "1234"))

            // The record names the refresh token without holding it; the token sits in an access-controlled item.
            #expect(signedIn.tokens.refreshToken == nil)
            #expect(signedIn.tokens.lockedRefreshToken != nil)
            #expect(signedIn.tokens.hasRefreshToken)
            let items = protectedItems(simulator)
            #expect(items.count == 1)
            #expect(items.first?.accessControlFlags == .biometryCurrentSet)
            #expect(items.first?.accessibility == kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly)
            #expect(items.first?.isSynchronizable == false)

            // A new launch: restore, status and every token request read only the record.
            clock.advance(by: .seconds(600))
            let relaunched = makeSession(store, issuer, clock)
            #expect(await relaunched.restore() == .connected(account: Self.account, until: signedIn.tokens.expiresAt))
            for _ in 0..<3 { #expect(try await relaunched.validAccessToken() == signedIn.tokens.accessToken) }
            #expect(await relaunched.status.kind == .connected)
        }
        #expect(simulator.promptCount == 0)
        #expect(try issuer.counters().refreshes == 0)
    }

    // MARK: Refreshing

    @Test func aRefreshPromptsOnceWithTheConfiguredReasonAndRotatesTheProtectedItem() async throws {
        let simulator = makeSimulator()
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        try await withKeychain(simulator) {
            let store = try makeProtectedStore(clock: clock)
            let session = makeSession(store, issuer, clock)
            let first = try await session.signIn(
                account: Self.account,
                tokens: try issuer.signInTokens(subject: "1234")
            )
            let firstItem = try #require(protectedItems(simulator).first)

            clock.advance(by: .seconds(3600))
            let token = try await session.validAccessToken()
            #expect(token != first.tokens.accessToken)
            #expect(try issuer.accepts(token))
            #expect(simulator.prompts == [Self.prompt])

            // The rotated refresh token replaced the spent one, behind the same protection.
            let stored = try #require(try await store.read("google"))
            #expect(stored.tokens.refreshToken == nil)
            #expect(stored.tokens.lockedRefreshToken != first.tokens.lockedRefreshToken)
            let items = protectedItems(simulator)
            #expect(items.count == 1)
            #expect(items.first?.account != firstItem.account)
            #expect(items.first?.accessControlFlags == .biometryCurrentSet)
        }
        #expect(try issuer.counters().refreshes == 1)
        #expect(try issuer.counters().reuseDetections == 0)
    }

    @Test func refreshesWithinTheReuseDurationPromptOnceAndLaterOnesAskAgain() async throws {
        let simulator = makeSimulator()
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        try await withKeychain(simulator) {
            let store = try makeProtectedStore(reuse: .seconds(30), clock: clock)
            let session = makeSession(store, issuer, clock)
            try await session.signIn(account: Self.account, tokens: try issuer.signInTokens(subject: "1234"))

            _ = try await session.forceRefresh()
            clock.advance(by: .seconds(20))
            _ = try await session.forceRefresh()
            #expect(simulator.promptCount == 1, "the second refresh reused the authentication")

            clock.advance(by: .seconds(11))
            _ = try await session.forceRefresh()
            #expect(simulator.promptCount == 2, "the reuse duration had passed")
        }
        #expect(try issuer.counters().refreshes == 3)
    }

    @Test func aZeroReuseDurationAsksAtEveryRefresh() async throws {
        let simulator = makeSimulator()
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        try await withKeychain(simulator) {
            let session = makeSession(try makeProtectedStore(reuse: .zero, clock: clock), issuer, clock)
            try await session.signIn(account: Self.account, tokens: try issuer.signInTokens(subject: "1234"))
            _ = try await session.forceRefresh()
            _ = try await session.forceRefresh()
        }
        #expect(simulator.promptCount == 2)
    }

    // MARK: The user cancels or fails

    @Test(arguments: [KeychainSimulator.UserResponse.cancel, .fail])
    func aDeclinedPromptKeepsTheSessionLockedAndTheNextRefreshAsksAgain(
        response: KeychainSimulator.UserResponse
    ) async throws {
        let simulator = makeSimulator()
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        try await withKeychain(simulator) {
            let store = try makeProtectedStore(clock: clock)
            let session = makeSession(store, issuer, clock)
            let signedIn = try await session.signIn(
                account: Self.account,
                tokens: try issuer.signInTokens(subject: "1234")
            )

            clock.advance(by: .seconds(3600))
            simulator.userResponse = response
            let error = await #expect(throws: SessionError.storageUnavailable) { try await session.validAccessToken() }
            #expect((error?.cause as? CredentialStoreError) == .locked)
            #expect(error?.accountHint == Self.account)
            let status = await session.status
            guard case .storageUnavailable(let storeError) = status else {
                Issue.record("expected storageUnavailable, got \(status)")
                return
            }
            #expect(storeError == .locked)
            #expect(!status.isConnected)
            #expect(status.kind != .needsSignIn && status.kind != .notConnected)

            // Nothing was removed or spent.
            #expect(try await store.read("google") == signedIn)
            #expect(protectedItems(simulator).count == 1)
            #expect(try issuer.counters().refreshes == 0)

            simulator.userResponse = .authenticate
            let token = try await session.validAccessToken()
            #expect(try issuer.accepts(token))
            #expect(await session.status.kind == .connected)
        }
        #expect(simulator.promptCount == 2)
        #expect(try issuer.counters().refreshes == 1)
    }

    @Test func afterACancelTheUnexpiredTokenIsHandedOutWithoutAskingAgain() async throws {
        let simulator = makeSimulator()
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        try await withKeychain(simulator) {
            let session = makeSession(try makeProtectedStore(clock: clock), issuer, clock)
            let signedIn = try await session.signIn(
                account: Self.account,
                tokens: try issuer.signInTokens(subject: "1234")
            )
            // Within the refresh leeway: the token is due for a refresh but still valid for two minutes.
            clock.advance(by: .seconds(3600 - 120))
            simulator.userResponse = .cancel
            #expect(try await session.validAccessToken() == signedIn.tokens.accessToken)
            #expect(try await session.validAccessToken() == signedIn.tokens.accessToken)
            #expect(simulator.promptCount == 1, "one prompt, not one per call")

            // Once it has expired, the next call asks again.
            clock.advance(by: .seconds(121))
            simulator.userResponse = .authenticate
            let token = try await session.validAccessToken()
            #expect(token != signedIn.tokens.accessToken)
        }
        #expect(simulator.promptCount == 2)
    }

    // MARK: Biometry and passcode changes

    @Test func aBiometryChangeNeedsSignInWithItsReasonAndKeepsTheAccount() async throws {
        let simulator = makeSimulator()
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        try await withKeychain(simulator) {
            let store = try makeProtectedStore(.biometryCurrentSet, clock: clock)
            let session = makeSession(store, issuer, clock)
            try await session.signIn(
                account: Self.account,
                tokens: try issuer.signInTokens(subject: "1234"),
                metadata: ["calendar": "work"]
            )

            simulator.changeBiometricEnrolment()
            clock.advance(by: .seconds(3600))
            let error = await #expect(throws: SessionError.needsSignIn) { try await session.validAccessToken() }
            #expect(error?.signInReason == .biometryChanged)
            #expect(error?.accountHint == Self.account)
            #expect(await session.status == .needsSignIn(reason: .biometryChanged, accountHint: Self.account))

            // Never deleted silently: the record stays, with its account and metadata, until the user signs in.
            let kept = try #require(try await store.read("google"))
            #expect(kept.account == Self.account && kept.metadata == ["calendar": "work"])
            #expect(!kept.tokens.hasRefreshToken && kept.tokens.accessToken == nil)
            #expect(try await store.list() == ["google"])

            // Signing in again protects the new grant under the new enrolment.
            try await session.signIn(account: Self.account, tokens: try issuer.signInTokens(subject: "1234"))
            #expect(await session.status.kind == .connected)
            clock.advance(by: .seconds(3600))
            _ = try await session.validAccessToken()
        }
        #expect(simulator.promptCount == 1, "the invalidated item asked nobody; the new one asked once")
        #expect(try issuer.counters().refreshes == 1)
    }

    @Test(arguments: [KeychainStore.RefreshTokenProtection.Policy.biometryAny, .userPresence])
    func otherPoliciesSurviveABiometryChange(policy: KeychainStore.RefreshTokenProtection.Policy) async throws {
        let simulator = makeSimulator()
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        try await withKeychain(simulator) {
            let session = makeSession(try makeProtectedStore(policy, clock: clock), issuer, clock)
            try await session.signIn(account: Self.account, tokens: try issuer.signInTokens(subject: "1234"))
            simulator.changeBiometricEnrolment()
            clock.advance(by: .seconds(3600))
            _ = try await session.validAccessToken()
            #expect(await session.status.kind == .connected)
        }
        #expect(simulator.promptCount == 1)
        #expect(try issuer.counters().refreshes == 1)
    }

    @Test func removingThePasscodeLaterNeedsSignInWithoutAPrompt() async throws {
        let simulator = makeSimulator()
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        try await withKeychain(simulator) {
            let store = try makeProtectedStore(.userPresence, clock: clock)
            let session = makeSession(store, issuer, clock)
            try await session.signIn(account: Self.account, tokens: try issuer.signInTokens(subject: "1234"))
            simulator.setPasscode(false)
            clock.advance(by: .seconds(3600))
            let error = await #expect(throws: SessionError.needsSignIn) { try await session.validAccessToken() }
            #expect(error?.signInReason == .protectionLost)
            #expect(try await store.read("google")?.account == Self.account)
        }
        #expect(simulator.promptCount == 0)
    }

    @Test func noPasscodeIsAConfigurationErrorAtSignIn() async throws {
        let simulator = makeSimulator()
        simulator.setPasscode(false)
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        try await withKeychain(simulator) {
            let store = try makeProtectedStore(clock: clock)
            let session = makeSession(store, issuer, clock)
            let error = await #expect(throws: SessionError.misconfigured) {
                try await session.signIn(account: Self.account, tokens: try issuer.signInTokens(subject: "1234"))
            }
            #expect(error?.message.contains("no passcode") == true)
            #expect((error?.cause as? CredentialStoreError) == .invalidConfiguration)
            guard case .misconfigured(let problem) = await session.status else {
                Issue.record("expected misconfigured")
                return
            }
            #expect(problem.contains("passcode"))
            await #expect(throws: CredentialStoreError.invalidConfiguration) {
                try await store.write(makeConnection())
            }
        }
        #expect(simulator.itemCount == 0, "neither the record nor the token was stored")
        #expect(simulator.promptCount == 0)
    }

    @Test func aLockedDeviceKeepsTheProtectedTokenUnavailableNotGone() async throws {
        let simulator = makeSimulator()
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        try await withKeychain(simulator) {
            let session = makeSession(try makeProtectedStore(clock: clock), issuer, clock)
            try await session.signIn(account: Self.account, tokens: try issuer.signInTokens(subject: "1234"))
            simulator.lock()  // a background refresh: the record (afterFirstUnlock) is readable, the token is not
            clock.advance(by: .seconds(3600))
            let error = await #expect(throws: SessionError.storageUnavailable) { try await session.validAccessToken() }
            #expect((error?.cause as? CredentialStoreError) == .unavailable)
            simulator.unlock()
            _ = try await session.validAccessToken()
        }
        #expect(simulator.promptCount == 1)
    }

    // MARK: Store

    @Test func aRecordWrittenWithoutProtectionIsProtectedWhenReadWithoutAPrompt() async throws {
        let simulator = makeSimulator()
        let clock = ManualClock()
        try await withKeychain(simulator) {
            try await makeStore().write(makeConnection())
            let read = try #require(try await makeProtectedStore(clock: clock).read("google"))
            #expect(read.tokens.refreshToken == nil)
            #expect(read.tokens == makeConnection().tokens, "the same tokens, the refresh token by fingerprint")
            #expect(protectedItems(simulator).count == 1)
            let again = try #require(try await makeProtectedStore(clock: clock).read("google"))
            #expect(again == read)
        }
        #expect(simulator.promptCount == 0)
    }

    @Test func signOutDeletesTheRecordAndTheProtectedTokenWithoutAPrompt() async throws {
        let simulator = makeSimulator()
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        try await withKeychain(simulator) {
            let session = makeSession(try makeProtectedStore(clock: clock), issuer, clock)
            try await session.signIn(account: Self.account, tokens: try issuer.signInTokens(subject: "1234"))
            // A protected item left by a crash between adding a rotated token and writing the record.
            var orphan = try #require(protectedItems(simulator).first)
            orphan.account = "google#0000000000000000"
            simulator.insert(orphan, data: Data("spent".utf8))
            #expect(simulator.itemCount == 3)
            try await session.signOut()
            #expect(await session.status == .notConnected)
        }
        #expect(simulator.itemCount == 0)
        #expect(simulator.promptCount == 0)
    }

    @Test func disablingProtectionMovesTheTokenBackIntoTheRecordAtTheNextRefresh() async throws {
        let simulator = makeSimulator()
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        try await withKeychain(simulator) {
            try await makeSession(try makeProtectedStore(clock: clock), issuer, clock)
                .signIn(account: Self.account, tokens: try issuer.signInTokens(subject: "1234"))
            let plain = try makeStore()
            let session = makeSession(plain, issuer, clock)
            clock.advance(by: .seconds(3600))
            _ = try await session.validAccessToken()
            #expect(try await plain.read("google")?.tokens.refreshToken != nil)
            #expect(protectedItems(simulator).isEmpty)
        }
        #expect(simulator.promptCount == 1, "the last protected token was unlocked once")
    }

    @Test func protectionThatCannotWorkIsRefusedBeforeAnyKeychainCall() throws {
        let clock = ManualClock()
        let protection = KeychainStore.RefreshTokenProtection(policy: .biometryAny, prompt: Self.prompt)
        #expect(throws: CredentialStoreError.invalidConfiguration) {
            try KeychainStore(
                secItems: .simulator,
                configuration: .init(
                    synchronization: .init(connections: .synchronizable),
                    refreshTokenProtection: protection
                ),
                clock: clock
            )
        }
        #expect(throws: CredentialStoreError.invalidConfiguration) {
            try KeychainStore(
                secItems: .simulator,
                configuration: .init(
                    refreshTokenProtection: .init(policy: .biometryAny, prompt: " ")
                ),
                clock: clock
            )
        }
    }

    // MARK: Secrets

    @Test func theRefreshTokenNeverAppearsInLogsErrorsOrStatuses() async throws {
        let simulator = makeSimulator()
        let clock = ManualClock()
        var handler = InMemoryLogHandler()
        handler.logLevel = .trace
        let logs = handler
        let logger = Logger(label: "test") { _ in logs }
        let refresher = CanaryRefresher()
        var texts: [String] = []
        try await withKeychain(simulator) {
            let store = try makeProtectedStore(clock: clock, logger: logger)
            let session = makeSession(store, refresher, clock, logger: logger)
            let tokens = TokenSet(
                accessToken: AccessToken("access-canary-0"),
                refreshToken: RefreshToken("refresh-canary-0"),
                receivedAt: clock.date,
                expiresAt: clock.date.addingTimeInterval(3600)
            )
            let signedIn = try await session.signIn(account: Self.account, tokens: tokens)
            texts.append("\(signedIn) \(signedIn.tokens) \(String(reflecting: signedIn))")
            texts.append(String(decoding: try JSONEncoder().encode(signedIn), as: UTF8.self))
            clock.advance(by: .seconds(3600))
            simulator.userResponse = .cancel
            do { _ = try await session.validAccessToken() } catch {
                texts.append("\(error) \(String(reflecting: error))")
            }
            texts.append("\(await session.status)")
            simulator.userResponse = .authenticate
            _ = try await session.validAccessToken()
            simulator.changeBiometricEnrolment()
            _ = try? await session.forceRefresh()
            do { _ = try await session.forceRefresh() } catch { texts.append("\(error) \(String(reflecting: error))") }
            texts.append("\(await session.status)")
            simulator.setPasscode(false)
            do {
                try await session.signIn(account: Self.account, tokens: tokens)
            } catch {
                texts.append("\(error) \(String(reflecting: error))")
            }
        }
        #expect(refresher.presented.withLock { $0 } == ["refresh-canary-0"])
        #expect(!logs.entries.isEmpty)
        let text = logs.entries.map { "\($0.message) \($0.metadata)" }.joined() + texts.joined()
        #expect(text.contains("locked") || text.contains("unlock"), "the captured text covers the outcomes")
        #expect(!text.contains("refresh-canary"))
        #expect(!text.contains("access-canary"))
    }
}

/// Issues canary tokens, and remembers which refresh tokens it was given.
private final class CanaryRefresher: TokenRefresher {
    let presented = LockedState<[String]>([])

    func refresh(_ request: RefreshRequest) async throws -> TokenResponse {
        let count = presented.withLock { presented in
            presented.append(request.refreshToken.revealedValue)
            return presented.count
        }
        return TokenResponse(
            accessToken: AccessToken("access-canary-\(count)"),
            refreshToken: RefreshToken("refresh-canary-\(count)"),
            expiresIn: .seconds(3600)
        )
    }
}
#endif
