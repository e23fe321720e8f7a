import Foundation
import LocalAuthenticationShim
import SecItemShim

/// An in-memory keychain of generic passwords that follows Apple's SecItem rules, for platforms without the
/// Security framework and for tests.
///
/// The free functions `SecItemAdd`, `SecItemCopyMatching`, `SecItemUpdate` and `SecItemDelete` route to
/// ``current``, a task-local value, so that tests running in parallel each get their own keychain:
///
/// ```swift
/// let simulator = KeychainSimulator(accessGroups: ["TEAMID.com.example.shared"])
/// try await KeychainSimulator.$current.withValue(simulator) {
///     try await store.write(connection)
/// }
/// ```
///
/// A simulator is one app (its entitlements) on one device (the items and the lock state). Use
/// ``sharingDevice(accessGroups:applicationIdentifier:applicationGroups:)`` for a second app on the same device.
/// The rules it encodes come from Apple's Security framework documentation
/// (https://developer.apple.com/documentation/security/keychain-services) and `SecItem.h`; each rule cites its page.
public final class KeychainSimulator: Sendable {
    /// The simulator the SecItem functions use in the current task; a process-wide instance unless a test binds
    /// its own with `KeychainSimulator.$current.withValue(_:operation:)`.
    @TaskLocal public static var current = KeychainSimulator()

    /// One of the four SecItem functions.
    public enum Operation: Sendable, Hashable, CustomStringConvertible {
        /// `SecItemAdd`.
        case add
        /// `SecItemCopyMatching`.
        case copyMatching
        /// `SecItemUpdate`.
        case update
        /// `SecItemDelete`.
        case delete

        /// The function's name.
        public var description: String {
            switch self {
            case .add: "SecItemAdd"
            case .copyMatching: "SecItemCopyMatching"
            case .update: "SecItemUpdate"
            case .delete: "SecItemDelete"
            }
        }
    }

    /// The shared part: one device's items and lock state.
    final class Device: @unchecked Sendable {
        let lock = NSLock()
        var items: [StoredItem] = []
        var nextSequence: UInt64 = 0
        var state: DeviceState
        /// Counts biometric enrolment changes; a `biometryCurrentSet` item added under another value is invalid.
        var enrolment: UInt64 = 0
        var userResponse = UserResponse.authenticate
        var prompts: [String] = []
        /// Contexts the user authenticated; reads that pass one of them do not prompt again.
        var authenticatedContexts: [LAContext] = []

        init(state: DeviceState) { self.state = state }

        func withLock<T>(_ body: (Device) throws -> T) rethrows -> T {
            lock.lock()
            defer { lock.unlock() }
            return try body(self)
        }
    }

    /// The per-app part: calls seen and failures injected.
    final class Hooks: @unchecked Sendable {
        let lock = NSLock()
        var calls: [Operation] = []
        var injectedFailures: [(operation: Operation?, status: OSStatus)] = []
        var beforeActions: [(operation: Operation, action: @Sendable () -> Void)] = []

        func withLock<T>(_ body: (Hooks) throws -> T) rethrows -> T {
            lock.lock()
            defer { lock.unlock() }
            return try body(self)
        }
    }

    let device: Device
    let hooks = Hooks()

    /// The app's `keychain-access-groups` entitlement, in order.
    public let accessGroups: [String]
    /// The app's application identifier, `TEAMID.bundle.id`.
    public let applicationIdentifier: String
    /// The app's `com.apple.security.application-groups` entitlement.
    public let applicationGroups: [String]

    /// Creates an empty keychain on a new device, for one app.
    /// - Parameters:
    ///   - accessGroups: The `keychain-access-groups` entitlement, in order; may be empty.
    ///   - applicationIdentifier: The app's identifier, `TEAMID.bundle.id`.
    ///   - applicationGroups: The app-group entitlement; these groups are usable but never the default.
    ///   - deviceState: Whether the device is locked.
    public convenience init(
        accessGroups: [String] = [],
        applicationIdentifier: String = "TEAMID.com.example.app",
        applicationGroups: [String] = [],
        deviceState: DeviceState = .unlocked
    ) {
        self.init(
            device: Device(state: deviceState),
            accessGroups: accessGroups,
            applicationIdentifier: applicationIdentifier,
            applicationGroups: applicationGroups
        )
    }

