import Tether

/// Decodes one element of a list without failing the whole list: a malformed event is kept as its error (and
/// its `id`, when that much can be read) so that it can be skipped and reported.
struct Lossy<Value: Decodable>: Decodable {
    let result: Result<Value, any Error>
    let id: String?

    private enum Keys: String, CodingKey { case id }

    /// An element as a reader other than `Decodable` found it, such as a ``ScannedJSON`` page.
    init(result: Result<Value, any Error>, id: String?) {
        self.result = result
        self.id = id
    }

    init(from decoder: any Decoder) throws {
        do {
            result = .success(try Value(from: decoder))
        } catch {
            result = .failure(error)
        }
        id = try? decoder.container(keyedBy: Keys.self).decodeIfPresent(String.self, forKey: .id)
    }

    /// Maps every element that decoded; the others, and those `transform` refuses, are skipped with the reason.
    static func map<Item>(
        _ elements: [Lossy<Value>],
        source: CalendarSourceID,
        calendarID: String,
        _ transform: (Value) throws(CalendarDecodingError) -> Item
    ) -> ([Item], [SkippedEvent]) {
        var items: [Item] = []
        var skipped: [SkippedEvent] = []
        items.reserveCapacity(elements.count)
        for element in elements {
            let reason: CalendarDecodingError
            switch element.result {
            case .success(let wire):
                do throws(CalendarDecodingError) {
                    items.append(try transform(wire))
                    continue
                } catch {
                    reason = error
                }
            case .failure(let error):
                reason = describe(error)
            }
            skipped.append(SkippedEvent(source: source, calendarID: calendarID, eventID: element.id, reason: reason))
        }
        return (items, skipped)
    }

    /// What went wrong, naming the path of the field and the JSON type it should hold, but never its value.
    static func describe(_ error: any Error) -> CalendarDecodingError {
        guard let error = error as? DecodingError else { return .malformedEvent }
        // The path within the event: after the list's index.
        func within(_ path: [any CodingKey]) -> [String] {
            let start = path.firstIndex { $0.intValue != nil }.map { $0 + 1 } ?? 0
            return path[start...].map(\.stringValue)
        }
        switch error {
        case .keyNotFound(let key, let context):
            let path = (within(context.codingPath) + [key.stringValue]).joined(separator: ".")
            return CalendarDecodingError.missingField.with(message: "The event lacks '\(path)'", field: path)
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            let path = within(context.codingPath).joined(separator: ".")
            let expected = jsonType(type)
            guard !path.isEmpty else {
                return CalendarDecodingError.malformedEvent.with(
                    message: "The event is not \(expected)",
                    field: nil,
                    expectedType: expected
                )
            }
            return CalendarDecodingError.malformedEvent.with(
                message: "The event's '\(path)' has the wrong type (expected \(expected))",
                field: path,
                expectedType: expected
            )
        case .dataCorrupted(let context):
            let path = within(context.codingPath).joined(separator: ".")
            return CalendarDecodingError.malformedEvent.with(
                message: path.isEmpty ? "The event is not a JSON object" : "The event's '\(path)' could not be read",
                field: path.isEmpty ? nil : path
            )
        @unknown default:
            return .malformedEvent
        }
    }

    /// The JSON type a decoder expected, in words: "a string", "a number", "an object".
    static func jsonType(_ type: Any.Type) -> String {
        switch type {
        case is String.Type, is Substring.Type: "a string"
        case is Bool.Type: "true or false"
        case is any BinaryInteger.Type: "an integer"
        case is any BinaryFloatingPoint.Type: "a number"
        case is [Any].Type: "an array"
        default: "an object"
        }
    }
}
