/// The name of one calendar source: a connection such as `work-google`, or the device's calendar.
///
/// Sources built on a ``Tether/Session`` take the session's connection identifier by default.
public struct CalendarSourceID: Sendable, Hashable, Codable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The name.
    public let rawValue: String

    /// Creates an identifier.
    /// - Parameter rawValue: The name.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Creates an identifier from a literal.
    /// - Parameter value: The name.
    public init(stringLiteral value: String) { self.init(value) }

    /// The name.
    public var description: String { rawValue }

    /// Orders by name.
    public static func < (lhs: CalendarSourceID, rhs: CalendarSourceID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Decodes a plain string.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes a plain string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// Which kind of calendar service a source reads.
public enum CalendarSourceKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Google Calendar API v3.
    case google
    /// Microsoft Graph (Outlook calendars).
    case microsoft
    /// The device's calendar through EventKit (Apple platforms).
    case apple
}
