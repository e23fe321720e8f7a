import Foundation

/// A JSON document the provider writes: built in code, encoded with sorted keys so responses are stable. (The
/// client side reads JSON with `TetherOAuth.JSONValue`; this one only writes.)
enum JSONOutput: Sendable, Equatable, Encodable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case array([JSONOutput])
    case object([String: JSONOutput])
    case null

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    /// The UTF-8 JSON encoding.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// A string array.
    static func strings(_ values: [String]) -> JSONOutput {
        .array(values.map(JSONOutput.string))
    }

    /// A string-to-int dictionary.
    static func counts(_ values: [String: Int]) -> JSONOutput {
        .object(values.mapValues(JSONOutput.int))
    }
}

extension JSONOutput: ExpressibleByStringLiteral {
    init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension JSONOutput: ExpressibleByIntegerLiteral {
    init(integerLiteral value: Int) {
        self = .int(value)
    }
}

extension JSONOutput: ExpressibleByBooleanLiteral {
    init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension JSONOutput: ExpressibleByDictionaryLiteral {
    init(dictionaryLiteral elements: (String, JSONOutput)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONOutput: ExpressibleByArrayLiteral {
    init(arrayLiteral elements: JSONOutput...) {
        self = .array(elements)
    }
}
