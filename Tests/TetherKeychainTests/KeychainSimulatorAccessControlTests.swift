#if !canImport(Security)
import Foundation
import KeychainSimulator
import LocalAuthenticationShim
import SecItemShim
import Testing

/// The simulator's rules for access-controlled items, through the SecItem functions
/// (https://developer.apple.com/documentation/security/ksecattraccesscontrol,
/// https://developer.apple.com/documentation/security/ksecuseauthenticationcontext).
struct KeychainSimulatorAccessControlTests {
    func makeAccessControl(_ flags: SecAccessControlCreateFlags = .biometryCurrentSet) throws -> SecAccessControl {
        try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, flags, nil))
    }

    func protectedItem(_ access: SecAccessControl) -> [String: Any] {
        [
            kSecAttrService: "svc", kSecAttrAccount: "acct", kSecValueData: Data("secret".utf8),
            kSecAttrAccessControl: access,
        ]
    }

    func readData(context: LAContext? = nil) -> OSStatus {
        var query: [String: Any] = [kSecAttrService: "svc", kSecAttrAccount: "acct", kSecReturnData: true]
        if let context { query[kSecUseAuthenticationContext] = context }
        return copyMatching(query).0
    }

    @Test func accessControlCreationRejectsAnUnknownProtection() {
        var error: Unmanaged<CFError>?
        #expect(SecAccessControlCreateWithFlags(nil, "nope", .userPresence, &error) == nil)
        #expect(error?.takeRetainedValue().code == Int(errSecParam))
    }

    @Test func anAccessControlExcludesAnAccessibilityAndSynchronization() async throws {
        let simulator = makeSimulator()
        let access = try makeAccessControl()
        await withKeychain(simulator) {
            var both = protectedItem(access)
            both[kSecAttrAccessible] = kSecAttrAccessibleAfterFirstUnlock
            #expect(addItem(both) == errSecParam)
            var synced = protectedItem(access)
            synced[kSecAttrSynchronizable] = true
            #expect(addItem(synced) == errSecParam)
            #expect(addItem(protectedItem(access)) == errSecSuccess)
        }
        #expect(simulator.items.first?.accessibility == kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly)
    }

    @Test func attributesAndDeletesNeedNobodyButDataNeedsTheUser() async throws {
        let simulator = makeSimulator()
        let access = try makeAccessControl()
        await withKeychain(simulator) {
            #expect(addItem(protectedItem(access)) == errSecSuccess)
            #expect(copyMatching([kSecAttrService: "svc", kSecReturnAttributes: true]).0 == errSecSuccess)
            #expect(simulator.promptCount == 0)
            #expect(readData() == errSecSuccess)
            #expect(simulator.promptCount == 1)
            #expect(readData() == errSecSuccess, "without a context every read asks")
            #expect(simulator.promptCount == 2)
            #expect(
                SecItemUpdate(
                    [kSecClass: kSecClassGenericPassword, kSecAttrService: "svc"],
                    [kSecValueData: Data("new".utf8)]
                ) == errSecSuccess
            )
            #expect(simulator.promptCount == 3, "replacing the secret asks too")
            #expect(SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: "svc"]) == errSecSuccess)
        }
        #expect(simulator.promptCount == 3)
        #expect(simulator.itemCount == 0)
    }

    @Test func anAuthenticatedContextIsReusedAndANonInteractiveOneNeverPrompts() async throws {
        let simulator = makeSimulator()
        let access = try makeAccessControl(.userPresence)
        await withKeychain(simulator) {
            #expect(addItem(protectedItem(access)) == errSecSuccess)
            let quiet = LAContext()
            quiet.interactionNotAllowed = true
            #expect(readData(context: quiet) == errSecInteractionNotAllowed)
            let context = LAContext()
            context.localizedReason = "Unlock"
            #expect(readData(context: context) == errSecSuccess)
            #expect(readData(context: context) == errSecSuccess)
            simulator.userResponse = .cancel
            #expect(readData(context: LAContext()) == errSecUserCanceled)
            simulator.userResponse = .fail
            #expect(readData(context: LAContext()) == errSecAuthFailed)
        }
        #expect(simulator.prompts == ["Unlock", "", ""])
    }

    @Test func anEnrolmentChangeInvalidatesOnlyCurrentSetItems() async throws {
        let simulator = makeSimulator()
        let current = try makeAccessControl(.biometryCurrentSet)
        let any = try makeAccessControl(.biometryAny)
        await withKeychain(simulator) {
            #expect(addItem(protectedItem(current)) == errSecSuccess)
            var other = protectedItem(any)
            other[kSecAttrAccount] = "other"
            #expect(addItem(other) == errSecSuccess)
            let context = LAContext()
            #expect(readData(context: context) == errSecSuccess)
            simulator.changeBiometricEnrolment()
            #expect(readData(context: context) == errSecItemNotFound)
            let otherRead = copyMatching([kSecAttrService: "svc", kSecAttrAccount: "other", kSecReturnData: true])
            #expect(otherRead.0 == errSecSuccess)
            #expect(
                copyMatching([kSecAttrService: "svc", kSecAttrAccount: "acct", kSecReturnAttributes: true]).0
                    == errSecSuccess,
                "the invalidated item stays until deleted"
            )
        }
        #expect(simulator.promptCount == 2, "the context authenticated before the change no longer counts")
    }

    @Test func withoutAPasscodeNoAccessControlledItemCanBeAdded() async throws {
        let simulator = makeSimulator()
        simulator.setPasscode(false)
        let access = try makeAccessControl(.userPresence)
        await withKeychain(simulator) { #expect(addItem(protectedItem(access)) == errSecAuthFailed) }
        #expect(simulator.itemCount == 0)
    }
}
#endif
