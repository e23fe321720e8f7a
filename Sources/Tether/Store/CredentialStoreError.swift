/// A failure of a ``CredentialStore``. It never contains a secret.
///
/// Match it like an enum: `catch let error as CredentialStoreError where error == .unavailable`, or
/// `switch error { case .wrongKey: … }` (see <doc:Errors>).
public struct CredentialStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case unavailable
        case versionConflict
        case leaseTimeout
        case corrupted
        case wrongKey
        case unsupportedFormat
        case missingEntitlement
        case invalidConfiguration
        case io
    }

    let code: Code

    /// What went wrong, in one sentence, without secrets.
    public let message: String

    /// The underlying error, if any.
    public let cause: (any Error)?

    init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The store cannot be read *yet*: the device is locked since boot, or the app was launched before first
    /// unlock. Transient: retry when protected data becomes available. Never a sign-out.
    public static let unavailable = CredentialStoreError(.unavailable, "The secure store is not available yet")
    /// The stored version was not the expected one; the write did not happen.
    public static let versionConflict = CredentialStoreError(.versionConflict, "The record changed since it was read")
    /// Another holder kept the refresh lease longer than the timeout.
    public static let leaseTimeout = CredentialStoreError(.leaseTimeout, "Timed out waiting for the refresh lease")
    /// Stored data is truncated, tampered with or not a record; it was left untouched.
    public static let corrupted = CredentialStoreError(.corrupted, "The stored record is damaged")
    /// The key does not open the stored data; the data was left untouched.
    public static let wrongKey = CredentialStoreError(.wrongKey, "The key does not open the stored record")
    /// The data was written in a newer format than this version of Tether reads; it was left untouched.
    public static let unsupportedFormat = CredentialStoreError(
        .unsupportedFormat,
        "The stored record uses a newer format"
    )
    /// The app lacks the entitlement for the keychain access group (a configuration error).
    public static let missingEntitlement = CredentialStoreError(
        .missingEntitlement,
        "The keychain access group is not in the app's entitlements"
    )
    /// The store's configuration is invalid (a configuration error).
    public static let invalidConfiguration = CredentialStoreError(
        .invalidConfiguration,
        "The store's configuration is invalid"
    )
    /// The file system or platform store failed.
    public static let io = CredentialStoreError(.io, "The secure store could not be accessed")

    /// The same kind of error with a specific message and cause.
    /// - Parameters:
    ///   - message: One sentence, without secrets.
    ///   - cause: The underlying error; the current one when `nil`.
    /// - Returns: A copy carrying the details.
    public func with(message: String, cause: (any Error)? = nil) -> CredentialStoreError {
        CredentialStoreError(code, message, cause: cause ?? self.cause)
    }

    /// Whether retrying later may succeed (``unavailable``, ``leaseTimeout``, ``versionConflict``, ``io``).
    public var isTransient: Bool {
        switch code {
        case .unavailable, .leaseTimeout, .versionConflict, .io: true
        default: false
        }
    }

    /// Whether the error is a configuration mistake that no retry will fix.
    public var isConfigurationError: Bool {
        code == .missingEntitlement || code == .invalidConfiguration || code == .wrongKey
    }

    /// The type and the message: `CredentialStoreError: message`.
    public var description: String { "CredentialStoreError: \(message)" }

    /// Errors are equal when their codes are, whatever their messages and causes.
    public static func == (lhs: CredentialStoreError, rhs: CredentialStoreError) -> Bool { lhs.code == rhs.code }

    /// Lets `switch` and `catch` match on the code: `case .wrongKey:`.
    public static func ~= (lhs: CredentialStoreError, rhs: any Error) -> Bool {
        (rhs as? CredentialStoreError)?.code == lhs.code
    }
}
