// The code-signing task API that KeychainStore uses on macOS to read the app's own app-group entitlement, so that
// the code compiles unchanged here. There is no code signature to read on this platform: the task is never
// created.

// `CFAllocator` and `CFError` are declared in SecAccessControl.swift.

/// An object that represents a task (a running program) and its code signature.
///
/// https://developer.apple.com/documentation/security/sectask
@available(macOS 10.8, *)
public final class SecTask: Sendable {
    private init() {}
}

/// Creates a task object for the current task.
///
/// https://developer.apple.com/documentation/security/sectaskcreatefromself(_:)
/// - Parameter allocator: The allocator to use, or `nil` for the default.
/// - Returns: The task; here always `nil`, as there is no code signature to read.
@available(macOS 10.8, *)
public func SecTaskCreateFromSelf(_ allocator: CFAllocator?) -> SecTask? { nil }

/// Returns the value of a single entitlement for the given task.
///
/// https://developer.apple.com/documentation/security/sectaskcopyvalueforentitlement(_:_:_:)
/// - Parameters:
///   - task: The task.
///   - entitlement: The entitlement's key, such as `com.apple.security.application-groups`.
///   - error: Receives an error, if any.
/// - Returns: The entitlement's value (for app groups, an array of strings), or `nil` when the task does not have
///   it; here always `nil`.
@available(macOS 10.8, *)
public func SecTaskCopyValueForEntitlement(
    _ task: SecTask,
    _ entitlement: CFString,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFTypeRef? { nil }
