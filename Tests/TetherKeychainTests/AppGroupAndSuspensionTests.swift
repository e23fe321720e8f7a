#if !canImport(Security)
import Foundation
import KeychainSimulator
import SecItemShim
import Tether
import TetherKeychain
import Testing

/// What a ``KeychainStore`` asks the system about app groups and suspension, answered as macOS and iOS answer.
@Suite(.timeLimit(.minutes(1)))
struct AppGroupAndSuspensionTests {
    // MARK: App groups

    @Test func onMacOSAGroupMissingFromTheEntitlementIsAConfigurationError() throws {
        // macOS answers containerURL with a URL for any identifier; only the entitlement tells.
        let system = SystemStandIn(entitledAppGroups: ["TEAMA.com.example.other"])
        let error = try #require(throws: CredentialStoreError.self) {
            try makeAutomaticStore(system)
        }
        #expect(error == .invalidConfiguration)
        #expect(error.message.contains("com.apple.security.application-groups"))
        #expect(error.message.contains(sharedGroup))
        #expect(system.containerRequests == 0, "a URL macOS makes up for any identifier was used")
    }

    @Test func onMacOSAnEntitledGroupKeepsTheLeaseInItsContainer() async throws {
        let system = SystemStandIn(entitledAppGroups: [sharedGroup])
        defer { system.removeContainer() }
        let store = try makeAutomaticStore(system)
        let lease = try await store.acquireRefreshLease(for: "google", timeout: .seconds(5))
        let leases = system.container.appendingPathComponent("Library/Application Support/Tether/Leases")
        let files = try FileManager.default.contentsOfDirectory(atPath: leases.path)
        #expect(files.count == 1 && files[0].hasSuffix(".lease"))
        await lease.release()
    }

    @Test func onIOSAGroupWithoutAContainerIsAConfigurationError() throws {
        let system = SystemStandIn(entitledAppGroups: nil, hasContainer: false)
        let error = try #require(throws: CredentialStoreError.self) {
            try makeAutomaticStore(system)
        }
        #expect(error == .invalidConfiguration)
        #expect(error.message.contains("no app-group container"))
    }

    @Test func entitlementsAreReadAsAListOfGroups() {
        // Here there is no code signature: no task, no groups.
        #expect(KeychainPlatform.current.entitledAppGroups() == [])
        #expect(KeychainPlatform.current.containerURL(sharedGroup) == nil)
    }

    // MARK: Suspension (0xdead10cc)

    @Test func theSharedLeaseIsHeldInsideAnActivityThatEndsWithIt() async throws {
        let system = SystemStandIn(entitledAppGroups: [sharedGroup])
        defer { system.removeContainer() }
        let store = try makeAutomaticStore(system)
        let lease = try await store.acquireRefreshLease(for: "google", timeout: .seconds(5))
        #expect(system.activitiesStarted == 1)
        #expect(system.activitiesRunning == 1, "the lease is held outside an expiring activity")
        await lease.release()
        try await system.waitUntil(running: 0)
    }

    @Test func whenTheSystemSuspendsTheAppTheLockIsLetGo() async throws {
        let system = SystemStandIn(entitledAppGroups: [sharedGroup])
        defer { system.removeContainer() }
        let store = try makeAutomaticStore(system)
        let other = try makeAutomaticStore(system)
        let lease = try await store.acquireRefreshLease(for: "google", timeout: .seconds(5))
        await #expect(throws: CredentialStoreError.leaseTimeout) {
            try await other.acquireRefreshLease(for: "google", timeout: .milliseconds(30))
        }

        await system.expireActivities()

        // The lock file is free before the expiry call returns; the holder's activity has ended.
        let taken = try await other.acquireRefreshLease(for: "google", timeout: .milliseconds(30))
        try await system.waitUntil(running: 1)
        await lease.release()  // later release of the expired lease does nothing
        await #expect(throws: CredentialStoreError.leaseTimeout) {
            try await store.acquireRefreshLease(for: "google", timeout: .milliseconds(30))
        }
        await taken.release()
        try await system.waitUntil(running: 0)
    }

    @Test func anAppBeingSuspendedTakesNoLease() async throws {
        let system = SystemStandIn(entitledAppGroups: [sharedGroup], refusesActivities: true)
        defer { system.removeContainer() }
        let store = try makeAutomaticStore(system)
        let error = try await #require(throws: CredentialStoreError.self) {
            try await store.acquireRefreshLease(for: "google", timeout: .seconds(5))
        }
        #expect(error == .unavailable)
        #expect(error.isTransient)
        #expect(error.message.contains("suspending"))
        // No lock file was locked: a store whose activities are granted takes the lease at once.
        let granted = SystemStandIn(entitledAppGroups: [sharedGroup], container: system.container)
        let lease = try await makeAutomaticStore(granted).acquireRefreshLease(for: "google", timeout: .milliseconds(30))
        await lease.release()
    }

    @Test func leasesInTheProcessNeedNoActivity() async throws {
        let system = SystemStandIn(entitledAppGroups: [sharedGroup])
        let store = try makeStore(accessGroup: sharedGroup, leaseSharing: .inProcess, platform: system.platform)
        let lease = try await store.acquireRefreshLease(for: "google", timeout: .seconds(5))
        await lease.release()
        #expect(system.activitiesStarted == 0)
    }

    // MARK: Helpers

    private func makeAutomaticStore(_ system: SystemStandIn) throws -> KeychainStore {
        try makeStore(accessGroup: sharedGroup, leaseSharing: .automatic, platform: system.platform)
    }

    private func makeStore(
        accessGroup: String,
        leaseSharing: KeychainStore.LeaseSharing,
        platform: KeychainPlatform
    ) throws -> KeychainStore {
        try KeychainStore(
            secItems: .simulator,
            configuration: KeychainStore.Configuration(accessGroup: accessGroup, leaseSharing: leaseSharing),
            platform: platform
        )
    }
}

