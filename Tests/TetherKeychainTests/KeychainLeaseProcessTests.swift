#if !canImport(Security)
import Foundation
import KeychainSimulator
import SecItemShim
import Tether
import TetherKeychain
import TetherTestSupport
import Testing

/// The refresh lease of stores that share an access group, held by another process (`TetherStoreProbe`, over its
/// own keychain simulator) as an app extension would hold it.
@Suite(.timeLimit(.minutes(2)))
struct KeychainLeaseProcessTests {
    @Test func aWaiterInAnotherProcessIsGrantedOnlyAfterTheHolderReleases() async throws {
        try await withLeaseHeldByAnotherProcess { holder, store in
            // Another connection's lease is a file of its own.
            let other = try await store.acquireRefreshLease(for: "outlook", timeout: .seconds(5))
            await other.release()

            let releaseAsked = LockedState(false)
            let waiter = Task {
                let lease = try await store.acquireRefreshLease(for: "google", timeout: .seconds(30))
                let askedFirst = releaseAsked.withLock { $0 }
                await lease.release()
                return askedFirst
            }
            // Give the waiter time to start polling the held lock; nothing below depends on how long it takes.
            try await Task.sleep(for: .milliseconds(300))
            releaseAsked.withLock { $0 = true }
            holder.closeInput()
            #expect(try await waiter.value, "the waiter was granted the lease while the other process held it")
            #expect(try await holder.waitForLine("released", timeout: .seconds(10)))
            #expect(await holder.waitForExit(timeout: .seconds(10)))
            #expect(holder.process.terminationStatus == 0)
        }
    }

    @Test func theLeaseOfACrashedHolderIsReleasedByTheSystem() async throws {
        try await withLeaseHeldByAnotherProcess { holder, store in
            holder.kill()
            #expect(await holder.waitForExit(timeout: .seconds(10)))
            #expect(holder.process.terminationReason == .uncaughtSignal)
            let lease = try await store.acquireRefreshLease(for: "google", timeout: .seconds(10))
            await lease.release()
        }
    }

    @Test func anAccessGroupWithoutAnAppGroupContainerNeedsTheLeaseFolderNamed() async throws {
        #expect(throws: CredentialStoreError.invalidConfiguration) {
            try makeStore(accessGroup: sharedGroup, leaseSharing: .automatic)
        }
        // Chosen explicitly, either way works.
        _ = try makeStore(accessGroup: sharedGroup, leaseSharing: .inProcess)
        _ = try makeStore(accessGroup: sharedGroup, leaseSharing: .directory(makeLeaseFolder()))
        // Without an access group, the automatic choice is the in-process lease.
        _ = try makeStore(leaseSharing: .automatic)
    }

    @Test func twoStoresInOneProcessShareTheFileLease() async throws {
        let folder = makeLeaseFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try makeSharedStore(folder)
        let second = try makeSharedStore(folder)
        let lease = try await first.acquireRefreshLease(for: "google", timeout: .seconds(1))
        await #expect(throws: CredentialStoreError.leaseTimeout) {
            try await second.acquireRefreshLease(for: "google", timeout: .milliseconds(20))
        }
        await lease.release()
        let again = try await second.acquireRefreshLease(for: "google", timeout: .seconds(5))
        await again.release()
    }

    /// The service of `makeStore`'s stores: the lease is per service and connection.
    private let service = "com.example.app.tether"

    private func makeLeaseFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("tether-leases-\(UUID().uuidString)")
    }

    private func makeSharedStore(_ folder: URL) throws -> KeychainStore {
        try makeStore(accessGroup: sharedGroup, leaseSharing: .directory(folder))
    }

    /// Runs `body` while a probe process holds the lease of connection "google" in a fresh lease folder, with a
    /// store of this process on that folder that has just failed to take the same lease.
    private func withLeaseHeldByAnotherProcess(
        _ body: (ProbeProcess, KeychainStore) async throws -> Void
    ) async throws {
        let folder = makeLeaseFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let holder = try ProbeProcess.launch(["hold-keychain-lease", folder.path, service, "google"])
        defer { holder.kill() }
        try #require(try await holder.waitForLine("held", timeout: .seconds(10)), "the probe did not take the lease")

        let store = try makeSharedStore(folder)
        await #expect(throws: CredentialStoreError.leaseTimeout) {
            try await store.acquireRefreshLease(for: "google", timeout: .milliseconds(50))
        }
        try await body(holder, store)
    }
}
#endif
