/// Names one connection in a store, such as `google` or `work-outlook`.
///
/// An identifier is 1 to 200 characters long. It becomes part of file names and keychain attributes, and
/// stores encode it so that any character is safe.
public struct ConnectionID: Sendable, Hashable, Codable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The identifier.
    public let rawValue: String

    /// Creates an identifier.
    /// - Parameter rawValue: The identifier; 1 to 200 characters.
    public init(_ rawValue: String) {
        precondition(!rawValue.isEmpty && rawValue.count <= 200, "A ConnectionID has 1 to 200 characters")
        self.rawValue = rawValue
    }

    /// Creates an identifier from a literal.
    public init(stringLiteral value: String) { self.init(value) }

    /// The identifier.
    public var description: String { rawValue }

    /// Orders identifiers by their raw value.
    public static func < (lhs: ConnectionID, rhs: ConnectionID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Decodes an identifier, rejecting an empty or overlong one with a decoding error instead of a trap.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let value = try container.decode(String.self)
        guard !value.isEmpty, value.count <= 200 else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "ConnectionID must have 1 to 200 characters"
            )
        }
        self.rawValue = value
    }

    /// Encodes the raw value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
