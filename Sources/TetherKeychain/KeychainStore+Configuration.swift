import Tether

#if canImport(Security)
import Security
#else
import SecItemShim
#endif

extension KeychainStore {
    /// How a ``KeychainStore`` names and protects its items.
    public struct Configuration: Sendable, Hashable {
        /// The `kSecAttrService` of connection records, such as `com.example.app.tether`. Key material uses
        /// the same value with `.keys` appended, so that ``KeychainStore/list()`` only sees connections.
        public var service: String
        /// The access group items are written to and read from, or `nil` for the app's default group (the first
        /// `keychain-access-groups` entry, else the application identifier). Name a group explicitly when an app
        /// and its extensions share credentials: adding a sharing entitlement later silently changes the default.
        public var accessGroup: String?
        /// When items can be read; ``Accessibility/afterFirstUnlock`` by default, so that background refresh
        /// works while the device is locked.
        public var accessibility: Accessibility
        /// Which kinds of item are synchronized through iCloud Keychain.
        public var synchronization: Synchronization
        /// Access groups earlier versions of the app wrote to. Reads find records there and move them to
        /// ``accessGroup``; deletes remove them there too.
        public var previousAccessGroups: [String]
        /// Whether the refresh lease is shared with the other processes that use the items;
        /// ``LeaseSharing/automatic`` by default, which shares it through the access group's app-group container
        /// when ``accessGroup`` is set.
        public var leaseSharing: LeaseSharing
        /// Whether each refresh token is kept behind the user's presence (Face ID, Touch ID or the passcode), in an
        /// item of its own; `nil` (the default) keeps it in the record. See ``RefreshTokenProtection``.
        public var refreshTokenProtection: RefreshTokenProtection?

        /// Creates a configuration.
        /// - Parameters:
        ///   - service: The `kSecAttrService` of connection records.
        ///   - accessGroup: The access group, or `nil` for the app's default group.
        ///   - accessibility: When items can be read.
        ///   - synchronization: Which kinds of item sync; connection records stay on the device by default.
        ///   - previousAccessGroups: Groups to migrate records from.
        ///   - leaseSharing: Where refreshes are coordinated; with an access group, across the processes of its
        ///     app group by default.
        ///   - refreshTokenProtection: Whether refresh tokens need the user's presence; `nil` for no.
        public init(
            service: String = "tether",
            accessGroup: String? = nil,
            accessibility: Accessibility = .afterFirstUnlock,
            synchronization: Synchronization = Synchronization(),
            previousAccessGroups: [String] = [],
            leaseSharing: LeaseSharing = .automatic,
            refreshTokenProtection: RefreshTokenProtection? = nil
        ) {
            self.service = service
            self.accessGroup = accessGroup
            self.accessibility = accessibility
            self.synchronization = synchronization
            self.previousAccessGroups = previousAccessGroups
            self.leaseSharing = leaseSharing
            self.refreshTokenProtection = refreshTokenProtection
        }

        /// Checks the rules the keychain would otherwise enforce with `errSecParam` at the first write.
        func validate() throws(CredentialStoreError) {
            guard !service.isEmpty else {
                throw CredentialStoreError.invalidConfiguration.with(message: "The keychain service must not be empty")
            }
            if let accessGroup, accessGroup.isEmpty {
                throw CredentialStoreError.invalidConfiguration.with(
                    message: "The keychain access group must be nil or a group name, not empty"
                )
            }
            // SecItem.h: synchronizable items may not use a …ThisDeviceOnly accessibility
            // (https://developer.apple.com/documentation/security/ksecattrsynchronizable).
            if accessibility.isThisDeviceOnly {
                for (kind, policy) in [
                    ("connections", synchronization.connections), ("keyMaterial", synchronization.keyMaterial),
                ]
                where policy.isSynchronizable {
                    throw CredentialStoreError.invalidConfiguration.with(
                        message: "Accessibility \(accessibility) never leaves the device, so synchronization.\(kind) "
                            + "must be .localOnly (or choose an accessibility without ThisDeviceOnly)"
                    )
                }
            }
            if let protection = refreshTokenProtection {
                try protection.validate(synchronization: synchronization)
            }
        }
    }

    /// Which kinds of item a ``KeychainStore`` asks iCloud Keychain to synchronize.
    ///
    /// Connection records stay on the device by default. They hold *rotating* refresh tokens: when two devices
    /// share one, the first to refresh invalidates it for the other, and a provider with reuse detection then
    /// revokes the whole grant, signing the user out everywhere. Long-lived key material (identity or end-to-end
    /// keys) syncs by default, so that a new device or a reinstall does not lose it.
    ///
    /// Synchronization is only ever *requested*: there is no public API that tells an app whether iCloud
    /// Keychain is on, so Tether never claims an item is backed up.
    public struct Synchronization: Sendable, Hashable {
        /// Whether connection records sync; ``SyncPolicy/localOnly`` by default.
        public var connections: SyncPolicy
        /// Whether key material sync; ``SyncPolicy/synchronizable`` by default.
        public var keyMaterial: SyncPolicy

