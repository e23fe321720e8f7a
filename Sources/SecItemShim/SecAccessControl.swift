// The names Apple's Security framework exports for access-controlled keychain items (items that need the user's
// presence to be read), so that code written against them compiles unchanged on platforms without Security.
// Signatures follow Apple's documentation; the object carries its protection and flags, which the keychain
// simulator reads.

/// Core Foundation option flags (`UInt`, like Apple's `CFOptionFlags`).
public typealias CFOptionFlags = UInt

/// A Core Foundation allocator; this platform has only the default one (`nil`).
///
/// https://developer.apple.com/documentation/corefoundation/cfallocator
public final class CFAllocator: Sendable {
    private init() {}
}

/// The default allocator.
///
/// https://developer.apple.com/documentation/corefoundation/kcfallocatordefault
public let kCFAllocatorDefault: CFAllocator? = nil

/// A Core Foundation error: a domain and a code.
///
/// https://developer.apple.com/documentation/corefoundation/cferror
public final class CFError: Error, Sendable {
    /// The error's domain.
    public let domain: String
    /// The error's code (an `OSStatus` for the Security framework's domain).
    public let code: Int

    /// Creates an error.
    /// - Parameters:
    ///   - domain: The domain.
    ///   - code: The code.
    public init(domain: String, code: Int) {
        self.domain = domain
        self.code = code
    }
}

/// Access control flags that specify which user authentication an item needs: logical `OR` of the constraints
/// below. Raw values from Apple's `SecAccessControl.h`.
///
/// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags
public struct SecAccessControlCreateFlags: OptionSet, Sendable, Hashable {
    /// The flags' raw value.
    public let rawValue: CFOptionFlags

    /// Creates the flags from their raw value.
    ///
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/init(rawvalue:)
    /// - Parameter rawValue: The logical `OR` of one or more flags.
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    /// Biometry or passcode; biometry need not be available or enrolled, and the item survives enrolment changes.
    ///
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/userpresence
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    /// Touch ID for any enrolled finger, or Face ID; the item survives enrolment changes.
    ///
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/biometryany
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// Touch ID for the currently enrolled fingers, or Face ID for the currently enrolled user; the item is
    /// invalidated when fingers are added or removed, or the user re-enrols.
    ///
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/biometrycurrentset
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// The device passcode.
    ///
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/devicepasscode
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    /// At least one of the constraints must be satisfied.
    ///
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/or
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    /// All of the constraints must be satisfied.
    ///
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/and
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    /// Private-key usage (Secure Enclave keys); not for generic passwords.
    ///
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/privatekeyusage
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    /// An application-provided password.
    ///
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/applicationpassword
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)
}

/// An access control object: a protection class (a `kSecAttrAccessible` value) and the flags that say how the
/// user authenticates. Opaque on Apple platforms; here its parts are readable, for the keychain simulator.
///
/// https://developer.apple.com/documentation/security/secaccesscontrol
public final class SecAccessControl: Sendable {
    /// The protection class, such as `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`.
    public let protection: CFString
    /// The authentication constraints.
    public let flags: SecAccessControlCreateFlags

    fileprivate init(protection: CFString, flags: SecAccessControlCreateFlags) {
        self.protection = protection
        self.flags = flags
    }
}

/// Creates a new access control object with the specified protection type and flags.
///
/// https://developer.apple.com/documentation/security/secaccesscontrolcreatewithflags(_:_:_:_:)
/// - Parameters:
///   - allocator: The allocator; `nil` for the default.
///   - protection: One of the `kSecAttrAccessible` values.
///   - flags: The authentication constraints.
///   - error: Receives the error when the object cannot be created.
/// - Returns: The object, or `nil` when `protection` is not an accessibility value (`errSecParam`).
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?,
    _ protection: CFTypeRef,
    _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    let accessibilityValues: Set<String> = [
        "ak", "ck", "dk", "akpu", "aku", "cku", "dku",
    ]
    guard let protection = protection as? String, accessibilityValues.contains(protection) else {
        error?.pointee = Unmanaged.passRetained(CFError(domain: "NSOSStatusErrorDomain", code: Int(errSecParam)))
        return nil
    }
    return SecAccessControl(protection: protection, flags: flags)
}

// MARK: - Attribute and use keys

/// The access-control attribute of an item (a ``SecAccessControl``); an item has either it or
/// `kSecAttrAccessible`, not both.
///
/// https://developer.apple.com/documentation/security/ksecattraccesscontrol
public let kSecAttrAccessControl: CFString = "accc"

/// A key whose value is an `LAContext` to authenticate with: a context already authenticated is used without
/// asking the user again.
///
/// https://developer.apple.com/documentation/security/ksecuseauthenticationcontext
public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"

// MARK: - Status codes

/// The user canceled the operation (such as the Face ID prompt).
///
/// https://developer.apple.com/documentation/security/errsecusercanceled
public let errSecUserCanceled: OSStatus = -128