    private init(device: Device, accessGroups: [String], applicationIdentifier: String, applicationGroups: [String]) {
        self.device = device
        self.accessGroups = accessGroups
        self.applicationIdentifier = applicationIdentifier
        self.applicationGroups = applicationGroups
    }

    /// Another app on the same device: same items and lock state, its own entitlements, calls and hooks.
    /// - Parameters:
    ///   - accessGroups: The other app's `keychain-access-groups` entitlement.
    ///   - applicationIdentifier: The other app's identifier.
    ///   - applicationGroups: The other app's app-group entitlement.
    /// - Returns: A simulator for the other app.
    public func sharingDevice(
        accessGroups: [String] = [],
        applicationIdentifier: String,
        applicationGroups: [String] = []
    ) -> KeychainSimulator {
        KeychainSimulator(
            device: device,
            accessGroups: accessGroups,
            applicationIdentifier: applicationIdentifier,
            applicationGroups: applicationGroups
        )
    }

    // MARK: Entitlements

    /// The access group an item lands in when a query names none: the first `keychain-access-groups` entry if there is
    /// one, otherwise the application identifier
    /// (https://developer.apple.com/documentation/security/sharing-access-to-keychain-items-among-a-collection-of-apps).
    /// App groups never are.
    public var defaultAccessGroup: String { accessGroups.first ?? applicationIdentifier }

    /// Every group this app may use, in Apple's order: `keychain-access-groups`, the application identifier, then
    /// the app groups (https://developer.apple.com/documentation/security/ksecattraccessgroup).
    public var entitledAccessGroups: [String] { accessGroups + [applicationIdentifier] + applicationGroups }

    // MARK: SecItem entry

    /// Records the call, applies hooks, and runs `body`, turning a thrown status into a result.
    func perform(_ operation: Operation, _ body: (KeychainSimulator) throws -> Any?) -> (OSStatus, Any?) {
        let (failure, actions) = hooks.withLock { hooks -> (OSStatus?, [@Sendable () -> Void]) in
            hooks.calls.append(operation)
            var actions: [@Sendable () -> Void] = []
            while let index = hooks.beforeActions.firstIndex(where: { $0.operation == operation }) {
                actions.append(hooks.beforeActions.remove(at: index).action)
            }
            if let index = hooks.injectedFailures.firstIndex(where: { $0.operation == nil || $0.operation == operation }
            ) {
                return (hooks.injectedFailures.remove(at: index).status, actions)
            }
            return (nil, actions)
        }
        for action in actions { action() }
        if let failure { return (failure, nil) }
        do {
            return (errSecSuccess, try body(self))
        } catch let error as SecError {
            return (error.status, nil)
        } catch {
            return (errSecParam, nil)
        }
    }

    // MARK: Operations

    func add(_ attributes: [String: Any]) throws -> Any? {
        let request = try Request(attributes, allowed: Request.addKeys)
        let group = try resolveGroup(request.accessGroup)
        let synchronizable: Bool
        switch request.synchronizable {
        case .none, .some(.local): synchronizable = false
        case .some(.synced): synchronizable = true
        case .some(.any): throw SecError(errSecParam)  // "Any" is a query value, not an attribute value.
        }
        // Default accessibility when none is given: WhenUnlocked
        // (https://developer.apple.com/documentation/security/ksecattraccessible); an access control names its own.
        let accessibility = request.accessControl?.protection ?? request.accessibility ?? Protection.whenUnlocked
        try Protection.validate(accessibility, synchronizable: synchronizable)
        if request.accessControl != nil, synchronizable {
            // Items that need the user's presence are bound to this device's passcode and biometry, so they cannot
            // sync; the ThisDeviceOnly class an access control needs already rules it out above.
            throw SecError(errSecParam)
        }

        return try device.withLock { device throws -> Any? in
            if request.accessControl != nil, !device.state.isPasscodeSet {
                // Every user-presence constraint (biometry or passcode) needs a passcode; Apple does not document the
                // status, and reports show errSecAuthFailed, as for the class below.
                throw SecError(errSecAuthFailed)
            }
            if accessibility == Protection.whenPasscodeSetThisDeviceOnly, !device.state.isPasscodeSet {
                // "No items can be stored in this class on devices without a passcode"
                // (https://developer.apple.com/documentation/security/ksecattraccessiblewhenpasscodesetthisdeviceonly).
                // Apple does not document the status; developer reports show errSecAuthFailed, which the simulator
                // returns.
                throw SecError(errSecAuthFailed)
            }
            // Writing needs the protection class key, like reading
            // (https://developer.apple.com/documentation/security/ksecattraccessiblewhenunlocked: items in the
            // background fail with errSecInteractionNotAllowed).
            guard Protection.isAvailable(accessibility, in: device.state) else {
                throw SecError(errSecInteractionNotAllowed)
            }
            let item = StoredItem(
                service: request.service ?? "",
                account: request.account ?? "",
                accessGroup: group,
                accessibility: accessibility,
                isSynchronizable: synchronizable,
                label: request.label,
                generic: request.generic,
                itemDescription: request.itemDescription,
                comment: request.comment,
                data: request.data,
                sequence: device.nextSequence + 1,
                accessControl: request.accessControl,
                enrolmentAtCreation: device.enrolment
            )
            // Uniqueness: class + service + account + access group + synchronizable
            // (https://developer.apple.com/documentation/security/errsecduplicateitem).
            guard !device.items.contains(where: { $0.primaryKey == item.primaryKey }) else {
                throw SecError(errSecDuplicateItem)
            }
            device.nextSequence += 1
            device.items.append(item)
            return request.returnsSomething
                ? item.result(data: request.returnData, attributes: request.returnAttributes) : nil
        }
    }

