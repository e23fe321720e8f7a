public import Foundation
public import SecItemShim

// The test-control API: what a test sets up and inspects around the SecItem calls (device state, items, calls,
// injected failures). The SecItem engine itself is in KeychainSimulator.swift.

extension KeychainSimulator {
    /// Whether the device is locked, and whether it has been unlocked since it started.
    public struct DeviceState: Sendable, Hashable {
        /// Whether the device has been unlocked at least once since boot (AfterFirstUnlock items are readable).
        public var hasBeenUnlockedSinceBoot: Bool
        /// Whether the device is unlocked now (WhenUnlocked items are readable).
        public var isUnlocked: Bool
        /// Whether the device has a passcode (WhenPasscodeSetThisDeviceOnly items can exist).
        public var isPasscodeSet: Bool

        /// Whether the device has not been unlocked since it started: only `Always` items are readable.
        public var isLockedSinceBoot: Bool { !hasBeenUnlockedSinceBoot }

        /// Creates a device state; an unlocked device has always been unlocked since boot.
        /// - Parameters:
        ///   - hasBeenUnlockedSinceBoot: Whether the first unlock happened.
        ///   - isUnlocked: Whether the device is unlocked now.
        ///   - isPasscodeSet: Whether the device has a passcode.
        public init(hasBeenUnlockedSinceBoot: Bool, isUnlocked: Bool, isPasscodeSet: Bool = true) {
            self.hasBeenUnlockedSinceBoot = hasBeenUnlockedSinceBoot || isUnlocked
            self.isUnlocked = isUnlocked
            self.isPasscodeSet = isPasscodeSet
        }

        /// Unlocked, with a passcode.
        public static let unlocked = DeviceState(hasBeenUnlockedSinceBoot: true, isUnlocked: true)
        /// Locked after the first unlock since boot (the usual background state).
        public static let lockedAfterFirstUnlock = DeviceState(hasBeenUnlockedSinceBoot: true, isUnlocked: false)
        /// Locked and not unlocked since boot (e.g. an app prewarmed or woken before first unlock).
        public static let lockedSinceBoot = DeviceState(hasBeenUnlockedSinceBoot: false, isUnlocked: false)
    }

    /// An item's attributes as the simulator holds them, without its data.
    public struct Item: Sendable, Hashable {
        /// The service attribute.
        public var service: String
        /// The account attribute.
        public var account: String
        /// The access group the item belongs to (every item has exactly one).
        public var accessGroup: String
        /// The accessibility attribute's raw value, such as `kSecAttrAccessibleAfterFirstUnlock`.
        public var accessibility: String
        /// Whether the item is synchronizable (iCloud Keychain).
        public var isSynchronizable: Bool
        /// The label attribute, if any.
        public var label: String?
        /// The generic attribute, if any.
        public var generic: Data?
        /// The description attribute, if any.
        public var itemDescription: String?
        /// The comment attribute, if any.
        public var comment: String?
        /// The number of bytes of secret data (the data itself is not exposed here).
        public var dataCount: Int
        /// The flags of the item's access control, when reading its data needs the user; `nil` otherwise.
        public var accessControlFlags: SecAccessControlCreateFlags?
    }

    /// What the simulated user does when the keychain asks them to authenticate.
    public enum UserResponse: Sendable, Hashable {
        /// Looks at the device or touches the sensor (or types the passcode): the read succeeds.
        case authenticate
        /// Taps Cancel: the read fails with `errSecUserCanceled`.
        case cancel
        /// Fails the authentication (an unknown face, a wrong finger, every attempt): `errSecAuthFailed`.
        case fail
    }

    // MARK: Device state

    /// The device's lock state.
    public var deviceState: DeviceState {
        get { device.withLock { $0.state } }
    }

    /// Locks the device: WhenUnlocked items become unreadable; AfterFirstUnlock items stay readable.
    public func lock() {
        device.withLock { $0.state.isUnlocked = false }
    }

