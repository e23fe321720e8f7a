/// Words written in Chinese or Japanese script, indexed by their first character, found inside the Chinese and
/// Japanese tokens of a text (those languages write no spaces between words).
struct FlightCJKIndex<Value: Sendable>: Sendable {
    /// The words by their first scalar, longest first; each word as scalars.
    private var entries: [UInt32: [(scalars: [Unicode.Scalar], value: Value)]] = [:]

    /// Creates an index; where two words start at the same place in a text, the longer one is found.
    init(_ words: [(word: String, value: Value)]) {
        for entry in words.sorted(by: { $0.word.unicodeScalars.count > $1.word.unicodeScalars.count }) {
            let scalars = Array(entry.word.unicodeScalars)
            guard let first = scalars.first else { continue }
            entries[first.value, default: []].append((scalars, entry.value))
        }
    }

    /// Whether the index holds no word.
    var isEmpty: Bool { entries.isEmpty }

    /// The words of the index in the text, in order and without overlaps.
    /// The words of the index in the text, in order and without overlaps.
    func matches(in text: FlightText) -> [(value: Value, range: Range<String.Index>)] {
        var found: [(value: Value, range: Range<String.Index>)] = []
        guard !entries.isEmpty, text.hasCJK else { return found }
        for token in text.tokens where token.isCJK {
            let scalars = token.text.unicodeScalars
            var index = scalars.startIndex
            while index < scalars.endIndex {
                var next = scalars.index(after: index)
                for entry in entries[scalars[index].value] ?? [] where scalars[index...].starts(with: entry.scalars) {
                    let end = scalars.index(index, offsetBy: entry.scalars.count)
                    found.append((entry.value, index..<end))
                    next = end
                    break
                }
                index = next
            }
        }
        return found
    }

    func first(in text: FlightText) -> (value: Value, range: Range<String.Index>)? {
        guard !entries.isEmpty, text.hasCJK else { return nil }
        return matches(in: text).first
    }
}
