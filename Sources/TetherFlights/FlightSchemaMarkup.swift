import Foundation

/// A schema.org `FlightReservation` (https://schema.org/FlightReservation) found in an event's description, as
/// JSON-LD or as microdata: the markup airlines put in their confirmation e-mails
/// (https://developers.google.com/workspace/gmail/markup/reference/flight-reservation).
struct FlightSchemaMarkup {
    var airline: String?
    var flightNumber: String?
    var departureAirport: String?
    var arrivalAirport: String?
    var departureTime: String?
    var arrivalTime: String?

    /// Reads the first flight reservation in a text; `nil` when there is none, or it names no valid flight or
    /// airport.
    ///
    /// - Parameters:
    ///   - text: The event's description.
    ///   - data: The reference data the codes are checked against.
    init?(_ text: String, data: FlightReferenceData = .shared) {
        guard Self.contains(text, "FlightReservation") else { return nil }
        var markup: FlightSchemaMarkup?
        if let reservation = Self.jsonReservation(in: text) {
            markup = FlightSchemaMarkup(json: reservation)
        } else {
            markup = FlightSchemaMarkup(microdata: text)
        }
        guard var markup else { return nil }
        markup.validate(with: data)
        guard markup.flightNumber != nil || markup.departureAirport != nil || markup.arrivalAirport != nil else {
            return nil
        }
        self = markup
    }

    private init() {}

