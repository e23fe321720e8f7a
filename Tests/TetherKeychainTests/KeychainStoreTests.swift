#if !canImport(Security)
import Foundation
import InMemoryLogging
import KeychainSimulator
import SecItemShim
import Logging
import Tether
import TetherKeychain
import Testing

/// KeychainStore through the simulator: the keychain-specific behaviour.
struct KeychainStoreTests {
    private let service = "com.example.app.tether"

    @Test func recordsAreLocalOnlyAndReadableAfterFirstUnlockByDefault() async throws {
        let simulator = makeSimulator()
        let written = try await withKeychain(simulator) { try await makeStore().write(makeConnection()) }
        let item = try #require(simulator.items.first)
        #expect(simulator.itemCount == 1)
        #expect(item.service == service && item.account == "google" && item.accessGroup == appIdentifier)
        #expect(!item.isSynchronizable)
        #expect(item.accessibility == kSecAttrAccessibleAfterFirstUnlock)
        #expect(written.version == 1)
    }

    @Test func synchronizableWriteIsReadBackThroughAnySynchronizable() async throws {
        let simulator = makeSimulator()
        let read = try await withKeychain(simulator) {
            let store = try makeStore(connections: .synchronizable)
            try await store.write(makeConnection())
            return try await store.read("google")
        }
        #expect(read == makeConnection().withVersion(1))
        #expect(simulator.items.map(\.isSynchronizable) == [true])
    }

    @Test func keyMaterialDefaultsToSynchronizableAndRecordsToLocal() async throws {
        let simulator = makeSimulator()
        let key = Data([1, 2, 3])
        let read = try await withKeychain(simulator) {
            let store = try KeychainStore(secItems: .simulator, configuration: .init(service: service))
            try await store.write(makeConnection())
            try await store.writeKeyMaterial(key, named: "identity")
            #expect(try await store.list() == ["google"])
            return try await store.readKeyMaterial(named: "identity")
        }
        #expect(read == key)
        let sync = Dictionary(uniqueKeysWithValues: simulator.items.map { ($0.service, $0.isSynchronizable) })
        #expect(sync == [service: false, service + ".keys": true])
    }

    @Test func keyMaterialIsReplacedAndDeleted() async throws {
        let simulator = makeSimulator()
        try await withKeychain(simulator) {
            let store = try makeStore()
            try await store.writeKeyMaterial(Data([1]), named: "identity")
            try await store.writeKeyMaterial(Data([2]), named: "identity")
            #expect(try await store.readKeyMaterial(named: "identity") == Data([2]))
            #expect(simulator.itemCount == 1)
            try await store.deleteKeyMaterial(named: "identity")
            try await store.deleteKeyMaterial(named: "identity")
            #expect(try await store.readKeyMaterial(named: "identity") == nil)
        }
    }

    @Test func deleteRemovesSynchronizedAndLocalCopies() async throws {
        let simulator = makeSimulator()
        let data = try ConnectionCodec.encode(makeConnection().withVersion(1))
        for synchronizable in [false, true] {
            simulator.insert(
                .init(
                    service: service,
                    account: "google",
                    accessGroup: appIdentifier,
                    isSynchronizable: synchronizable
                ),
                data: data
            )
        }
        try await withKeychain(simulator) {
            let store = try makeStore()
            #expect(try await store.read("google") != nil)
            try await store.delete("google")
            #expect(try await store.read("google") == nil)
        }
        #expect(simulator.itemCount == 0)
    }

