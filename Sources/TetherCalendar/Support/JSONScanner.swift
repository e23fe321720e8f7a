import Foundation

/// Reads JSON text (RFC 8259) forward, one token at a time, without building a tree: a page decoder reads the
/// members it knows and skips the others.
///
/// `JSONDecoder` first turns a whole page into a map of every value, then decodes the wanted ones through
/// `Codable`'s containers; a page of Google events is mostly what the client never reads (attendees, conference
/// data, reminders), so that is most of the work. The scanner checks what it skips for JSON syntax (nesting,
/// strings, numbers, literals) but creates nothing for it. Strings it returns are checked UTF-8.
///
/// The scanner works over the bytes of one `withUnsafeBytes` call and must not outlive it.
struct JSONScanner {
    /// A failure to read the text as JSON: the whole document is unusable.
    struct Failure: Error, CustomStringConvertible {
        let offset: Int
        let reason: String
        var description: String { "Not valid JSON at byte \(offset): \(reason)" }
    }

    /// The kind of the next value.
    enum Kind {
        case object, array, string, number, bool, null
    }

    /// A member name, as the bytes between its quotes.
    struct Key {
        let start: Int
        let end: Int
        /// Whether the name holds an escape, which ``JSONScanner/matches(_:_:)`` then decodes first.
        let isEscaped: Bool
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var index = 0
    /// How deep ``skipValue()`` may nest: JSONDecoder's limit.
    static let maximumDepth = 512

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: Structure