    /// Unlocks the device (which counts as the first unlock since boot).
    public func unlock() {
        device.withLock { device in
            device.state.isUnlocked = true
            device.state.hasBeenUnlockedSinceBoot = true
        }
    }

    /// Restarts the device: locked, and not unlocked since boot.
    public func restart() {
        device.withLock { device in
            device.state.isUnlocked = false
            device.state.hasBeenUnlockedSinceBoot = false
        }
    }

    /// Sets or removes the passcode; removing it deletes every WhenPasscodeSetThisDeviceOnly item
    /// (Apple's `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly` documentation).
    /// - Parameter isSet: Whether the device has a passcode.
    public func setPasscode(_ isSet: Bool) {
        device.withLock { device in
            device.state.isPasscodeSet = isSet
            if !isSet {
                device.items.removeAll { $0.accessibility == Protection.whenPasscodeSetThisDeviceOnly }
                device.authenticatedContexts.removeAll()
            }
        }
    }

    // MARK: The user and biometry

    /// What the user does at the next prompts; ``UserResponse/authenticate`` at first.
    public var userResponse: UserResponse {
        get { device.withLock { $0.userResponse } }
        set { device.withLock { $0.userResponse = newValue } }
    }

    /// The reasons (the `LAContext.localizedReason`) of every prompt the user saw, in order.
    public var prompts: [String] {
        device.withLock { $0.prompts }
    }

    /// How many times the user was asked to authenticate.
    public var promptCount: Int {
        device.withLock { $0.prompts.count }
    }

    /// Changes the Face ID or Touch ID enrolment (a face re-enrolled, a finger added or removed): every
    /// `biometryCurrentSet` item is invalidated; `biometryAny` and `userPresence` items stay readable
    /// (https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/biometrycurrentset). Contexts
    /// authenticated before no longer count.
    public func changeBiometricEnrolment() {
        device.withLock { device in
            device.enrolment += 1
            device.authenticatedContexts.removeAll()
        }
    }

    // MARK: Test hooks

    /// Every item on the device, of every app, in creation order, without data.
    public var items: [Item] {
        device.withLock { $0.items.map(\.snapshot) }
    }

    /// The number of items on the device.
    public var itemCount: Int {
        device.withLock { $0.items.count }
    }

    /// The SecItem calls this app made, in order.
    public var calls: [Operation] {
        hooks.withLock { $0.calls }
    }

    /// The number of SecItem calls this app made.
    public var callCount: Int {
        hooks.withLock { $0.calls.count }
    }

    /// Makes the next call (or the next call of one kind) return `status` without doing anything.
    /// - Parameters:
    ///   - status: The status to return, such as `errSecInteractionNotAllowed`.
    ///   - operation: Which call fails; `nil` for whichever comes next.
    public func failNextCall(with status: OSStatus, on operation: Operation? = nil) {
        hooks.withLock { $0.injectedFailures.append((operation, status)) }
    }

    /// Runs `action` just before the next call of a kind, for races such as another process adding an item
    /// between a read and a write.
    /// - Parameters:
    ///   - operation: The call to precede.
    ///   - action: What to do; it may use the simulator but not the SecItem functions.
    public func beforeNextCall(to operation: Operation, run action: @escaping @Sendable () -> Void) {
        hooks.withLock { $0.beforeActions.append((operation, action)) }
    }

    /// Puts an item on the device directly, bypassing entitlement and state checks, for test fixtures such as
    /// an item another device synchronized or an item written by an older version of the app.
    /// - Parameters:
    ///   - item: The attributes; ``Item/dataCount`` is ignored.
    ///   - data: The secret data.
    public func insert(_ item: Item, data: Data?) {
        device.withLock { device in
            device.nextSequence += 1
            device.items.append(StoredItem(item, data: data, sequence: device.nextSequence))
        }
    }
}
