public import Foundation

// BackgroundTasks' names and signatures as Apple documents them, so that Tether's `AppRefreshTask` compiles and is
// tested off Apple platforms. Behaviour: the scheduler keeps its launch handlers and submitted requests in memory,
// and a test launches and expires tasks through the `package` test-control members; nothing runs by itself.

/// An abstract class representing a task that's run while the app is in the background.
///
/// https://developer.apple.com/documentation/backgroundtasks/bgtask
@available(iOS 13, tvOS 13, visionOS 1, macCatalyst 13.1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
open class BGTask: NSObject, @unchecked Sendable {
    /// The string identifier of the task.
    ///
    /// https://developer.apple.com/documentation/backgroundtasks/bgtask/identifier
    open var identifier: String { storedIdentifier }

    /// A handler called shortly before the task's background time expires.
    ///
    /// https://developer.apple.com/documentation/backgroundtasks/bgtask/expirationhandler
    open var expirationHandler: (() -> Void)? {
        get { state.withLock { $0.expirationHandler } }
        set { state.withLock { $0.expirationHandler = newValue } }
    }

    /// Informs the background task scheduler that the task is complete.
    ///
    /// https://developer.apple.com/documentation/backgroundtasks/bgtask/settaskcompleted(success:)
    /// - Parameter success: Whether the task completed successfully.
    open func setTaskCompleted(success: Bool) {
        let waiters = state.withLock { state in
            if state.completed == nil { state.completed = success }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: success) }
    }

    private struct State {
        var expirationHandler: (() -> Void)?
        var completed: Bool?
        var waiters: [CheckedContinuation<Bool, Never>] = []
    }

    private let storedIdentifier: String
    private let state = ShimLock(State())

    init(identifier: String) { self.storedIdentifier = identifier }

    // MARK: Test control

    /// What the first `setTaskCompleted(success:)` said, or `nil` before it.
    package var completion: Bool? { state.withLock { $0.completed } }

    /// Waits for `setTaskCompleted(success:)` and returns its argument.
    package func waitForCompletion() async -> Bool {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool? in
                if let completed = state.completed { return completed }
                state.waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    /// Calls the expiration handler, as the system does when the task's time runs out.
    package func expire() {
        let handler = state.withLock { $0.expirationHandler }
        handler?()
    }
}

/// An object representing a short task typically used to refresh content that's run while the app is in the
/// background.
///
/// https://developer.apple.com/documentation/backgroundtasks/bgapprefreshtask
@available(iOS 13, tvOS 13, visionOS 1, macCatalyst 13.1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
open class BGAppRefreshTask: BGTask, @unchecked Sendable {}

/// An abstract class for representing task requests.
///
/// https://developer.apple.com/documentation/backgroundtasks/bgtaskrequest
@available(iOS 13, tvOS 13, visionOS 1, macCatalyst 13.1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
open class BGTaskRequest: NSObject, @unchecked Sendable {
    /// The identifier of the task associated with the request.
    ///
    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskrequest/identifier
    public let identifier: String

    /// The earliest date and time at which to run the task.
    ///
    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskrequest/earliestbegindate
    open var earliestBeginDate: Date?

    init(storedIdentifier: String) { self.identifier = storedIdentifier }
}

/// A request to launch your app in the background to execute a short refresh task.
///
/// https://developer.apple.com/documentation/backgroundtasks/bgapprefreshtaskrequest
@available(iOS 13, tvOS 13, visionOS 1, macCatalyst 13.1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
open class BGAppRefreshTaskRequest: BGTaskRequest, @unchecked Sendable {
    /// Return a new refresh task request for the specified identifier.
    ///
    /// https://developer.apple.com/documentation/backgroundtasks/bgapprefreshtaskrequest/init(identifier:)
    /// - Parameter identifier: The string identifier of the refresh task associated with the request.
    public init(identifier: String) { super.init(storedIdentifier: identifier) }
}

/// A class for scheduling task requests that launch your app in the background.
///
/// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler
@available(iOS 13, tvOS 13, visionOS 1, macCatalyst 13.1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
open class BGTaskScheduler: NSObject, @unchecked Sendable {
    /// The shared background task scheduler instance.
    ///
    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/shared
    public static let shared = BGTaskScheduler()

    /// An error the scheduler throws from `submit(_:)`.
    ///
    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/error
    public struct Error: Swift.Error, Hashable, Sendable {
        /// The error's code.
        ///
        /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/error/code
        public enum Code: Int, Sendable {
            /// Background task scheduling is unavailable (Background App Refresh is off, or a simulator).
            case unavailable = 1
            /// The app or extension has exceeded the number of pending task requests of this type.
            case tooManyPendingTaskRequests = 2
            /// The identifier is not in `BGTaskSchedulerPermittedIdentifiers`, or no launch handler is registered.
            case notPermitted = 3
        }

        /// The error's code.
        public var code: Code

        /// Creates an error with `code`.
        public init(_ code: Code) { self.code = code }
    }

    private struct State {
        var handlers: [String: (BGTask) -> Void] = [:]
        var pending: [String: BGTaskRequest] = [:]
        var permitted: Set<String>?
        var isAvailable = true
    }

    private let state = ShimLock(State())

    /// Creates a scheduler; apps use `shared`, tests a scheduler of their own.
    override package init() {}

    /// Register a launch handler for the task with the associated identifier that's executed on the specified
    /// queue.
    ///
    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/register(fortaskwithidentifier:using:launchhandler:)
    /// - Parameters:
    ///   - identifier: A string containing the identifier of the task.
    ///   - queue: A queue for executing the task; `nil` for a default background queue.
    ///   - launchHandler: Runs when the system launches the app in the background.
    /// - Returns: `true` if the launch handler was registered.
    open func register(
        forTaskWithIdentifier identifier: String,
        using queue: DispatchQueue?,
        launchHandler: @escaping (BGTask) -> Void
    ) -> Bool {
        state.withLock { state in
            if let permitted = state.permitted, !permitted.contains(identifier) { return false }
            guard state.handlers[identifier] == nil else { return false }
            state.handlers[identifier] = launchHandler
            return true
        }
    }

    /// Submit a previously registered background task for execution.
    ///
    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/submit(_:)
    /// - Parameter taskRequest: A background task request object specifying the task identifier and optional
    ///   configuration information.
    /// - Throws: ``Error`` with a ``Error/Code``.
    open func submit(_ taskRequest: BGTaskRequest) throws {
        try state.withLock { state in
            guard state.isAvailable else { throw Error(.unavailable) }
            guard state.handlers[taskRequest.identifier] != nil else { throw Error(.notPermitted) }
            // One pending request per identifier: a new one replaces it.
            state.pending[taskRequest.identifier] = taskRequest
        }
    }

    /// Cancel a previously scheduled task request.
    ///
    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/cancel(taskrequestwithidentifier:)
    /// - Parameter identifier: The string identifier of the task request to cancel.
    open func cancel(taskRequestWithIdentifier identifier: String) {
        state.withLock { $0.pending[identifier] = nil }
    }

    // MARK: Test control

    /// Only these identifiers may be registered (the app's `BGTaskSchedulerPermittedIdentifiers`); `nil`: any.
    package func permit(_ identifiers: Set<String>?) { state.withLock { $0.permitted = identifiers } }

    /// Background App Refresh on or off (off: `submit` throws `unavailable`).
    package func setAvailable(_ available: Bool) { state.withLock { $0.isAvailable = available } }

    /// The pending request for `identifier`, if any.
    package func pendingRequest(_ identifier: String) -> BGTaskRequest? { state.withLock { $0.pending[identifier] } }

    /// Launches the pending app-refresh task of `identifier` as the system does: removes the request and calls the
    /// launch handler with a new task. Returns the task, or `nil` when nothing is registered.
    package func launch(_ identifier: String) -> BGAppRefreshTask? {
        let handler = state.withLock { state in
            state.pending[identifier] = nil
            return state.handlers[identifier]
        }
        guard let handler else { return nil }
        let task = BGAppRefreshTask(identifier: identifier)
        handler(task)
        return task
    }
}

/// A small lock for the shim's state.
final class ShimLock<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
