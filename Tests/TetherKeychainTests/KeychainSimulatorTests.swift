#if !canImport(Security)
import Foundation
import KeychainSimulator
import SecItemShim
import Testing

/// The simulator's own rules (https://developer.apple.com/documentation/security/keychain-services), checked through
/// the SecItem functions.
struct KeychainSimulatorTests {
    private let item: [String: Any] = [kSecAttrService: "svc", kSecAttrAccount: "acct", kSecValueData: Data("x".utf8)]

    @Test func itemWithoutAccessGroupLandsInFirstKeychainAccessGroup() async throws {
        let simulator = makeSimulator(accessGroups: [sharedGroup, "TEAMA.other"])
        await withKeychain(simulator) { #expect(addItem(item) == errSecSuccess) }
        #expect(simulator.items.map(\.accessGroup) == [sharedGroup])
    }

    @Test func itemWithoutAccessGroupOrSharingEntitlementLandsInApplicationIdentifier() async throws {
        let simulator = KeychainSimulator(applicationIdentifier: appIdentifier, applicationGroups: ["group.example"])
        await withKeychain(simulator) { #expect(addItem(item) == errSecSuccess) }
        #expect(simulator.items.map(\.accessGroup) == [appIdentifier])
    }

    @Test func groupOutsideTheEntitlementsIsMissingEntitlement() async throws {
        let simulator = makeSimulator(accessGroups: [sharedGroup])
        await withKeychain(simulator) {
            var attributes = item
            attributes[kSecAttrAccessGroup] = "TEAMB.com.example.other"
            #expect(addItem(attributes) == errSecMissingEntitlement)
            #expect(copyMatching([kSecAttrAccessGroup: "TEAMB.com.example.other"]).0 == errSecMissingEntitlement)
            attributes[kSecAttrAccessGroup] = appIdentifier
            #expect(addItem(attributes) == errSecSuccess)
        }
    }

    @Test func samePrimaryKeyIsDuplicateButOtherSynchronizableIsNot() async throws {
        let simulator = makeSimulator()
        await withKeychain(simulator) {
            #expect(addItem(item) == errSecSuccess)
            var labelled = item
            labelled[kSecAttrLabel] = "another label"
            #expect(addItem(labelled) == errSecDuplicateItem)
            var synced = item
            synced[kSecAttrSynchronizable] = true
            #expect(addItem(synced) == errSecSuccess)
        }
        #expect(simulator.itemCount == 2)
    }

    @Test func queriesMatchLocalItemsUnlessTheyAskForSynchronizedOnes() async throws {
        let simulator = makeSimulator()
        await withKeychain(simulator) {
            var synced = item
            synced[kSecAttrSynchronizable] = true
            synced[kSecAttrAccount] = "synced"
            addItem(item)
            addItem(synced)
            let all: [String: Any] = [kSecReturnAttributes: true, kSecMatchLimit: kSecMatchLimitAll]
            func accounts(_ sync: Any?) -> [String] {
                var query = all
                query[kSecAttrSynchronizable] = sync
                let (status, result) = copyMatching(query)
                guard status == errSecSuccess else { return [] }
                return (result as? [[String: Any]] ?? []).compactMap { $0[kSecAttrAccount] as? String }
            }
            #expect(accounts(nil) == ["acct"])
            #expect(accounts(false) == ["acct"])
            #expect(accounts(true) == ["synced"])
            #expect(accounts(kSecAttrSynchronizableAny) == ["acct", "synced"])
        }
    }

    @Test func accessibilityDefaultsToWhenUnlockedAndFiltersQueries() async throws {
        let simulator = makeSimulator()
        await withKeychain(simulator) {
            addItem(item)
            #expect(copyMatching([kSecAttrAccessible: kSecAttrAccessibleAfterFirstUnlock]).0 == errSecItemNotFound)
            #expect(copyMatching([kSecAttrAccessible: kSecAttrAccessibleWhenUnlocked]).0 == errSecSuccess)
        }
        #expect(simulator.items.first?.accessibility == kSecAttrAccessibleWhenUnlocked)
    }

    @Test(arguments: [
        kSecAttrAccessibleWhenUnlockedThisDeviceOnly, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
    ])
    func synchronizableWithThisDeviceOnlyIsParam(accessibility: String) async throws {
        let simulator = makeSimulator()
        await withKeychain(simulator) {
            var attributes = item
            attributes[kSecAttrSynchronizable] = true
            attributes[kSecAttrAccessible] = accessibility
            #expect(addItem(attributes) == errSecParam)
            attributes[kSecAttrAccessible] = kSecAttrAccessibleAfterFirstUnlock
            #expect(addItem(attributes) == errSecSuccess)
            let query: [String: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrSynchronizable: true]
            #expect(SecItemUpdate(query, [kSecAttrAccessible: accessibility]) == errSecParam)
        }
        #expect(simulator.items.first?.accessibility == kSecAttrAccessibleAfterFirstUnlock)
    }

    @Test func lockedClassesAreNotAvailable() async throws {
        let simulator = makeSimulator()
        await withKeychain(simulator) {
            var later = item
            later[kSecAttrAccount] = "later"
            later[kSecAttrAccessible] = kSecAttrAccessibleAfterFirstUnlock
            addItem(item)
            addItem(later)
            let data: [String: Any] = [kSecReturnData: true]
            simulator.lock()
            #expect(copyMatching(data.merging([kSecAttrAccount: "acct"]) { $1 }).0 == errSecInteractionNotAllowed)
            #expect(copyMatching(data.merging([kSecAttrAccount: "later"]) { $1 }).0 == errSecSuccess)
            simulator.restart()
            #expect(simulator.deviceState.isLockedSinceBoot)
            #expect(copyMatching(data.merging([kSecAttrAccount: "later"]) { $1 }).0 == errSecInteractionNotAllowed)
            #expect(addItem(later.merging([kSecAttrAccount: "new"]) { $1 }) == errSecInteractionNotAllowed)
            simulator.unlock()
            #expect(copyMatching(data.merging([kSecAttrAccount: "acct"]) { $1 }).0 == errSecSuccess)
        }
    }

    @Test func passcodeClassNeedsAPasscode() async throws {
        let simulator = makeSimulator(
            deviceState: .init(hasBeenUnlockedSinceBoot: true, isUnlocked: true, isPasscodeSet: false)
        )
        await withKeychain(simulator) {
            var attributes = item
            attributes[kSecAttrAccessible] = kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
            #expect(addItem(attributes) == errSecAuthFailed)
            simulator.setPasscode(true)
            #expect(addItem(attributes) == errSecSuccess)
            simulator.setPasscode(false)
        }
        #expect(simulator.itemCount == 0)
    }

    @Test func resultsHaveApplesShapes() async throws {
        let simulator = makeSimulator()
        try await withKeychain(simulator) {
            addItem(item)
            let dataOnly = copyMatching([kSecReturnData: true])
            #expect(dataOnly.1 as? Data == Data("x".utf8))
            let both = try #require(
                copyMatching([kSecReturnData: true, kSecReturnAttributes: true]).1 as? [String: Any]
            )
            #expect(both[kSecValueData] as? Data == Data("x".utf8))
            #expect(both[kSecAttrAccount] as? String == "acct")
            #expect(both[kSecAttrSynchronizable] as? Bool == false)
            let list = copyMatching([kSecReturnAttributes: true, kSecMatchLimit: kSecMatchLimitAll])
            #expect((list.1 as? [[String: Any]])?.count == 1)
            #expect(copyMatching([kSecReturnData: true, kSecMatchLimit: kSecMatchLimitAll]).0 == errSecParam)
        }
    }

    @Test func unknownQueryKeysAreParam() async throws {
        let simulator = makeSimulator()
        await withKeychain(simulator) {
            #expect(addItem(item.merging(["svc": "typo"]) { $1 }) == errSecParam)
        }
    }

    @Test func updateAndDeleteChangeEveryMatch() async throws {
        let simulator = makeSimulator()
        await withKeychain(simulator) {
            addItem(item)
            addItem(item.merging([kSecAttrSynchronizable: true]) { $1 })
            let any: [String: Any] = [
                kSecClass: kSecClassGenericPassword, kSecAttrSynchronizable: kSecAttrSynchronizableAny,
            ]
            #expect(SecItemUpdate(any, [kSecAttrLabel: "both"]) == errSecSuccess)
            #expect(simulator.items.map(\.label) == ["both", "both"])
            #expect(SecItemDelete(any) == errSecSuccess)
            #expect(SecItemDelete(any) == errSecItemNotFound)
        }
        #expect(simulator.itemCount == 0)
    }

    @Test func injectedFailureAffectsOnlyTheNextCall() async throws {
        let simulator = makeSimulator()
        await withKeychain(simulator) {
            simulator.failNextCall(with: errSecInteractionNotAllowed, on: .add)
            #expect(copyMatching([:]).0 == errSecItemNotFound)
            #expect(addItem(item) == errSecInteractionNotAllowed)
            #expect(addItem(item) == errSecSuccess)
        }
        #expect(simulator.calls == [.copyMatching, .add, .add])
    }

    @Test func eachTaskUsesItsOwnSimulator() async throws {
        let first = makeSimulator()
        let second = makeSimulator()
        await withKeychain(first) { addItem(item) }
        await withKeychain(second) { #expect(copyMatching([:]).0 == errSecItemNotFound) }
        #expect(first.itemCount == 1 && second.itemCount == 0)
    }

    @Test func anotherAppOnTheDeviceSeesOnlyItsGroups() async throws {
        let appA = makeSimulator(accessGroups: [sharedGroup])
        let appB = appA.sharingDevice(applicationIdentifier: "TEAMB.com.example.other")
        await withKeychain(appA) { addItem(item) }
        await withKeychain(appB) {
            #expect(copyMatching([:]).0 == errSecItemNotFound)
            #expect(copyMatching([kSecAttrAccessGroup: sharedGroup]).0 == errSecMissingEntitlement)
        }
        #expect(appB.itemCount == 1)
    }
}
#endif
