public import Foundation
public import Tether

/// What a settings row can truthfully say about one calendar source.
///
/// Derived, never stored: from the status of the sign-in or permission behind the source (a ``Tether/Session``'s
/// ``Tether/ConnectionStatus``, or the device's calendar authorization) and the outcome of the source's last
/// fetch — see ``derive(access:lastError:failingSince:)``.
public enum CalendarSourceStatus: Sendable, Equatable, CustomStringConvertible {
    /// Signed in (or permitted) and the last fetch, if any, succeeded.
    case connected(account: Account?)
    /// Signed in and the last fetch succeeded, but some of the calendars chosen are gone — deleted, unsubscribed
    /// or no longer shared. `calendars` names them by their last known names; the others loaded. Choosing the
    /// calendars again (``CalendarConnections/select(_:for:)``) or restoring access ends it.
    case calendarsUnavailable(account: Account?, calendars: [UnavailableCalendar])
    /// The sign-in is being restored or refreshed.
    case refreshing(account: Account?)
    /// The service could not be reached or is limiting requests; the sign-in is kept. `since` is when the
    /// failures began, when known.
    case offline(since: Date?, reason: String)
    /// The sign-in is gone (revoked, expired): the user must sign in again. `accountHint` names the account.
    case needsSignIn(accountHint: Account?, reason: String)
    /// Nobody signed in yet, or the device's calendar permission has not been asked for.
    case notConnected
    /// The credential store cannot be read yet (before first unlock) or is damaged; nothing was deleted.
    case storageUnavailable(reason: String)
    /// Signed in, but calendars may not be read: the calendar scope was not granted, or access to the device's
    /// calendar was denied, restricted or given for writing only.
    case accessDenied(reason: String)
    /// The service answered with an error that is none of the above.
    case apiError(reason: String, httpStatus: Int?)
    /// The source is configured wrongly.
    case misconfigured(problem: String)