/// The system as a store sees it: an app-group container in a temporary folder, an entitlement list, and
/// expiring activities the test can expire.
private final class SystemStandIn: Sendable {
    let container: URL
    private let entitled: [String]?
    private let hasContainer: Bool
    private let refusesActivities: Bool
    private let state = LockedState(State())

    private struct State {
        var containerRequests = 0
        var started = 0
        var running = 0
        var blocks: [@Sendable (Bool) -> Void] = []
    }

    init(
        entitledAppGroups: [String]?,
        hasContainer: Bool = true,
        refusesActivities: Bool = false,
        container: URL? = nil
    ) {
        self.entitled = entitledAppGroups
        self.hasContainer = hasContainer
        self.refusesActivities = refusesActivities
        self.container =
            container ?? FileManager.default.temporaryDirectory.appendingPathComponent("tether-group-\(UUID())")
    }

    var containerRequests: Int { state.withLock { $0.containerRequests } }
    var activitiesStarted: Int { state.withLock { $0.started } }
    var activitiesRunning: Int { state.withLock { $0.running } }

    var platform: KeychainPlatform {
        KeychainPlatform(
            containerURL: { _ in
                self.state.withLock { $0.containerRequests += 1 }
                return self.hasContainer ? self.container : nil
            },
            entitledAppGroups: { self.entitled },
            performExpiringActivity: { _, block in
                self.state.withLock { $0.started += 1 }
                if self.refusesActivities {
                    Thread.detachNewThread { block(true) }
                    return
                }
                self.state.withLock { $0.blocks.append(block) }
                Thread.detachNewThread {
                    self.state.withLock { $0.running += 1 }
                    block(false)
                    self.state.withLock { $0.running -= 1 }
                }
            }
        )
    }

    /// Tells every activity the system is about to suspend the process, as the system does: a second call of
    /// the block, with `true`, on another thread; returns when those calls have returned.
    func expireActivities() async {
        let blocks = state.withLock { state in
            defer { state.blocks = [] }
            return state.blocks
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                for block in blocks { block(true) }
                continuation.resume()
            }
        }
    }

    /// Waits (up to 5 s) until `running` activities run; the blocks return on threads of their own.
    func waitUntil(running: Int) async throws {
        for _ in 0..<500 where activitiesRunning != running {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(activitiesRunning == running, "activities still running: \(activitiesRunning), expected \(running)")
    }

    func removeContainer() { try? FileManager.default.removeItem(at: container) }
}
#endif