    func copyMatching(_ query: [String: Any]) throws -> Any? {
        let request = try Request(query, allowed: Request.copyKeys)
        if request.returnRef { throw SecError(errSecParam) }  // References are not simulated.
        // Generic passwords return data only one item at a time: kSecReturnData with kSecMatchLimitAll is
        // errSecParam.
        if request.returnData && request.matchesAll { throw SecError(errSecParam) }
        return try device.withLock { device throws -> Any? in
            var matches = try self.matchingIndices(request, in: device)
            if request.returnData {
                // A biometryCurrentSet item whose enrolment changed cannot be decrypted any more: the keychain answers
                // as if it were not there (Apple documents only that it "is invalidated"; developers report
                // errSecItemNotFound). The item itself stays until it is deleted.
                matches.removeAll { index in
                    let item = device.items[index]
                    return item.accessControl?.flags.contains(.biometryCurrentSet) == true
                        && item.enrolmentAtCreation != device.enrolment
                }
                guard !matches.isEmpty else { throw SecError(errSecItemNotFound) }
                try Self.authenticate(device.items[matches[0]], context: request.authenticationContext, on: device)
            }
            let items = (request.matchesAll ? matches : Array(matches.prefix(1))).map { device.items[$0] }
            guard request.returnsSomething else { return nil }
            if request.matchesAll {
                return items.map { $0.attributes(includingData: false) }
            }
            return items[0].result(data: request.returnData, attributes: request.returnAttributes)
        }
    }

    /// Asks the user to authenticate for an item whose data needs it, unless `context` was authenticated before
    /// (https://developer.apple.com/documentation/security/ksecuseauthenticationcontext).
    private static func authenticate(_ item: StoredItem, context: LAContext?, on device: Device) throws {
        guard item.accessControl != nil else { return }
        if let context, device.authenticatedContexts.contains(where: { $0 === context }) { return }
        // A context that may not show UI fails instead of prompting
        // (https://developer.apple.com/documentation/localauthentication/lacontext/interactionnotallowed).
        if context?.interactionNotAllowed == true { throw SecError(errSecInteractionNotAllowed) }
        device.prompts.append(context?.localizedReason ?? "")
        switch device.userResponse {
        case .authenticate:
            if let context { device.authenticatedContexts.append(context) }
        case .cancel:
            throw SecError(errSecUserCanceled)
        case .fail:
            throw SecError(errSecAuthFailed)
        }
    }