    /// The case without its values.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// See ``CalendarSourceStatus/connected(account:)``.
        case connected
        /// See ``CalendarSourceStatus/calendarsUnavailable(account:calendars:)``.
        case calendarsUnavailable
        /// See ``CalendarSourceStatus/refreshing(account:)``.
        case refreshing
        /// See ``CalendarSourceStatus/offline(since:reason:)``.
        case offline
        /// See ``CalendarSourceStatus/needsSignIn(accountHint:reason:)``.
        case needsSignIn
        /// See ``CalendarSourceStatus/notConnected``.
        case notConnected
        /// See ``CalendarSourceStatus/storageUnavailable(reason:)``.
        case storageUnavailable
        /// See ``CalendarSourceStatus/accessDenied(reason:)``.
        case accessDenied
        /// See ``CalendarSourceStatus/apiError(reason:httpStatus:)``.
        case apiError
        /// See ``CalendarSourceStatus/misconfigured(problem:)``.
        case misconfigured
    }

    /// The case without its values.
    public var kind: Kind {
        switch self {
        case .connected: .connected
        case .calendarsUnavailable: .calendarsUnavailable
        case .refreshing: .refreshing
        case .offline: .offline
        case .needsSignIn: .needsSignIn
        case .notConnected: .notConnected
        case .storageUnavailable: .storageUnavailable
        case .accessDenied: .accessDenied
        case .apiError: .apiError
        case .misconfigured: .misconfigured
        }
    }

    /// The account concerned, if known.
    public var account: Account? {
        switch self {
        case .connected(let account), .refreshing(let account), .calendarsUnavailable(let account, _): account
        case .needsSignIn(let hint, _): hint
        default: nil
        }
    }

    /// Whether the user must act (sign in, grant access, fix the configuration) before the source loads again.
    public var requiresUserAction: Bool {
        switch kind {
        case .needsSignIn, .notConnected, .accessDenied, .misconfigured: true
        default: false
        }
    }

    /// A short summary without secrets, such as `needsSignIn(g***@example.com)`.
    public var description: String {
        switch self {
        case .connected(let account): "connected(\(account.map(String.init(describing:)) ?? "-"))"
        case .calendarsUnavailable(_, let calendars): "calendarsUnavailable(\(calendars.count))"
        case .refreshing(let account): "refreshing(\(account.map(String.init(describing:)) ?? "-"))"
        case .offline(_, let reason): "offline(\(reason))"
        case .needsSignIn(let hint, _): "needsSignIn(\(hint.map(String.init(describing:)) ?? "-"))"
        case .notConnected: "notConnected"
        case .storageUnavailable(let reason): "storageUnavailable(\(reason))"
        case .accessDenied(let reason): "accessDenied(\(reason))"
        case .apiError(let reason, _): "apiError(\(reason))"
        case .misconfigured(let problem): "misconfigured(\(problem))"
        }
    }

    /// The status of a source behind a session, before any fetch.
    /// - Parameter connection: The session's status.
    public init(_ connection: ConnectionStatus) {
        switch connection {
        case .notConnected: self = .notConnected
        case .restoring: self = .refreshing(account: nil)
        case .connected(let account, _): self = .connected(account: account)
        case .refreshing(let account): self = .refreshing(account: account)
        case .offline(_, _, let error): self = .offline(since: nil, reason: error.message)
        case .storageUnavailable(let error): self = .storageUnavailable(reason: error.message)
        case .needsSignIn(let reason, let hint): self = .needsSignIn(accountHint: hint, reason: reason.message)
        case .misconfigured(let problem): self = .misconfigured(problem: problem)
        }
    }

    /// Combines the status of the sign-in or permission with the outcome of the last fetch.
    ///
    /// A sign-in or permission that already needs the user wins: it says what to do. Otherwise a failed fetch
    /// says what went wrong — a refused token that could not be refreshed is "needs sign-in", a `403` is "access
    /// denied", a network failure or rate limit is "offline since …", anything else an API error — and a
    /// successful one leaves the sign-in's status.
    /// - Parameters:
    ///   - access: The status of the sign-in or permission (``init(_:)``, or the device's authorization).
    ///   - lastError: The error of the last fetch; `nil` when it succeeded or none was made.
    ///   - failingSince: When the fetches began to fail.
    /// - Returns: The status to show.
    public static func derive(
        access: CalendarSourceStatus,
        lastError: CalendarError?,
        failingSince: Date?
    ) -> CalendarSourceStatus {
        derive(access: access, lastError: lastError, failingSince: failingSince, unavailableCalendars: [])
    }

    /// Combines the status of the sign-in or permission with the outcome of the last fetch, including the chosen
    /// calendars that fetch found gone.
    ///
    /// As ``derive(access:lastError:failingSince:)``; when the last fetch succeeded with calendars gone and the
    /// sign-in stands (connected or refreshing), the status is
    /// ``calendarsUnavailable(account:calendars:)``, naming them.
    /// - Parameters:
    ///   - access: The status of the sign-in or permission.
    ///   - lastError: The error of the last fetch; `nil` when it succeeded or none was made.
    ///   - failingSince: When the fetches began to fail.
    ///   - unavailableCalendars: The chosen calendars the last successful fetch found gone.
    /// - Returns: The status to show.
    public static func derive(
        access: CalendarSourceStatus,
        lastError: CalendarError?,
        failingSince: Date?,
        unavailableCalendars: [UnavailableCalendar]
    ) -> CalendarSourceStatus {
        switch access.kind {
        case .needsSignIn, .notConnected, .storageUnavailable, .misconfigured, .accessDenied: return access
        default: break
        }
        guard let error = lastError else {
            if case .offline(nil, let reason) = access, let failingSince {
                return .offline(since: failingSince, reason: reason)
            }
            if !unavailableCalendars.isEmpty, access.kind == .connected || access.kind == .refreshing {
                return .calendarsUnavailable(account: access.account, calendars: unavailableCalendars)
            }
            return access
        }
        switch error {
        case CalendarError.needsSignIn:
            return .needsSignIn(accountHint: error.accountHint ?? access.account, reason: error.message)
        case CalendarError.accessDenied: return .accessDenied(reason: error.message)
        case CalendarError.offline, CalendarError.rateLimited:
            return .offline(since: failingSince, reason: error.message)
        case CalendarError.storageUnavailable: return .storageUnavailable(reason: error.message)
        case CalendarError.misconfigured: return .misconfigured(problem: error.message)
        default: return .apiError(reason: error.message, httpStatus: error.httpStatus)
        }
    }
}
