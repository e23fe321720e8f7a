public import Foundation
public import Tether

/// What ``StatusNotifier`` posts for a connection's statuses, as a value without I/O: each status goes in, the
/// notifications to post or remove come out.
///
/// - A grant that ends (``Tether/ConnectionStatus/needsSignIn(reason:accountHint:)``) posts "sign in again" once;
///   more statuses of the ended grant post nothing, whatever their order.
/// - The connection working again (connected, refreshing or offline with an account) after that posts "connected
///   again" and removes the "sign in again" notification.
/// - ``grantEndsSoon(at:)`` posts "access ends soon" once per end date; it is removed when the grant ends or the
///   connection is signed in again.
/// - Other statuses (restoring, offline, storage unavailable, not connected, misconfigured) post nothing: they are
///   either passing or the app's own screens say more.
public struct StatusNotificationPolicy: Sendable {
    /// A notification to post.
    public struct Notification: Sendable, Hashable {
        /// The request's identifier: the same for every notification of one kind and connection.
        public var identifier: String
        /// The title.
        public var title: String
        /// The body.
        public var body: String
        /// The thread of the connection's notifications.
        public var threadIdentifier: String
    }

    /// What to do.
    public enum Action: Sendable, Hashable {
        /// Post this notification.
        case post(Notification)
        /// Remove the delivered notification with this identifier.
        case remove(String)
    }

    private enum Phase: Sendable, Hashable {
        case unknown, working, ended
    }

    private let name: String
    private var phase = Phase.unknown
    private var warnedEnd: Date?

    /// A policy for one connection.
    /// - Parameter connectionName: The name the user knows it by.
    public init(connectionName: String) {
        name = UntrustedText.sanitized(connectionName, maximumLength: 80)
    }

    private var thread: String { "tether.\(name)" }
    private var needsSignInID: String { "tether.\(name).needs-sign-in" }
    private var recoveredID: String { "tether.\(name).recovered" }
    private var endsSoonID: String { "tether.\(name).expires-soon" }

    /// Takes a status; returns what to post or remove.
    /// - Parameter status: The connection's status.
    /// - Returns: The actions, in order.
    public mutating func observe(_ status: ConnectionStatus) -> [Action] {
        switch status {
        case .needsSignIn(let reason, _):
            guard phase != .ended else { return [] }
            phase = .ended
            warnedEnd = nil
            let body = UntrustedText.sanitized(reason.message)
            return [
                .remove(recoveredID), .remove(endsSoonID),
                .post(
                    Notification(
                        identifier: needsSignInID,
                        title: "Sign in to \(name) again",
                        body: body,
                        threadIdentifier: thread
                    )
                ),
            ]
        case .connected, .refreshing, .offline:
            let wasEnded = phase == .ended
            phase = .working
            guard wasEnded else { return [] }
            return [
                .remove(needsSignInID),
                .post(
                    Notification(
                        identifier: recoveredID,
                        title: "\(name) is connected again",
                        body: "Signed in; nothing more to do.",
                        threadIdentifier: thread
                    )
                ),
            ]
        case .notConnected:
            // Signed out on purpose: nothing to say, and a later sign-in is no recovery.
            phase = .unknown
            return []
        case .restoring, .storageUnavailable, .misconfigured:
            return []
        }
    }

    /// Notes that the grant ends at `endsAt`; returns what to post.
    /// - Parameter endsAt: When the grant ends.
    /// - Returns: A post the first time for this date, else nothing.
    public mutating func grantEndsSoon(at endsAt: Date) -> [Action] {
        guard phase != .ended, warnedEnd != endsAt else { return [] }
        warnedEnd = endsAt
        let day = endsAt.formatted(.iso8601.year().month().day())
        return [
            .post(
                Notification(
                    identifier: endsSoonID,
                    title: "\(name) needs you to sign in soon",
                    body: "Its access ends on \(day). Sign in again before then.",
                    threadIdentifier: thread
                )
            )
        ]
    }
}
