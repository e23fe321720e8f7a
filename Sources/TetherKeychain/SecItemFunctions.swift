#if canImport(Security)
package import Security
#else
package import SecItemShim
#endif

/// The four SecItem functions a ``KeychainStore`` calls.
///
/// On Apple platforms ``system`` holds the Security framework's. Elsewhere there is no keychain, so there is no
/// `system` value: the tests build one over `KeychainSimulator`, which keeps its items in memory, and pass it to
/// `KeychainStore.init(secItems:configuration:clock:logger:)`. That initializer is `package`, so code outside
/// this package cannot end up with a keychain that forgets everything when the process exits.
package struct SecItemFunctions: Sendable {
    /// `SecItemAdd`.
    package var add: @Sendable (CFDictionary, UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus
    /// `SecItemCopyMatching`.
    package var copyMatching: @Sendable (CFDictionary, UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus
    /// `SecItemUpdate`.
    package var update: @Sendable (CFDictionary, CFDictionary) -> OSStatus
    /// `SecItemDelete`.
    package var delete: @Sendable (CFDictionary) -> OSStatus

    /// Collects the four functions.
    package init(
        add: @escaping @Sendable (CFDictionary, UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus,
        copyMatching: @escaping @Sendable (CFDictionary, UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus,
        update: @escaping @Sendable (CFDictionary, CFDictionary) -> OSStatus,
        delete: @escaping @Sendable (CFDictionary) -> OSStatus
    ) {
        self.add = add
        self.copyMatching = copyMatching
        self.update = update
        self.delete = delete
    }

    #if canImport(Security)
    /// The Security framework's functions: the real keychain.
    package static let system = SecItemFunctions(
        add: { SecItemAdd($0, $1) },
        copyMatching: { SecItemCopyMatching($0, $1) },
        update: { SecItemUpdate($0, $1) },
        delete: { SecItemDelete($0) }
    )
    #endif
}
