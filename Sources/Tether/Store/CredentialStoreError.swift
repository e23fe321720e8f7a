import Foundation

/// A failure of a ``CredentialStore``. It never contains a secret.
///
/// Match it like an enum: `catch let error as CredentialStoreError where error == .unavailable`, or
/// `switch error { case .wrongKey: … }` (see <doc:Errors>).
public struct CredentialStoreError: TetherError {
    /// The code, the message and the cause.
    public var details: TetherErrorDetails

    init(_ code: String, _ message: String) { details = TetherErrorDetails(code, message) }

    /// The store cannot be read *yet*: the device is locked since boot, or the app was launched before first
    /// unlock. Transient: retry when protected data becomes available. Never a sign-out.
    public static let unavailable = CredentialStoreError("unavailable", "The secure store is not available yet")
    /// The stored version was not the expected one; the write did not happen.
    public static let versionConflict = CredentialStoreError("versionConflict", "The record changed since it was read")
    /// Another holder kept the refresh lease longer than the timeout.
    public static let leaseTimeout = CredentialStoreError("leaseTimeout", "Timed out waiting for the refresh lease")
    /// Stored data is truncated, tampered with or not a record; it was left untouched.
    public static let corrupted = CredentialStoreError("corrupted", "The stored record is damaged")
    /// The key does not open the stored data; the data was left untouched.
    public static let wrongKey = CredentialStoreError("wrongKey", "The key does not open the stored record")
    /// The vault's key file is missing although records sealed with a key exist; nothing was created or changed.
    /// Restore the key file (or provide the key), or remove the records to start over.
    public static let missingKey = CredentialStoreError(
        "missingKey",
        "The vault's key is missing although records exist"
    )
    /// The data was written in a newer format than this version of Tether reads; it was left untouched.
    public static let unsupportedFormat = CredentialStoreError(
        "unsupportedFormat",
        "The stored record uses a newer format"
    )
    /// The app lacks the entitlement for the keychain access group (a configuration error).
    public static let missingEntitlement = CredentialStoreError(
        "missingEntitlement",
        "The keychain access group is not in the app's entitlements"
    )
    /// The store's configuration is invalid (a configuration error).
    public static let invalidConfiguration = CredentialStoreError(
        "invalidConfiguration",
        "The store's configuration is invalid"
    )
    /// The file system or platform store failed.
    public static let io = CredentialStoreError("io", "The secure store could not be accessed")
    /// The refresh token is kept behind the user's presence (Face ID, Touch ID or the passcode), and the user
    /// canceled or failed the authentication that unlocks it. Transient: nothing was deleted, a fresh access token
    /// still works, and the next refresh asks again. A ``Session`` then reports
    /// ``ConnectionStatus/storageUnavailable(_:)`` with this error, never "signed out".
    public static let locked = CredentialStoreError(
        "locked",
        "The refresh token stays locked until the user authenticates"
    )

    /// Whether retrying later may succeed (``unavailable``, ``leaseTimeout``, ``versionConflict``, ``io``,
    /// ``locked``).
    public var isTransient: Bool {
        switch self {
        case .unavailable, .leaseTimeout, .versionConflict, .io, .locked: true
        default: false
        }
    }

    /// Whether the store failed for want of room (`ENOSPC`, or `EDQUOT` where the system has quotas), found in the
    /// chain of causes: a failure that freeing space fixes, and that must never be taken for a signed-out user.
    package var isOutOfSpace: Bool {
        var next: (any Error)? = cause
        for _ in 0..<8 {
            guard let error = next else { return false }
            if let posix = error as? POSIXError {
                #if canImport(Glibc) || canImport(Darwin)
                return posix.code == .ENOSPC || posix.code == .EDQUOT
                #else
                return posix.code == .ENOSPC
                #endif
            }
            next = (error as? CredentialStoreError)?.cause
        }
        return false
    }

    /// Whether the error is a configuration mistake that no retry will fix.
    public var isConfigurationError: Bool {
        self == .missingEntitlement || self == .invalidConfiguration || self == .wrongKey || self == .missingKey
    }
}
