public import Foundation

// UserNotifications' names and signatures as Apple documents them, so that TetherNotifications' `StatusNotifier`
// compiles and is tested off Apple platforms. Behaviour: the notification center keeps what is added in memory, and
// a test reads it through the `package` test-control members; nothing is shown.

/// Options for requesting authorization.
///
/// https://developer.apple.com/documentation/usernotifications/unauthorizationoptions
public struct UNAuthorizationOptions: OptionSet, Sendable {
    /// The raw value.
    public let rawValue: UInt
    /// Creates options from a raw value.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// The ability to update the app's badge.
    public static let badge = UNAuthorizationOptions(rawValue: 1 << 0)
    /// The ability to play sounds.
    public static let sound = UNAuthorizationOptions(rawValue: 1 << 1)
    /// The ability to display alerts.
    public static let alert = UNAuthorizationOptions(rawValue: 1 << 2)
}

/// The content of a notification.
///
/// https://developer.apple.com/documentation/usernotifications/unnotificationcontent
open class UNNotificationContent: NSObject, @unchecked Sendable {
    var storedTitle = ""
    var storedBody = ""
    var storedThreadIdentifier = ""

    /// The localized text for the notification's title.
    open var title: String { storedTitle }
    /// The localized text for the notification's body.
    open var body: String { storedBody }
    /// An identifier that groups related notifications.
    open var threadIdentifier: String { storedThreadIdentifier }
}

/// Editable content for a notification.
///
/// https://developer.apple.com/documentation/usernotifications/unmutablenotificationcontent
open class UNMutableNotificationContent: UNNotificationContent, @unchecked Sendable {
    /// The title.
    override open var title: String {
        get { storedTitle }
        set { storedTitle = newValue }
    }
    /// The body.
    override open var body: String {
        get { storedBody }
        set { storedBody = newValue }
    }
    /// The thread identifier.
    override open var threadIdentifier: String {
        get { storedThreadIdentifier }
        set { storedThreadIdentifier = newValue }
    }
}

/// The common behaviour of triggers; `nil` delivers at once.
///
/// https://developer.apple.com/documentation/usernotifications/unnotificationtrigger
open class UNNotificationTrigger: NSObject, @unchecked Sendable {}

/// A request to schedule a local notification.
///
/// https://developer.apple.com/documentation/usernotifications/unnotificationrequest
open class UNNotificationRequest: NSObject, @unchecked Sendable {
    /// The request's identifier; a request with the identifier of a delivered one replaces it.
    public let identifier: String
    /// The content.
    public let content: UNNotificationContent
    /// The trigger; `nil` delivers at once.
    public let trigger: UNNotificationTrigger?

    /// Creates a request.
    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
    }
}

/// The central object for managing notification-related activities.
///
/// https://developer.apple.com/documentation/usernotifications/unusernotificationcenter
open class UNUserNotificationCenter: NSObject, @unchecked Sendable {
    private static let shared = UNUserNotificationCenter()

    /// The app's notification center.
    open class func current() -> UNUserNotificationCenter { shared }

    private let lock = NSLock()
    private var added: [UNNotificationRequest] = []
    private var removed: [String] = []

    /// Schedules a local notification.
    open func add(_ request: UNNotificationRequest) async throws {
        lock.withLock { added.append(request) }
    }

    /// Removes delivered notifications with these identifiers.
    open func removeDeliveredNotifications(withIdentifiers identifiers: [String]) {
        lock.withLock { removed += identifiers }
    }

    /// Requests authorization to interact with the user.
    open func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool { true }

    // MARK: Test control

    /// A center of its own, for one test; an app uses ``current()``.
    override public init() { super.init() }

    /// The requests added so far, oldest first.
    package var addedRequests: [UNNotificationRequest] { lock.withLock { added } }

    /// The identifiers removed so far.
    package var removedIdentifiers: [String] { lock.withLock { removed } }
}