    @Test(arguments: [
        (KeychainStore.SyncPolicy.synchronizable, KeychainStore.SyncPolicy.localOnly),
        (.localOnly, .synchronizable),
    ])
    func thisDeviceOnlyWithSynchronizationIsRejectedBeforeAnyKeychainCall(
        connections: KeychainStore.SyncPolicy,
        keyMaterial: KeychainStore.SyncPolicy
    ) async throws {
        let simulator = makeSimulator()
        await withKeychain(simulator) {
            #expect(throws: CredentialStoreError.invalidConfiguration) {
                try makeStore(
                    accessibility: .afterFirstUnlockThisDeviceOnly,
                    connections: connections,
                    keyMaterial: keyMaterial
                )
            }
        }
        #expect(simulator.callCount == 0)
    }

    @Test func thisDeviceOnlyWorksWhenNothingSyncs() async throws {
        let simulator = makeSimulator()
        try await withKeychain(simulator) {
            let store = try makeStore(accessibility: .afterFirstUnlockThisDeviceOnly, keyMaterial: .localOnly)
            try await store.write(makeConnection())
        }
        #expect(simulator.items.first?.accessibility == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly)
    }

    @Test func appWithOtherEntitlementsCannotReadRecords() async throws {
        let appA = makeSimulator(accessGroups: [sharedGroup])
        let appB = appA.sharingDevice(applicationIdentifier: "TEAMB.com.example.other")
        try await withKeychain(appA) { try await makeStore(accessGroup: sharedGroup).write(makeConnection()) }
        try await withKeychain(appB) {
            let privateStore = try makeStore()
            #expect(try await privateStore.read("google") == nil)
            #expect(try await privateStore.list() == [])
            let error = await #expect(throws: CredentialStoreError.missingEntitlement) {
                try await makeStore(accessGroup: sharedGroup).read("google")
            }
            #expect(error?.message.contains(sharedGroup) == true)
            // On macOS the usual cause is another: no application identifier at all.
            #expect(error?.message.contains("application identifier") == true)
        }
        #expect(appA.itemCount == 1)
    }

    @Test func lockedSinceBootIsUnavailableAndDeletesNothing() async throws {
        let simulator = makeSimulator()
        try await withKeychain(simulator) {
            let store = try makeStore()
            try await store.write(makeConnection())
            simulator.restart()
            let error = await #expect(throws: CredentialStoreError.unavailable) { try await store.read("google") }
            #expect(error?.isTransient == true)
            await #expect(throws: CredentialStoreError.unavailable) { try await store.list() }
            await #expect(throws: CredentialStoreError.unavailable) { try await store.write(makeConnection()) }
            simulator.unlock()
            #expect(try await store.read("google") == makeConnection().withVersion(1))
        }
        #expect(simulator.itemCount == 1)
    }

    @Test func whenUnlockedRecordIsUnavailableWhileLockedButDefaultIsNot() async throws {
        let simulator = makeSimulator()
        try await withKeychain(simulator) {
            let background = try makeStore()
            let foreground = try makeStore(service: "foreground", accessibility: .whenUnlocked)
            try await background.write(makeConnection())
            try await foreground.write(makeConnection())
            simulator.lock()
            #expect(try await background.read("google") != nil)
            await #expect(throws: CredentialStoreError.unavailable) { try await foreground.read("google") }
        }
    }

    @Test func duplicateOnAddBecomesAnUpdate() async throws {
        let simulator = makeSimulator()
        let stale = try ConnectionCodec.encode(makeConnection(accessToken: "other-process").withVersion(7))
        simulator.beforeNextCall(to: .add) {
            simulator.insert(.init(service: service, account: "google", accessGroup: appIdentifier), data: stale)
        }
        let read = try await withKeychain(simulator) {
            let store = try makeStore()
            _ = try await store.write(makeConnection(), expecting: .any)
            return try await store.read("google")
        }
        #expect(read == makeConnection().withVersion(1))
        #expect(simulator.itemCount == 1)
    }

    @Test func duplicateOnAddWhenExpectingAbsentIsAConflict() async throws {
        let simulator = makeSimulator()
        let other = try ConnectionCodec.encode(makeConnection(accessToken: "other-process").withVersion(1))
        simulator.beforeNextCall(to: .add) {
            simulator.insert(
                .init(
                    service: service,
                    account: "google",
                    accessGroup: appIdentifier,
                    accessibility: kSecAttrAccessibleAfterFirstUnlock
                ),
                data: other
            )
        }
        let read = try await withKeychain(simulator) {
            let store = try makeStore()
            await #expect(throws: CredentialStoreError.versionConflict) {
                try await store.write(makeConnection(), expecting: .absent)
            }
            return try await store.read("google")
        }
        #expect(read?.tokens.accessToken?.revealedValue == "other-process")
    }

    @Test func compareAndSwapRefusesStaleVersions() async throws {
        let simulator = makeSimulator()
        try await withKeychain(simulator) {
            let store = try makeStore()
            let first = try await store.write(makeConnection(), expecting: .absent)
            await #expect(throws: CredentialStoreError.versionConflict) {
                try await store.write(makeConnection(), expecting: .absent)
            }
            let second = try await store.write(
                makeConnection(accessToken: "access-2"),
                expecting: .version(first.version)
            )
            await #expect(throws: CredentialStoreError.versionConflict) {
                try await store.write(makeConnection(accessToken: "access-3"), expecting: .version(first.version))
            }
            let stored = try await store.read("google")
            #expect(second.version == 2)
            #expect(stored == second)
        }
    }

    @Test func concurrentWritersAreSerialisedInProcess() async throws {
        let simulator = makeSimulator()
        let versions = try await withKeychain(simulator) {
            let store = try makeStore()
            return try await withThrowingTaskGroup(of: UInt64.self) { group in
                for index in 0..<20 {
                    group.addTask { try await store.write(makeConnection(accessToken: "access-\(index)")).version }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(versions.sorted() == Array(1...20))
        #expect(simulator.itemCount == 1)
    }

    @Test func corruptedItemIsReportedAndLeftInPlace() async throws {
        let simulator = makeSimulator()
        let garbage = Data("not a record".utf8)
        try await withKeychain(simulator) {
            #expect(
                addItem([kSecAttrService: service, kSecAttrAccount: "google", kSecValueData: garbage]) == errSecSuccess
            )
            let store = try makeStore()
            await #expect(throws: CredentialStoreError.corrupted) { try await store.read("google") }
            await #expect(throws: CredentialStoreError.corrupted) { try await store.write(makeConnection()) }
            let (status, data) = copyMatching([kSecAttrAccount: "google", kSecReturnData: true])
            #expect(status == errSecSuccess)
            #expect(data as? Data == garbage)
            try await store.delete("google")
        }
        #expect(simulator.itemCount == 0)
    }

    @Test func recordOfAnotherConnectionIsCorrupted() async throws {
        let simulator = makeSimulator()
        let data = try ConnectionCodec.encode(makeConnection("outlook").withVersion(1))
        await withKeychain(simulator) {
            addItem([kSecAttrService: service, kSecAttrAccount: "google", kSecValueData: data])
            await #expect(throws: CredentialStoreError.corrupted) { try await makeStore().read("google") }
        }
    }

    @Test func accessibilityMigrationKeepsTheRecordInOneItem() async throws {
        let simulator = makeSimulator()
        let read = try await withKeychain(simulator) {
            try await makeStore(accessibility: .whenUnlocked).write(makeConnection())
            return try await makeStore().read("google")
        }
        #expect(read == makeConnection().withVersion(1))
        #expect(simulator.items.map(\.accessibility) == [kSecAttrAccessibleAfterFirstUnlock])
    }

    @Test(arguments: [
        (KeychainStore.SyncPolicy.synchronizable, KeychainStore.SyncPolicy.localOnly), (.localOnly, .synchronizable),
    ])
    func synchronizationMigrationKeepsTheRecordInOneItem(
        from old: KeychainStore.SyncPolicy,
        to new: KeychainStore.SyncPolicy
    ) async throws {
        let simulator = makeSimulator()
        let read = try await withKeychain(simulator) {
            try await makeStore(connections: old).write(makeConnection())
            return try await makeStore(connections: new).read("google")
        }
        #expect(read == makeConnection().withVersion(1))
        #expect(simulator.items.map(\.isSynchronizable) == [new.isSynchronizable])
    }

    @Test func accessGroupMigrationMovesTheRecordAndAddsBeforeDeleting() async throws {
        let oldGroup = "TEAMA.com.example.legacy"
        let simulator = makeSimulator(accessGroups: [sharedGroup, oldGroup])
        let read = try await withKeychain(simulator) {
            try await makeStore(accessGroup: oldGroup).write(makeConnection())
            let store = try makeStore(accessGroup: sharedGroup, previousAccessGroups: [oldGroup])
            #expect(try await store.list() == ["google"])
            let callsBefore = simulator.callCount
            let read = try await store.read("google")
            let migration = Array(simulator.calls.dropFirst(callsBefore))
            let add = try #require(migration.firstIndex(of: .add))
            let delete = try #require(migration.firstIndex(of: .delete))
            #expect(add < delete)
            return read
        }
        #expect(read == makeConnection().withVersion(1))
        #expect(simulator.items.map(\.accessGroup) == [sharedGroup])
    }

    @Test func failedMigrationStillReturnsTheRecordAndKeepsTheOldItem() async throws {
        let simulator = makeSimulator()
        let read = try await withKeychain(simulator) {
            try await makeStore(connections: .synchronizable).write(makeConnection())
            simulator.failNextCall(with: errSecInteractionNotAllowed, on: .add)
            return try await makeStore().read("google")
        }
        #expect(read == makeConnection().withVersion(1))
        #expect(simulator.items.map(\.isSynchronizable) == [true])
    }

    @Test(arguments: [
        (errSecInteractionNotAllowed, CredentialStoreError.unavailable),
        (errSecMissingEntitlement, .missingEntitlement),
        (errSecParam, .invalidConfiguration),
        (errSecAuthFailed, .io),
        (-25291, .io),
    ])
    func keychainStatusesMapToStoreErrors(status: Int32, expected: CredentialStoreError) async throws {
        let simulator = makeSimulator()
        try await withKeychain(simulator) {
            let store = try makeStore()
            simulator.failNextCall(with: status)
            let error = await #expect(throws: expected) { try await store.read("google") }
            #expect(error?.message.contains("\(status)") == true)
        }
    }

    @Test func missingRecordReadsAsNilAndDeletesAsNoOp() async throws {
        let simulator = makeSimulator()
        try await withKeychain(simulator) {
            let store = try makeStore()
            #expect(try await store.read("google") == nil)
            try await store.delete("google")
            #expect(try await store.list() == [])
        }
    }

    @Test func logsAndErrorsNeverContainSecrets() async throws {
        let simulator = makeSimulator()
        var handler = InMemoryLogHandler()
        handler.logLevel = .trace
        let logs = handler
        let logger = Logger(label: "test") { _ in logs }
        var errors: [String] = []
        try await withKeychain(simulator) {
            let store = try KeychainStore(secItems: .simulator, configuration: .init(service: service), logger: logger)
            try await store.write(makeConnection())
            _ = try await store.read("google")
            try await store.writeKeyMaterial(Data("key-canary".utf8), named: "identity")
            simulator.restart()
            do { _ = try await store.read("google") } catch { errors.append("\(error)") }
            simulator.unlock()
            let migrating = try KeychainStore(
                secItems: .simulator,
                configuration: .init(service: service, accessibility: .whenUnlocked),
                logger: logger
            )
            _ = try await migrating.read("google")
            try await store.delete("google")
        }
        #expect(!logs.entries.isEmpty)
        let text = logs.entries.map { "\($0.message) \($0.metadata)" }.joined() + errors.joined()
        for canary in ["access-canary", "refresh-canary", "key-canary"] {
            #expect(!text.contains(canary))
        }
    }
}
#endif
