package import Foundation
import Tether

#if canImport(Security)
import Security
#else
import SecItemShim
#endif

/// What a ``KeychainStore`` asks the system besides the keychain: where an app group's container is, which app
/// groups the program is entitled to, and a guard against suspension while it holds a lease there.
///
/// ``current`` holds the system's answers; tests pass their own to `KeychainStore.init(secItems:…)`.
package struct KeychainPlatform: Sendable {
    /// `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`: the container of an app group, or `nil`
    /// when the program does not belong to it. On macOS it returns a URL for any identifier, entitled or not.
    package var containerURL: @Sendable (String) -> URL?
    /// The app groups of the program's `com.apple.security.application-groups` entitlement, or `nil` where
    /// ``containerURL`` already answers `nil` for a group the program is not in (iOS and the other mobile
    /// systems).
    package var entitledAppGroups: @Sendable () -> [String]?
    /// `ProcessInfo.performExpiringActivity(withReason:using:)`: runs the block with `false` while the system
    /// lets the process run, and again with `true` when it is about to suspend it.
    package var performExpiringActivity: @Sendable (String, @escaping @Sendable (Bool) -> Void) -> Void

    /// Collects the three answers.
    package init(
        containerURL: @escaping @Sendable (String) -> URL?,
        entitledAppGroups: @escaping @Sendable () -> [String]?,
        performExpiringActivity: @escaping @Sendable (String, @escaping @Sendable (Bool) -> Void) -> Void
    ) {
        self.containerURL = containerURL
        self.entitledAppGroups = entitledAppGroups
        self.performExpiringActivity = performExpiringActivity
    }

    /// The system's answers.
    package static let current = KeychainPlatform(
        containerURL: { identifier in
            #if canImport(Darwin)
            FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: identifier)
            #else
            // Only Apple platforms have app groups; elsewhere a shared lease needs its folder given.
            nil
            #endif
        },
        entitledAppGroups: {
            #if os(macOS) || !canImport(Security)
            entitledAppGroups(of: SecTaskCreateFromSelf(nil))
            #else
            nil
            #endif
        },
        performExpiringActivity: { reason, block in
            ProcessInfo.processInfo.performExpiringActivity(withReason: reason, using: block)
        }
    )

    /// The entitlement that lists a macOS program's app groups.
    static let appGroupsEntitlement = "com.apple.security.application-groups"

    #if os(macOS) || !canImport(Security)
    /// The app groups in `task`'s entitlements: none when the task is unknown or has no such entitlement.
    @available(macOS 10.8, *)
    static func entitledAppGroups(of task: SecTask?) -> [String] {
        guard let task else { return [] }
        let value = SecTaskCopyValueForEntitlement(task, appGroupsEntitlement as CFString, nil)
        return value as? [String] ?? []
    }
    #endif

    /// The container of the app group `identifier`, when the program belongs to it.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` naming the group and what is missing.
    func appGroupContainer(_ identifier: String) throws(CredentialStoreError) -> URL {
        if let entitled = entitledAppGroups(), !entitled.contains(identifier) {
            // macOS answers every identifier with a URL; only the entitlement tells a group the program is in.
            throw CredentialStoreError.invalidConfiguration.with(
                message: "The access group \(identifier) is shared with other processes, but \(identifier) is not "
                    + "in this program's \(Self.appGroupsEntitlement) entitlement, so its container cannot hold "
                    + "their refresh lease; add the app group to the entitlement, or set leaseSharing to "
                    + ".directory(URL) (a folder every process sharing the items can write) or to .inProcess "
                    + "(only this process uses them)"
            )
        }
        guard let container = containerURL(identifier) else {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "The access group \(identifier) is shared with other processes, but it has no "
                    + "app-group container here for their refresh lease; set leaseSharing to "
                    + ".directory(URL) (a folder every process sharing the items can write) or to "
                    + ".inProcess (only this process uses them)"
            )
        }
        return container
    }
}

#if !canImport(Darwin)
extension ProcessInfo {
    /// Foundation's `performExpiringActivity(withReason:using:)`, which this platform's Foundation lacks. Nothing
    /// suspends a process here, so the block runs once, with `false`, on a thread of its own.
    ///
    /// https://developer.apple.com/documentation/foundation/processinfo/performexpiringactivity(withreason:using:)
    /// - Parameters:
    ///   - reason: What the activity is for (used by the system for debugging).
    ///   - block: The activity; it lasts until the block returns.
    func performExpiringActivity(withReason reason: String, using block: @escaping @Sendable (Bool) -> Void) {
        Thread.detachNewThread { block(false) }
    }
}
#endif
