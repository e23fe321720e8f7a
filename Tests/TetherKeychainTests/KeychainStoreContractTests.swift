#if !canImport(Security)
import Foundation
import KeychainSimulator
import SecItemShim
import Tether
import TetherKeychain
import TetherTesting
import Testing

/// The ``CredentialStore`` contract, run against KeychainStore over the simulator.
struct KeychainStoreContractTests {
    @Test func writtenRecordReadsBackWithVersionOne() async throws {
        let read = try await withKeychain(makeSimulator()) {
            let store = try makeStore()
            let written = try await store.write(makeConnection())
            #expect(written.version == 1)
            return try await store.read("google")
        }
        #expect(read == makeConnection().withVersion(1))
        #expect(read?.tokens.refreshToken?.revealedValue == "refresh-canary-1")
    }

    @Test func everyWriteIncreasesTheVersionByOne() async throws {
        try await withKeychain(makeSimulator()) {
            let store = try makeStore()
            var versions: [UInt64] = []
            for index in 0..<3 {
                let stored = try await store.write(makeConnection(accessToken: "access-\(index)").withVersion(42))
                versions.append(stored.version)
            }
            #expect(versions == [1, 2, 3])
            #expect(try await store.read("google")?.tokens.accessToken?.revealedValue == "access-2")
        }
    }

    @Test func deleteIsIdempotentAndLeavesOtherRecords() async throws {
        try await withKeychain(makeSimulator()) {
            let store = try makeStore()
            try await store.write(makeConnection("google"))
            try await store.write(makeConnection("outlook"))
            try await store.delete("google")
            try await store.delete("google")
            #expect(try await store.read("google") == nil)
            #expect(try await store.read("outlook") != nil)
        }
    }

    @Test func writeAfterDeleteStartsAgainAtVersionOne() async throws {
        try await withKeychain(makeSimulator()) {
            let store = try makeStore()
            try await store.write(makeConnection())
            try await store.write(makeConnection())
            try await store.delete("google")
            #expect(try await store.write(makeConnection(), expecting: .absent).version == 1)
        }
    }

    @Test func listIsSortedAndComplete() async throws {
        let simulator = makeSimulator()
        let synced = try ConnectionCodec.encode(makeConnection("calendar").withVersion(1))
        simulator.insert(
            .init(
                service: "com.example.app.tether",
                account: "calendar",
                accessGroup: appIdentifier,
                isSynchronizable: true
            ),
            data: synced
        )
        let listed = try await withKeychain(simulator) {
            let store = try makeStore()
            for id: ConnectionID in ["work-outlook", "google", "apple"] { try await store.write(makeConnection(id)) }
            try await store.writeKeyMaterial(Data([1]), named: "identity")
            return try await store.list()
        }
        #expect(listed == ["apple", "calendar", "google", "work-outlook"])
    }

    @Test func refreshLeaseIsExclusiveUntilReleased() async throws {
        let store = try makeStore()
        let lease = try await store.acquireRefreshLease(for: "google", timeout: .seconds(1))
        await #expect(throws: CredentialStoreError.leaseTimeout) {
            try await store.acquireRefreshLease(for: "google", timeout: .zero)
        }
        let other = try await store.acquireRefreshLease(for: "outlook", timeout: .zero)
        await lease.release()
        await lease.release()
        let again = try await store.acquireRefreshLease(for: "google", timeout: .zero)
        await again.release()
        await other.release()
    }

    @Test func waitingLeaseHolderGetsTheLeaseWhenReleased() async throws {
        let clock = ManualClock()
        let store = try KeychainStore(secItems: .simulator, clock: clock)
        try await StoreContract.waiterIsGrantedOnlyAfterRelease(holder: store, waiter: store, clock: clock)
    }
}
#endif