    func update(_ query: [String: Any], with changes: [String: Any]) throws -> Any? {
        let request = try Request(query, allowed: Request.matchKeys)
        let change = try Request(changes, allowed: Request.updateKeys)
        if case .some(.any) = change.synchronizable { throw SecError(errSecParam) }
        let newGroup = try change.accessGroup.map { group in try self.resolveGroup(group) }
        if let accessibility = change.accessibility {
            _ = try Protection.validate(accessibility, synchronizable: false)
        }

        try device.withLock { device throws in
            let matches = try self.matchingIndices(request, in: device)
            var updated = device.items
            for index in matches {
                var item = updated[index]
                if change.data != nil {
                    // Replacing the secret of an item that needs the user needs the user too.
                    try Self.authenticate(item, context: request.authenticationContext, on: device)
                }
                if let service = change.service { item.service = service }
                if let account = change.account { item.account = account }
                if let newGroup { item.accessGroup = newGroup }
                if let accessibility = change.accessibility { item.accessibility = accessibility }
                if let synchronizable = change.synchronizable { item.isSynchronizable = synchronizable == .synced }
                if let label = change.label { item.label = label }
                if let generic = change.generic { item.generic = generic }
                if let itemDescription = change.itemDescription { item.itemDescription = itemDescription }
                if let comment = change.comment { item.comment = comment }
                if let data = change.data { item.data = data }
                // The same rules as for adding: sync + ThisDeviceOnly is errSecParam, the new class must be
                // writable now.
                try Protection.validate(item.accessibility, synchronizable: item.isSynchronizable)
                guard Protection.isAvailable(item.accessibility, in: device.state) else {
                    throw SecError(errSecInteractionNotAllowed)
                }
                updated[index] = item
            }
            // A change of a primary-key attribute must not collide with another item.
            let keys = updated.map(\.primaryKey)
            guard Set(keys).count == keys.count else { throw SecError(errSecDuplicateItem) }
            device.items = updated
        }
        return nil
    }

    func delete(_ query: [String: Any]) throws -> Any? {
        let request = try Request(query, allowed: Request.matchKeys)
        try device.withLock { device throws in
            let matches = Set(try self.matchingIndices(request, in: device))
            device.items = device.items.enumerated().filter { !matches.contains($0.offset) }.map(\.element)
        }
        return nil
    }

    // MARK: Matching

    /// The access group an item is written to: the named one if the app is entitled to it, else the default.
    private func resolveGroup(_ requested: String?) throws -> String {
        guard let requested else { return defaultAccessGroup }
        guard entitledAccessGroups.contains(requested) else { throw SecError(errSecMissingEntitlement) }
        return requested
    }

    /// Indices of the items a query matches, in creation order; throws errSecItemNotFound when none does and
    /// errSecInteractionNotAllowed when a match is protected by a class that is locked now.
    private func matchingIndices(_ request: Request, in device: Device) throws -> [Int] {
        // A query without a group searches every group the app is entitled to; a named group must be entitled.
        let groups: Set<String>
        if let group = request.accessGroup {
            guard entitledAccessGroups.contains(group) else { throw SecError(errSecMissingEntitlement) }
            groups = [group]
        } else {
            groups = Set(entitledAccessGroups)
        }
        let matches = device.items.indices.filter { index in
            let item = device.items[index]
            guard groups.contains(item.accessGroup) else { return false }
            if let service = request.service, item.service != service { return false }
            if let account = request.account, item.account != account { return false }
            // Without kSecAttrSynchronizable only local items match; `true` only synced; Any both
            // (https://developer.apple.com/documentation/security/ksecattrsynchronizable, SecItem.h).
            switch request.synchronizable ?? .local {
            case .local: if item.isSynchronizable { return false }
            case .synced: if !item.isSynchronizable { return false }
            case .any: break
            }
            // kSecAttrAccessible in a query is a filter like any other attribute.
            if let accessibility = request.accessibility, item.accessibility != accessibility { return false }
            if let label = request.label, item.label != label { return false }
            if let generic = request.generic, item.generic != generic { return false }
            if let itemDescription = request.itemDescription, item.itemDescription != itemDescription { return false }
            if let comment = request.comment, item.comment != comment { return false }
            return true
        }
        guard !matches.isEmpty else { throw SecError(errSecItemNotFound) }
        // Attributes are encrypted with the item's class key too, so a locked class cannot be searched, read, changed
        // or deleted (typically errSecInteractionNotAllowed,
        // https://developer.apple.com/documentation/security/errsecinteractionnotallowed).
        for index in matches where !Protection.isAvailable(device.items[index].accessibility, in: device.state) {
            throw SecError(errSecInteractionNotAllowed)
        }
        return matches
    }
}

/// A failed SecItem call's status.
struct SecError: Error {
    let status: OSStatus
    init(_ status: OSStatus) { self.status = status }
}
