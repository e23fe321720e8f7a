import Foundation
import LocalAuthenticationShim
public import SecItemShim

/// The raw accessibility values and the rules about them
/// (https://developer.apple.com/documentation/security/ksecattraccessible).
enum Protection {
    static let whenUnlocked = "ak"
    static let afterFirstUnlock = "ck"
    static let always = "dk"
    static let whenPasscodeSetThisDeviceOnly = "akpu"
    static let whenUnlockedThisDeviceOnly = "aku"
    static let afterFirstUnlockThisDeviceOnly = "cku"
    static let alwaysThisDeviceOnly = "dku"

    static let all: Set<String> = [
        whenUnlocked, afterFirstUnlock, always, whenPasscodeSetThisDeviceOnly, whenUnlockedThisDeviceOnly,
        afterFirstUnlockThisDeviceOnly, alwaysThisDeviceOnly,
    ]

    static let thisDeviceOnly: Set<String> = [
        whenPasscodeSetThisDeviceOnly, whenUnlockedThisDeviceOnly, afterFirstUnlockThisDeviceOnly,
        alwaysThisDeviceOnly,
    ]

    /// Rejects unknown values, and synchronizable items with a ThisDeviceOnly value: SecItem.h says a
    /// synchronizable item "may not be combined with any …ThisDeviceOnly accessibility value" (SecItem.h,
    /// [K-sync]), and the call fails with errSecParam.
    @discardableResult
    static func validate(_ value: String, synchronizable: Bool) throws -> String {
        guard all.contains(value) else { throw SecError(errSecParam) }
        if synchronizable && thisDeviceOnly.contains(value) { throw SecError(errSecParam) }
        return value
    }

    /// Whether items of a class can be used in a device state: WhenUnlocked classes while unlocked,
    /// AfterFirstUnlock classes after the first unlock since boot, Always classes always.
    static func isAvailable(_ value: String, in state: KeychainSimulator.DeviceState) -> Bool {
        switch value {
        case whenUnlocked, whenUnlockedThisDeviceOnly: state.isUnlocked
        case whenPasscodeSetThisDeviceOnly: state.isUnlocked && state.isPasscodeSet
        case afterFirstUnlock, afterFirstUnlockThisDeviceOnly: state.hasBeenUnlockedSinceBoot
        default: true
        }
    }
}

/// One item on the simulated device.
struct StoredItem {
    var service: String
    var account: String
    var accessGroup: String
    var accessibility: String
    var isSynchronizable: Bool
    var label: String?
    var generic: Data?
    var itemDescription: String?
    var comment: String?
    var data: Data?
    var sequence: UInt64
    /// The item's access control, when reading its data needs the user; its protection is ``accessibility``.
    var accessControl: SecAccessControl? = nil
    /// The device's biometric enrolment when the item was added, for `biometryCurrentSet`.
    var enrolmentAtCreation: UInt64 = 0

    struct PrimaryKey: Hashable {
        let service: String
        let account: String
        let accessGroup: String
        let isSynchronizable: Bool
    }

    /// What makes a generic password unique (https://developer.apple.com/documentation/security/errsecduplicateitem);
    /// every item here is of class genp.
    var primaryKey: PrimaryKey {
        PrimaryKey(service: service, account: account, accessGroup: accessGroup, isSynchronizable: isSynchronizable)
    }

    var snapshot: KeychainSimulator.Item {
        KeychainSimulator.Item(
            service: service,
            account: account,
            accessGroup: accessGroup,
            accessibility: accessibility,
            isSynchronizable: isSynchronizable,
            label: label,
            generic: generic,
            itemDescription: itemDescription,
            comment: comment,
            dataCount: data?.count ?? 0,
            accessControlFlags: accessControl?.flags
        )
    }

    /// The attribute dictionary Apple returns for kSecReturnAttributes (creation and modification dates aside),
    /// plus kSecValueData when data was asked for too.
    func attributes(includingData: Bool) -> [String: Any] {
        var result: [String: Any] = [
            kSecClass: kSecClassGenericPassword,
            kSecAttrService: service,
            kSecAttrAccount: account,
            kSecAttrAccessGroup: accessGroup,
            kSecAttrAccessible: accessibility,
            kSecAttrSynchronizable: isSynchronizable,
        ]
        if let label { result[kSecAttrLabel] = label }
        if let generic { result[kSecAttrGeneric] = generic }
        if let itemDescription { result[kSecAttrDescription] = itemDescription }
        if let comment { result[kSecAttrComment] = comment }
        if let accessControl { result[kSecAttrAccessControl] = accessControl }
        if includingData { result[kSecValueData] = data ?? Data() }
        return result
    }

    /// A single item's result: `Data` when only data was asked for, else the attribute dictionary.
    func result(data returnData: Bool, attributes returnAttributes: Bool) -> Any {
        if returnData && !returnAttributes { return data ?? Data() }
        return attributes(includingData: returnData)
    }
}

extension StoredItem {
    init(_ item: KeychainSimulator.Item, data: Data?, sequence: UInt64) {
        self.init(
            service: item.service,
            account: item.account,
            accessGroup: item.accessGroup,
            accessibility: item.accessibility,
            isSynchronizable: item.isSynchronizable,
            label: item.label,
            generic: item.generic,
            itemDescription: item.itemDescription,
            comment: item.comment,
            data: data,
            sequence: sequence
        )
    }
}

