import Foundation
import Testing
import Tether
import TetherNotifications

#if canImport(UserNotifications)
import UserNotifications
#else
import UserNotificationsShim
#endif

/// `StatusNotificationPolicy` (what to post, when, once) and `StatusNotifier` posting through the notification
/// center (here the shim's).
struct StatusNotifierTests {
    static let account = Account(providerID: "google", subject: "1", displayIdentifier: "ada@example.com")
    static let connected = ConnectionStatus.connected(account: account, until: nil)
    static let revoked = ConnectionStatus.needsSignIn(reason: .grantRevoked, accountHint: account)

    static func posted(_ actions: [StatusNotificationPolicy.Action]) -> [StatusNotificationPolicy.Notification] {
        actions.compactMap { if case .post(let notification) = $0 { notification } else { nil } }
    }

    @Test func anEndedGrantIsPostedOnceAndItsRecoveryOnce() {
        var policy = StatusNotificationPolicy(connectionName: "Work calendar")
        #expect(policy.observe(Self.connected).isEmpty)
        #expect(policy.observe(.refreshing(account: Self.account)).isEmpty)
        let ended = policy.observe(Self.revoked)
        let notice = Self.posted(ended).first
        #expect(notice?.identifier == "tether.Work calendar.needs-sign-in")
        #expect(notice?.title == "Sign in to Work calendar again")
        #expect(notice?.body == SignInReason.grantRevoked.message)
        // The same ended grant again, or with another reason: nothing more.
        #expect(policy.observe(Self.revoked).isEmpty)
        #expect(policy.observe(.needsSignIn(reason: .userDisabled, accountHint: nil)).isEmpty)
        #expect(policy.observe(.restoring).isEmpty)

        let recovered = policy.observe(Self.connected)
        #expect(recovered.first == .remove("tether.Work calendar.needs-sign-in"))
        #expect(Self.posted(recovered).map(\.identifier) == ["tether.Work calendar.recovered"])
        #expect(policy.observe(Self.connected).isEmpty)
    }

    @Test func signingOutIsNoEndedGrantAndSigningInIsNoRecovery() {
        var policy = StatusNotificationPolicy(connectionName: "work")
        #expect(policy.observe(Self.connected).isEmpty)
        #expect(policy.observe(.notConnected).isEmpty)
        #expect(policy.observe(Self.connected).isEmpty)
        #expect(policy.observe(.offline(account: Self.account, nextAttempt: nil, lastError: .transient("x"))).isEmpty)
    }

    @Test func anEndingGrantIsPostedOncePerEndDate() {
        var policy = StatusNotificationPolicy(connectionName: "work")
        let end = Date(timeIntervalSince1970: 1_800_000_000)
        _ = policy.observe(Self.connected)
        #expect(Self.posted(policy.grantEndsSoon(at: end)).map(\.identifier) == ["tether.work.expires-soon"])
        #expect(policy.grantEndsSoon(at: end).isEmpty)
        #expect(Self.posted(policy.grantEndsSoon(at: end.addingTimeInterval(86_400))).count == 1)
        // Once the grant ended, the warning is removed and not posted again.
        #expect(policy.observe(Self.revoked).contains(.remove("tether.work.expires-soon")))
        #expect(policy.grantEndsSoon(at: end).isEmpty)
    }

    @Test func providerTextInTheNameCannotReachTheNotificationRaw() {
        var policy = StatusNotificationPolicy(connectionName: "evil\u{1B}[2J\u{202E}name")
        let notice = Self.posted(policy.observe(Self.revoked)).first
        #expect(notice?.title.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E } == false)
    }

    @Test func notifierPostsNothingUntilEnabled() async {
        let center = UNUserNotificationCenter()
        let notifier = StatusNotifier(connectionName: "work", center: center)
        let (updates, continuation) = AsyncStream.makeStream(of: ConnectionStatus.self)
        continuation.yield(Self.connected)
        continuation.yield(Self.revoked)
        continuation.finish()
        await notifier.run(updates)
        #expect(center.addedRequests.isEmpty)

        // Enabled later: the grant that ended while off is not announced as a recovery... until it recovers.
        await notifier.setEnabled(true)
        await notifier.observe(Self.connected)
        #expect(center.addedRequests.map(\.identifier) == ["tether.work.recovered"])
        #expect(center.removedIdentifiers.contains("tether.work.needs-sign-in"))
        await notifier.observe(Self.revoked)
        let last = center.addedRequests.last
        #expect(last?.identifier == "tether.work.needs-sign-in")
        #expect(last?.content.title == "Sign in to work again")
        #expect(last?.content.threadIdentifier == "tether.work")
        #expect(last?.trigger == nil)
    }

    @Test func notifierFollowsASessionsStatusStream() async throws {
        let store = MemoryStore()
        let session = Session(id: "work", store: store, refresher: RefusingRefresher())
        let center = UNUserNotificationCenter()
        let notifier = StatusNotifier(connectionName: "work", center: center)
        await notifier.setEnabled(true)
        _ = try await session.signIn(
            account: Self.account,
            tokens: TokenSet(
                accessToken: AccessToken("a"),
                refreshToken: RefreshToken("r"),
                receivedAt: Date(),
                expiresAt: Date().addingTimeInterval(-60)
            )
        )
        let updates = await session.statusUpdates(bufferingPolicy: .unbounded)
        let following = Task { await notifier.run(updates) }
        _ = try? await session.validAccessToken()
        // The session ends the grant; the notifier posts once.
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while center.addedRequests.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        following.cancel()
        #expect(center.addedRequests.map(\.identifier) == ["tether.work.needs-sign-in"])
    }
}

/// A refresher whose provider refuses every refresh token.
struct RefusingRefresher: TokenRefresher {
    func refresh(_ request: RefreshRequest) async throws -> TokenResponse {
        throw RefreshError.permanent(.grantRevoked, "refused")
    }
}