    /// The kind of the next value, after whitespace.
    mutating func peekKind() throws(Failure) -> Kind {
        switch try peekByte() {
        case UInt8(ascii: "{"): .object
        case UInt8(ascii: "["): .array
        case UInt8(ascii: "\""): .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): .bool
        case UInt8(ascii: "n"): .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): .number
        default: throw fail("unexpected character")
        }
    }

    /// Consumes `{`.
    mutating func enterObject() throws(Failure) {
        guard try peekByte() == UInt8(ascii: "{") else { throw fail("expected an object") }
        index += 1
    }

    /// The next member's name (its `:` consumed), or `nil` at the object's end (its `}` consumed). `first` is
    /// whether no member was read yet.
    mutating func nextKey(first: Bool) throws(Failure) -> Key? {
        var byte = try peekByte()
        if byte == UInt8(ascii: "}") {
            index += 1
            return nil
        }
        if !first {
            guard byte == UInt8(ascii: ",") else { throw fail("expected ',' or '}'") }
            index += 1
            byte = try peekByte()
        }
        guard byte == UInt8(ascii: "\"") else { throw fail("expected a member name") }
        let (start, end, isEscaped) = try stringBounds()
        guard try peekByte() == UInt8(ascii: ":") else { throw fail("expected ':'") }
        index += 1
        return Key(start: start, end: end, isEscaped: isEscaped)
    }

    /// Consumes `[`.
    mutating func enterArray() throws(Failure) {
        guard try peekByte() == UInt8(ascii: "[") else { throw fail("expected an array") }
        index += 1
    }

    /// Whether another element follows (its `,` consumed), or the array ended (its `]` consumed).
    mutating func hasNextElement(first: Bool) throws(Failure) -> Bool {
        let byte = try peekByte()
        if byte == UInt8(ascii: "]") {
            index += 1
            return false
        }
        if !first {
            guard byte == UInt8(ascii: ",") else { throw fail("expected ',' or ']'") }
            index += 1
        }
        return true
    }

    /// Checks that nothing but whitespace follows the document's value.
    mutating func finish() throws(Failure) {
        skipWhitespace()
        guard index == bytes.count else { throw fail("text after the value") }
    }

    /// Whether `key` is `name`.
    func matches(_ key: Key, _ name: StaticString) -> Bool {
        let length = name.utf8CodeUnitCount
        if !key.isEscaped {
            guard key.end - key.start == length, let base = bytes.baseAddress else { return false }
            return memcmp(base + key.start, name.utf8Start, length) == 0
        }
        guard let decoded = try? unescaped(key.start, key.end) else { return false }
        return decoded.utf8.elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: length))
    }

    // MARK: Values

    /// Reads a string.
    mutating func readString() throws(Failure) -> String {
        guard try peekByte() == UInt8(ascii: "\"") else { throw fail("expected a string") }
        let (start, end, isEscaped) = try stringBounds()
        if isEscaped { return try unescaped(start, end) }
        guard let text = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) else {
            throw Failure(offset: start, reason: "a string that is not UTF-8")
        }
        return text
    }

    /// Consumes `null` if it comes next.
    mutating func skipNull() throws(Failure) -> Bool {
        guard try peekByte() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    /// Skips the next value, checking its syntax.
    mutating func skipValue() throws(Failure) {
        try skipValue(depth: 0)
    }

    private mutating func skipValue(depth: Int) throws(Failure) {
        guard depth < Self.maximumDepth else { throw fail("nested too deeply") }
        switch try peekKind() {
        case .object:
            index += 1
            var first = true
            while try nextKey(first: first) != nil {
                first = false
                try skipValue(depth: depth + 1)
            }
        case .array:
            index += 1
            var first = true
            while try hasNextElement(first: first) {
                first = false
                try skipValue(depth: depth + 1)
            }
        case .string:
            _ = try stringBounds()
        case .number:
            try skipNumber()
        case .bool:
            try literal(bytes[index] == UInt8(ascii: "t") ? "true" : "false")
        case .null:
            try literal("null")
        }
    }

    // MARK: Tokens

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func peekByte() throws(Failure) -> UInt8 {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end") }
        return bytes[index]
    }

    private func fail(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let length = word.utf8CodeUnitCount
        guard index + length <= bytes.count, let base = bytes.baseAddress,
            memcmp(base + index, word.utf8Start, length) == 0
        else { throw fail("expected \(word)") }
        index += length
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func skipNumber() throws(Failure) {
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        func digits() throws(Failure) {
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            try digits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            try digits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            try digits()
        }
    }

    /// Consumes a string token at `"`; returns the bounds of its content and whether it holds an escape.
    private mutating func stringBounds() throws(Failure) -> (Int, Int, Bool) {
        index += 1
        let start = index
        var isEscaped = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return (start, index - 1, isEscaped)
            }
            if byte == UInt8(ascii: "\\") {
                isEscaped = true
                index += 2
                continue
            }
            guard byte >= 0x20 else { throw fail("a control character in a string") }
            index += 1
        }
        throw Failure(offset: start, reason: "an unterminated string")
    }

    /// The text of a string's content with its escapes decoded (RFC 8259 §7).
    private func unescaped(_ start: Int, _ end: Int) throws(Failure) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(end - start)
        var position = start
        func hex(_ at: Int) throws(Failure) -> UInt32 {
            guard at + 4 <= end else { throw Failure(offset: at, reason: "a short \\u escape") }
            var value: UInt32 = 0
            for byte in bytes[at..<(at + 4)] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw Failure(offset: at, reason: "a bad \\u escape")
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while position < end {
            // The run up to the next escape, at once.
            var run = position
            while run < end, bytes[run] != UInt8(ascii: "\\") { run += 1 }
            if run > position {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<run]))
                position = run
                continue
            }
            guard position + 1 < end else { throw Failure(offset: position, reason: "a bad escape") }
            let escape = bytes[position + 1]
            position += 2
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escape)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var value = try hex(position)
                position += 4
                if (0xD800...0xDBFF).contains(value) {
                    // A high surrogate must be followed by an escaped low one.
                    guard position + 6 <= end, bytes[position] == UInt8(ascii: "\\"),
                        bytes[position + 1] == UInt8(ascii: "u")
                    else { throw Failure(offset: position, reason: "a lone surrogate") }
                    let low = try hex(position + 2)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw Failure(offset: position, reason: "a lone surrogate")
                    }
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                    position += 6
                }
                guard let scalar = Unicode.Scalar(value) else {
                    throw Failure(offset: position, reason: "a lone surrogate")
                }
                output.append(contentsOf: String(scalar).utf8)
            default:
                throw Failure(offset: position - 1, reason: "a bad escape")
            }
        }
        guard let text = String(validating: output, as: UTF8.self) else {
            throw Failure(offset: start, reason: "a string that is not UTF-8")
        }
        return text
    }
}