extension KeychainSimulator.Item {
    /// Describes an item for ``KeychainSimulator/insert(_:data:)``.
    /// - Parameters:
    ///   - service: The service attribute.
    ///   - account: The account attribute.
    ///   - accessGroup: The access group.
    ///   - accessibility: The accessibility attribute's raw value; WhenUnlocked by default.
    ///   - isSynchronizable: Whether the item is synchronizable.
    ///   - label: The label attribute.
    public init(
        service: String,
        account: String,
        accessGroup: String,
        accessibility: String = kSecAttrAccessibleWhenUnlocked,
        isSynchronizable: Bool = false,
        label: String? = nil
    ) {
        self.init(
            service: service,
            account: account,
            accessGroup: accessGroup,
            accessibility: accessibility,
            isSynchronizable: isSynchronizable,
            label: label,
            generic: nil,
            itemDescription: nil,
            comment: nil,
            dataCount: 0,
            accessControlFlags: nil
        )
    }
}

/// A SecItem dictionary, checked and parsed. Unknown keys and wrongly typed values are errSecParam, so that a
/// typo in a query fails a test instead of matching more than intended.
struct Request {
    enum Synchronizable: Equatable {
        case local
        case synced
        case any
    }

    var service: String?
    var account: String?
    var accessGroup: String?
    var accessibility: String?
    var synchronizable: Synchronizable?
    var label: String?
    var generic: Data?
    var itemDescription: String?
    var comment: String?
    var data: Data?
    var accessControl: SecAccessControl?
    var authenticationContext: LAContext?
    var returnData = false
    var returnAttributes = false
    var returnRef = false
    var matchesAll = false

    var returnsSomething: Bool { returnData || returnAttributes }

    static let attributeKeys: Set<String> = [
        kSecAttrService, kSecAttrAccount, kSecAttrAccessGroup, kSecAttrAccessible, kSecAttrSynchronizable,
        kSecAttrLabel, kSecAttrGeneric, kSecAttrDescription, kSecAttrComment,
    ]
    static let returnKeys: Set<String> = [kSecReturnData, kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef]
    static let addKeys = attributeKeys.union([
        kSecClass, kSecValueData, kSecUseDataProtectionKeychain, kSecAttrAccessControl, kSecUseAuthenticationContext,
    ]).union(returnKeys)
    static let matchKeys = attributeKeys.union([
        kSecClass, kSecUseDataProtectionKeychain, kSecUseAuthenticationContext,
    ])
    static let copyKeys = matchKeys.union(returnKeys).union([kSecMatchLimit])
    static let updateKeys = attributeKeys.union([kSecValueData])

    init(_ dictionary: [String: Any], allowed: Set<String>) throws {
        for key in dictionary.keys where !allowed.contains(key) { throw SecError(errSecParam) }
        // Every query and add names the class; attributes to update must not.
        if allowed.contains(kSecClass) {
            guard (dictionary[kSecClass] as? String) == kSecClassGenericPassword else { throw SecError(errSecParam) }
        }
        func stringValue(_ key: String) throws -> String? {
            guard let value = dictionary[key] else { return nil }
            guard let string = value as? String else { throw SecError(errSecParam) }
            return string
        }
        func dataValue(_ key: String) throws -> Data? {
            guard let value = dictionary[key] else { return nil }
            guard let data = value as? Data else { throw SecError(errSecParam) }
            return data
        }
        func flagValue(_ key: String) throws -> Bool {
            guard let value = dictionary[key] else { return false }
            guard let flag = value as? Bool else { throw SecError(errSecParam) }
            return flag
        }
        service = try stringValue(kSecAttrService)
        account = try stringValue(kSecAttrAccount)
        accessGroup = try stringValue(kSecAttrAccessGroup)
        accessibility = try stringValue(kSecAttrAccessible)
        if let accessibility, !Protection.all.contains(accessibility) { throw SecError(errSecParam) }
        label = try stringValue(kSecAttrLabel)
        generic = try dataValue(kSecAttrGeneric)
        itemDescription = try stringValue(kSecAttrDescription)
        comment = try stringValue(kSecAttrComment)
        data = try dataValue(kSecValueData)
        switch dictionary[kSecAttrAccessControl] {
        case nil: accessControl = nil
        case let value as SecAccessControl: accessControl = value
        default: throw SecError(errSecParam)
        }
        switch dictionary[kSecUseAuthenticationContext] {
        case nil: authenticationContext = nil
        case let value as LAContext: authenticationContext = value
        default: throw SecError(errSecParam)
        }
        // An item is protected either by a class (kSecAttrAccessible) or by an access control that names its class,
        // never both (https://developer.apple.com/documentation/security/ksecattraccesscontrol).
        if accessControl != nil && accessibility != nil { throw SecError(errSecParam) }
        switch dictionary[kSecAttrSynchronizable] {
        case nil: synchronizable = nil
        case let flag as Bool: synchronizable = flag ? .synced : .local
        case let value as String where value == kSecAttrSynchronizableAny: synchronizable = .any
        default: throw SecError(errSecParam)
        }
        returnData = try flagValue(kSecReturnData)
        returnAttributes = try flagValue(kSecReturnAttributes)
        returnRef = try flagValue(kSecReturnRef) || flagValue(kSecReturnPersistentRef)
        _ = try flagValue(kSecUseDataProtectionKeychain)
        switch try stringValue(kSecMatchLimit) {
        case nil, kSecMatchLimitOne: matchesAll = false
        case kSecMatchLimitAll: matchesAll = true
        default: throw SecError(errSecParam)
        }
    }
}
