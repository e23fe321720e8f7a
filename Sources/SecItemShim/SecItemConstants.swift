// The names Apple's Security framework exports for generic-password keychain items, so that code written against
// the SecItem API compiles unchanged on platforms without Security. The string values are Apple's raw attribute
// keys (as seen in the dictionaries SecItemCopyMatching returns), so logged queries look the same on both.

/// A result code of a Security-framework call (`Int32`, like Apple's `OSStatus`).
public typealias OSStatus = Int32

/// A Core Foundation string; on this platform, a Swift `String`.
public typealias CFString = String

/// A Core Foundation dictionary; on this platform, a Swift dictionary keyed by attribute name.
public typealias CFDictionary = [String: Any]

/// Any Core Foundation object; on this platform, any Swift value.
public typealias CFTypeRef = Any

// MARK: - Status codes (Apple's values, from SecBase.h)

/// No error.
public let errSecSuccess: OSStatus = 0
/// One or more parameters were not valid, or contradict each other (e.g. synchronizable + ThisDeviceOnly).
public let errSecParam: OSStatus = -50
/// The user name or passphrase was not correct (also: an item that needs a passcode on a device without one, and
/// an authentication the user failed).
///
/// https://developer.apple.com/documentation/security/errsecauthfailed
public let errSecAuthFailed: OSStatus = -25293
/// An item with the same primary key already exists.
public let errSecDuplicateItem: OSStatus = -25299
/// No item matched the query.
public let errSecItemNotFound: OSStatus = -25300
/// User interaction is not allowed: the item's protection class is not available (device locked), or the item
/// needs the user to authenticate and the authentication context does not allow it.
///
/// https://developer.apple.com/documentation/security/errsecinteractionnotallowed
public let errSecInteractionNotAllowed: OSStatus = -25308
/// A required entitlement is missing (e.g. the access group is not in `keychain-access-groups`).
public let errSecMissingEntitlement: OSStatus = -34018

// MARK: - Item class

/// The item-class key.
public let kSecClass: CFString = "class"
/// The generic-password item class, the only class the simulator supports.
public let kSecClassGenericPassword: CFString = "genp"

// MARK: - Attributes

/// The service attribute (part of a generic password's primary key).
public let kSecAttrService: CFString = "svce"
/// The account attribute (part of a generic password's primary key).
public let kSecAttrAccount: CFString = "acct"
/// The access-group attribute (part of the primary key).
public let kSecAttrAccessGroup: CFString = "agrp"
/// The accessibility (data-protection class) attribute.
public let kSecAttrAccessible: CFString = "pdmn"
/// The synchronizable (iCloud Keychain) attribute (part of the primary key).
public let kSecAttrSynchronizable: CFString = "sync"
/// A query value for ``kSecAttrSynchronizable`` that matches synchronized and local items.
public let kSecAttrSynchronizableAny: CFString = "syna"
/// The user-visible label attribute (not part of the primary key).
public let kSecAttrLabel: CFString = "labl"
/// The application-defined generic attribute (`Data`, not part of the primary key).
public let kSecAttrGeneric: CFString = "gena"
/// The description attribute.
public let kSecAttrDescription: CFString = "desc"
/// The comment attribute.
public let kSecAttrComment: CFString = "icmt"
/// The creation date attribute (read-only).
public let kSecAttrCreationDate: CFString = "cdat"
/// The modification date attribute (read-only).
public let kSecAttrModificationDate: CFString = "mdat"

// MARK: - Accessibility values (https://developer.apple.com/documentation/security/ksecattraccessible)

/// Readable only while the device is unlocked; the default when none is given.
public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
/// Readable after the first unlock since boot, until restart.
public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
/// Always readable.
@available(*, deprecated, message: "Use an accessibility level that is tied to unlocking the device")
public let kSecAttrAccessibleAlways: CFString = "dk"
/// Readable only while unlocked, and only when a passcode is set; never migrates.
public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
/// Readable only while unlocked; never migrates to another device.
public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
/// Readable after the first unlock since boot; never migrates to another device.
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// Always readable; never migrates to another device.
@available(*, deprecated, message: "Use an accessibility level that is tied to unlocking the device")
public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"

// MARK: - Values, return types, search and use keys

/// The item's secret data (`Data`).
public let kSecValueData: CFString = "v_Data"
/// Asks for the item's data (`true`).
public let kSecReturnData: CFString = "r_Data"
/// Asks for the item's attributes (`true`).
public let kSecReturnAttributes: CFString = "r_Attributes"
/// Asks for a reference to the item; not supported by the simulator.
public let kSecReturnRef: CFString = "r_Ref"
/// Asks for a persistent reference to the item; not supported by the simulator.
public let kSecReturnPersistentRef: CFString = "r_PersistentRef"
/// How many items to return.
public let kSecMatchLimit: CFString = "m_Limit"
/// Return one item (the default).
public let kSecMatchLimitOne: CFString = "m_LimitOne"
/// Return every matching item.
public let kSecMatchLimitAll: CFString = "m_LimitAll"
/// Use the data-protection keychain on macOS; implicitly true elsewhere (accepted and ignored here).
public let kSecUseDataProtectionKeychain: CFString = "nleg"