    /// Whether an ASCII word occurs in a text, compared byte by byte.
    private static func contains(_ text: String, _ word: StaticString) -> Bool {
        let needle = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard let first = needle.first else { return true }
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count >= needle.count else { return false }
            for start in 0...(bytes.count - needle.count) where bytes[start] == first {
                if UnsafeBufferPointer(rebasing: bytes[start..<(start + needle.count)]).elementsEqual(needle) {
                    return true
                }
            }
            return false
        }
    }

    /// Keeps only codes the reference data knows, and writes the flight number with its designator.
    private mutating func validate(with data: FlightReferenceData) {
        if let code = airline?.uppercased(), data.airlines[code] != nil { airline = code } else { airline = nil }
        // The number alone ("857", with the airline's code beside it) or with its designator ("UA857", "UA 857").
        if let raw = flightNumber?.filter({ $0 != " " }).uppercased() {
            var code = airline
            var digits = raw
            let prefix = String(raw.prefix(2))
            if raw.count > 2, data.airlines[prefix] != nil, raw.dropFirst(2).allSatisfy(\.isNumber) {
                code = prefix
                digits = String(raw.dropFirst(2))
            }
            if let code, digits.allSatisfy(\.isASCII), let number = Int(digits), (1...9999).contains(number) {
                airline = airline ?? code
                flightNumber = "\(code)\(number)"
            } else {
                flightNumber = nil
            }
        }
        for keyPath in [\FlightSchemaMarkup.departureAirport, \.arrivalAirport] {
            if let code = self[keyPath: keyPath]?.uppercased(), data.isAirportCode(code) {
                self[keyPath: keyPath] = code
            } else {
                self[keyPath: keyPath] = nil
            }
        }
    }

    // MARK: - JSON-LD

    private init(json reservation: [String: Any]) {
        var flight = reservation["reservationFor"]
        if let flights = flight as? [Any] { flight = flights.first }
        guard let flight = flight as? [String: Any] else { return }
        flightNumber = Self.string(flight["flightNumber"])
        let airline = flight["airline"] as? [String: Any] ?? flight["provider"] as? [String: Any]
        self.airline = Self.string(airline?["iataCode"])
        departureAirport = Self.string((flight["departureAirport"] as? [String: Any])?["iataCode"])
        arrivalAirport = Self.string((flight["arrivalAirport"] as? [String: Any])?["iataCode"])
        departureTime = Self.string(flight["departureTime"])
        arrivalTime = Self.string(flight["arrivalTime"])
    }

    private static func string(_ value: Any?) -> String? {
        switch value {
        case let string as String: string.trimmingCharacters(in: .whitespacesAndNewlines)
        case let number as NSNumber: number.stringValue
        default: nil
        }
    }

    /// The first object typed `FlightReservation` in the JSON objects of a text.
    private static func jsonReservation(in text: String) -> [String: Any]? {
        var searchStart = text.startIndex
        var attempts = 0
        while attempts < 8, let open = text[searchStart...].firstIndex(of: "{") {
            attempts += 1
            guard let close = matchingBrace(in: text, from: open) else { return nil }
            let candidate = Data(text[open...close].utf8)
            if let object = try? JSONSerialization.jsonObject(with: candidate),
                let reservation = find(in: object, depth: 0)
            {
                return reservation
            }
            searchStart = text.index(after: close)
        }
        return nil
    }

    private static func find(in object: Any, depth: Int) -> [String: Any]? {
        guard depth < 8 else { return nil }
        if let dictionary = object as? [String: Any] {
            let type = dictionary["@type"]
            if (type as? String) == "FlightReservation" || (type as? [String])?.contains("FlightReservation") == true {
                return dictionary
            }
            for value in dictionary.values {
                if let found = find(in: value, depth: depth + 1) { return found }
            }
        } else if let array = object as? [Any] {
            for value in array {
                if let found = find(in: value, depth: depth + 1) { return found }
            }
        }
        return nil
    }

    /// The index of the brace that closes the one at `open`, skipping braces inside strings.
    private static func matchingBrace(in text: String, from open: String.Index) -> String.Index? {
        var depth = 0
        var inString = false
        var escaped = false
        var index = open
        var steps = 0
        while index < text.endIndex, steps < 200_000 {
            let character = text[index]
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
            } else if character == "\"" {
                inString = true
            } else if character == "{" || character == "[" {
                depth += 1
                // Reservations are shallow; deeper nesting is not worth parsing (and could exhaust the stack).
                if depth > 32 { return nil }
            } else if character == "}" || character == "]" {
                depth -= 1
                if depth == 0 { return index }
            }
            index = text.index(after: index)
            steps += 1
        }
        return nil
    }

    // MARK: - Microdata

    /// Reads `itemprop` attributes in document order; an `iataCode` belongs to the last `airline`,
    /// `departureAirport` or `arrivalAirport` scope opened before it.
    private init?(microdata text: String) {
        self.init()
        var scope = ""
        var searchStart = text.startIndex
        var found = false
        while let range = text.range(of: "itemprop=", range: searchStart..<text.endIndex) {
            searchStart = range.upperBound
            guard let name = Self.attributeValue(in: text, at: range.upperBound) else { continue }
            let tagEnd = text[range.upperBound...].firstIndex(of: ">") ?? text.endIndex
            let tag = text[range.upperBound..<tagEnd]
            var value: String?
            if let content = tag.range(of: "content=") {
                value = Self.attributeValue(in: text, at: content.upperBound)
            } else if tagEnd < text.endIndex {
                let inner = text[text.index(after: tagEnd)...].prefix { $0 != "<" }
                value = inner.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            switch name {
            case "airline", "departureAirport", "arrivalAirport": scope = name
            case "flightNumber": flightNumber = value
            case "departureTime": departureTime = value
            case "arrivalTime": arrivalTime = value
            case "iataCode":
                switch scope {
                case "airline": airline = value
                case "departureAirport": departureAirport = value
                case "arrivalAirport": arrivalAirport = value
                default: break
                }
            default: continue
            }
            found = true
        }
        guard found else { return nil }
    }

    /// The value of a quoted HTML attribute starting at `index` (just after `=`).
    private static func attributeValue(in text: String, at index: String.Index) -> String? {
        guard index < text.endIndex, text[index] == "\"" || text[index] == "'" else { return nil }
        let quote = text[index]
        let start = text.index(after: index)
        guard let end = text[start...].firstIndex(of: quote) else { return nil }
        return String(text[start..<end])
    }
}