        /// Creates a synchronization choice.
        /// - Parameters:
        ///   - connections: Whether connection records sync; opt in only for providers without rotating refresh
        ///     tokens or reuse detection.
        ///   - keyMaterial: Whether key material syncs.
        public init(connections: SyncPolicy = .localOnly, keyMaterial: SyncPolicy = .synchronizable) {
            self.connections = connections
            self.keyMaterial = keyMaterial
        }
    }

    /// Whether an item is written with `kSecAttrSynchronizable` set.
    public struct SyncPolicy: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: Hashable {
            case localOnly
            case synchronizable
        }

        private let kind: Kind

        /// The item stays on this device (`kSecAttrSynchronizable` false).
        public static let localOnly = SyncPolicy(kind: .localOnly)
        /// The item is offered to iCloud Keychain (`kSecAttrSynchronizable` true); whether it actually syncs
        /// depends on the user's settings, which no public API reveals.
        public static let synchronizable = SyncPolicy(kind: .synchronizable)

        /// Whether items are written as synchronizable.
        public var isSynchronizable: Bool { kind == .synchronizable }

        /// `localOnly` or `synchronizable`.
        public var description: String { isSynchronizable ? "synchronizable" : "localOnly" }
    }

    /// When the keychain lets an item be read: a `kSecAttrAccessible` value.
    public struct Accessibility: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: Hashable, CaseIterable {
            case whenUnlocked
            case afterFirstUnlock
            case whenUnlockedThisDeviceOnly
            case afterFirstUnlockThisDeviceOnly
            case whenPasscodeSetThisDeviceOnly
            case always
            case alwaysThisDeviceOnly
        }

        private let kind: Kind

        /// Readable only while the device is unlocked; the keychain's own default. Background refresh of a
        /// locked device fails with "storage unavailable".
        public static let whenUnlocked = Accessibility(kind: .whenUnlocked)
        /// Readable from the first unlock after boot until restart; Tether's default, for background refresh.
        public static let afterFirstUnlock = Accessibility(kind: .afterFirstUnlock)
        /// Like ``whenUnlocked``, and never restored to another device.
        public static let whenUnlockedThisDeviceOnly = Accessibility(kind: .whenUnlockedThisDeviceOnly)
        /// Like ``afterFirstUnlock``, and never restored to another device; suits device-bound refresh tokens.
        public static let afterFirstUnlockThisDeviceOnly = Accessibility(kind: .afterFirstUnlockThisDeviceOnly)
        /// Readable only while unlocked on a device with a passcode; removing the passcode deletes the item.
        public static let whenPasscodeSetThisDeviceOnly = Accessibility(kind: .whenPasscodeSetThisDeviceOnly)
        /// Always readable.
        @available(*, deprecated, message: "Deprecated by Apple (iOS 12, macOS 10.14); use afterFirstUnlock")
        public static let always = Accessibility(kind: .always)
        /// Always readable, and never restored to another device.
        @available(
            *,
            deprecated,
            message: "Deprecated by Apple (iOS 12, macOS 10.14); use afterFirstUnlockThisDeviceOnly"
        )
        public static let alwaysThisDeviceOnly = Accessibility(kind: .alwaysThisDeviceOnly)

        /// Whether items never leave this device (and so cannot be synchronizable).
        public var isThisDeviceOnly: Bool {
            switch kind {
            case .whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .whenPasscodeSetThisDeviceOnly,
                .alwaysThisDeviceOnly:
                true
            case .whenUnlocked, .afterFirstUnlock, .always:
                false
            }
        }

        /// The Security framework's value for `kSecAttrAccessible`.
        var secValue: CFString {
            switch kind {
            case .whenUnlocked: kSecAttrAccessibleWhenUnlocked
            case .afterFirstUnlock: kSecAttrAccessibleAfterFirstUnlock
            case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
            case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            case .whenPasscodeSetThisDeviceOnly: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
            // Apple deprecated these constants; reaching them through a protocol keeps the deprecation warning
            // (an error in this package) out of a build that only forwards the user's explicit choice.
            case .always: (LegacyAccessibility.self as any LegacyAccessibilityValues.Type).always
            case .alwaysThisDeviceOnly:
                (LegacyAccessibility.self as any LegacyAccessibilityValues.Type).alwaysThisDeviceOnly
            }
        }

        private init(kind: Kind) { self.kind = kind }

        /// The constant's name without its prefix, such as `afterFirstUnlock`.
        public var description: String {
            switch kind {
            case .whenUnlocked: "whenUnlocked"
            case .afterFirstUnlock: "afterFirstUnlock"
            case .whenUnlockedThisDeviceOnly: "whenUnlockedThisDeviceOnly"
            case .afterFirstUnlockThisDeviceOnly: "afterFirstUnlockThisDeviceOnly"
            case .whenPasscodeSetThisDeviceOnly: "whenPasscodeSetThisDeviceOnly"
            case .always: "always"
            case .alwaysThisDeviceOnly: "alwaysThisDeviceOnly"
            }
        }
    }
}

private protocol LegacyAccessibilityValues {
    static var always: CFString { get }
    static var alwaysThisDeviceOnly: CFString { get }
}

private enum LegacyAccessibility: LegacyAccessibilityValues {
    @available(*, deprecated)
    static var always: CFString { kSecAttrAccessibleAlways }
    @available(*, deprecated)
    static var alwaysThisDeviceOnly: CFString { kSecAttrAccessibleAlwaysThisDeviceOnly }
}
