public import Foundation
import Tether

extension KeychainStore {
    /// Where a ``KeychainStore`` coordinates refreshes: within this process, or across the processes that share
    /// its items (an app and its extensions), through lock files in a folder they can all write.
    ///
    /// The keychain itself has no lock. Without a shared lease an app and its extension can both refresh with
    /// the same refresh token, and a provider with reuse detection then revokes the grant.
    public struct LeaseSharing: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: Hashable {
            case automatic
            case inProcess
            case directory(URL)
        }

        private let kind: Kind

        /// The default: with an ``Configuration/accessGroup``, lock files in the container of the app group of
        /// that name (`FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`, folder
        /// `Library/Application Support/Tether/Leases`); without one, ``inProcess``. When the access group has
        /// no app-group container (a keychain group that is not an app group, a platform without app groups, or on
        /// macOS a group missing from the `com.apple.security.application-groups` entitlement: there
        /// `containerURL` answers every identifier), creating the store throws
        /// ``CredentialStoreError/invalidConfiguration``: choose ``directory(_:)`` or ``inProcess`` then.
        public static let automatic = LeaseSharing(kind: .automatic)

        /// Only the tasks of this process are coordinated; for items no other process uses.
        public static let inProcess = LeaseSharing(kind: .inProcess)

        /// Lock files in `url` (created when missing), a folder every process that shares the items can write,
        /// such as a subfolder of an app group's container. Each lease is an `flock` on its own file, which the
        /// system releases when its holder's process ends, even when it crashes.
        /// - Parameter url: The folder.
        /// - Returns: The choice.
        public static func directory(_ url: URL) -> LeaseSharing { LeaseSharing(kind: .directory(url)) }

        private init(kind: Kind) { self.kind = kind }

        /// `automatic`, `inProcess` or `directory(<path>)`.
        public var description: String {
            switch kind {
            case .automatic: "automatic"
            case .inProcess: "inProcess"
            case .directory(let url): "directory(\(url.path))"
            }
        }

        /// The folder of the lock files, or `nil` for in-process leases.
        /// - Throws: ``CredentialStoreError/invalidConfiguration`` when ``automatic`` finds no app-group container
        ///   for the access group, or (on macOS, where every identifier has one) the group is not in the
        ///   program's entitlements.
        func lockDirectory(accessGroup: String?, platform: KeychainPlatform) throws(CredentialStoreError) -> URL? {
            switch kind {
            case .inProcess:
                return nil
            case .directory(let url):
                return url
            case .automatic:
                guard let accessGroup else { return nil }
                return try platform.appGroupContainer(accessGroup)
                    .appendingPathComponent("Library/Application Support/Tether/Leases", isDirectory: true)
            }
        }
    }
}
