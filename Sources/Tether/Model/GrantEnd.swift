public import Foundation

/// When a grant ends and why: what a settings screen shows beside the connection's status.
///
/// ``Session/grantEnd`` derives it from the stored record, the session's ``GrantLifetime`` rules and the clock,
/// as ``ConnectionStatus`` is derived; nothing is stored.
public struct GrantEnd: Sendable, Hashable, CustomStringConvertible {
    /// What ends the grant.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Disuse: a refresh before ``GrantEnd/date`` pushes it back (see ``Session/keepAlive(margin:)``).
        case inactivity
        /// A fixed end: only a new sign-in extends it.
        case absolute
    }

    /// What ends the grant at ``date``.
    public var kind: Kind
    /// When the grant ends, at the latest, if nothing else ends it first.
    public var date: Date
    /// When the grant was last used: the last refresh, or the sign-in.
    public var lastUsed: Date
    /// Why, in a few words without secrets: "GitHub user tokens last 6 months", "unused for 83 days: Microsoft ends
    /// it after 90".
    public var note: String
    /// Whether ``date`` is within the threshold the session was given
    /// (``Session/Configuration/endingSoonThreshold``): the "expires soon" a settings screen shows.
    public var isSoon: Bool = false
    /// The absolute end when the grant has one as well as the inactivity deadline in ``date``; otherwise `nil`
    /// (or ``date`` itself for an ``Kind/absolute`` end).
    public var absoluteEnd: Date?

    /// Creates an end.
    /// - Parameters:
    ///   - kind: What ends the grant.
    ///   - date: When.
    ///   - lastUsed: When the grant was last used.
    ///   - note: Why, in a few words.
    public init(kind: Kind, date: Date, lastUsed: Date, note: String) {
        self.kind = kind
        self.date = date
        self.lastUsed = lastUsed
        self.note = note
    }

    /// Whether a refresh can push the end back: an inactivity deadline that comes before any absolute end.
    public var isRenewable: Bool { kind == .inactivity }

    /// "ends 2027-05-20: GitHub user tokens last 6 months", or for an inactivity deadline "unused for 83 days:
    /// Microsoft ends it after 90 (by 2026-12-31)".
    public var description: String {
        let day = Self.day(date)
        switch kind {
        case .absolute: return "ends \(day): \(note)"
        case .inactivity: return "\(note) (by \(day))"
        }
    }

    /// The calendar day of `date` in UTC, as `2027-05-20`.
    package static func day(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }
}
