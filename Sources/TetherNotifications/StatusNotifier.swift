public import Foundation
public import Logging
public import Tether

#if canImport(UserNotifications)
public import UserNotifications
#else
public import UserNotificationsShim
#endif

/// Turns a connection's status changes into local notifications: "sign in again", "connected again", "access
/// ends soon". Off by default: it posts only once ``isEnabled`` is set, typically from a switch in the app's
/// settings, and it never asks for permission itself (ask with `requestAuthorization(options:)` when the user
/// turns the switch on).
///
/// ```swift
/// let notifier = StatusNotifier(connectionName: "Work calendar")
/// await notifier.setEnabled(settings.notifiesAboutSignIn)
/// Task { await notifier.run(await session.statusUpdates(bufferingPolicy: .unbounded)) }
/// ```
///
/// What is posted, and when, is ``StatusNotificationPolicy``'s decision: one notification per ended grant (not one
/// per status update), a "connected again" only after a "sign in again", and the "sign in again" notification
/// removed from Notification Center once the connection works again. Notifications of one connection share a
/// thread identifier, and each kind has a fixed identifier per connection, so a newer one replaces an older one.
///
/// Compiled and tested here against `UserNotificationsShim`, written from Apple's documentation; the real
/// framework is not linked here.
public actor StatusNotifier {
    private var policy: StatusNotificationPolicy
    private let center: UNUserNotificationCenter
    private let logger: Logger
    /// Whether notifications are posted; `false` until set.
    public private(set) var isEnabled = false

    /// Creates a notifier for one connection.
    /// - Parameters:
    ///   - connectionName: The connection's name as the user knows it ("Work calendar"); it appears in the text.
    ///   - center: Where notifications go; the app's center by default.
    ///   - logger: Where it logs a notification that could not be added.
    public init(
        connectionName: String,
        center: UNUserNotificationCenter = .current(),
        logger: Logger = .current
    ) {
        self.policy = StatusNotificationPolicy(connectionName: connectionName)
        self.center = center
        self.logger = logger
    }

    /// Turns posting on or off. While off, statuses are still followed, so that turning it on does not post a
    /// "connected again" for a grant that ended before.
    /// - Parameter enabled: Whether to post.
    public func setEnabled(_ enabled: Bool) {
        isEnabled = enabled
    }

    /// Follows `updates` (a session's ``Tether/Session/statusUpdates(bufferingPolicy:)``) until it ends.
    /// - Parameter updates: The statuses.
    public func run(_ updates: AsyncStream<ConnectionStatus>) async {
        for await status in updates {
            await observe(status)
        }
    }

    /// Takes one status.
    /// - Parameter status: The connection's status.
    public func observe(_ status: ConnectionStatus) async {
        await perform(policy.observe(status))
    }

    /// Notes that the connection's grant ends at `endsAt` (a refresh token's or a session's end), so the user
    /// can sign in again before; posted once per end date.
    /// - Parameter endsAt: When the grant ends.
    public func grantEndsSoon(at endsAt: Date) async {
        await perform(policy.grantEndsSoon(at: endsAt))
    }

    private func perform(_ actions: [StatusNotificationPolicy.Action]) async {
        guard isEnabled else { return }
        for action in actions {
            switch action {
            case .post(let notification):
                let content = UNMutableNotificationContent()
                content.title = notification.title
                content.body = notification.body
                content.threadIdentifier = notification.threadIdentifier
                let request = UNNotificationRequest(
                    identifier: notification.identifier,
                    content: content,
                    trigger: nil
                )
                do {
                    try await center.add(request)
                } catch {
                    logger.debug("Could not add a status notification", metadata: ["error": "\(error)"])
                }
            case .remove(let identifier):
                center.removeDeliveredNotifications(withIdentifiers: [identifier])
            }
        }
    }
}
