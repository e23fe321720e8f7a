/// Words written in Chinese or Japanese script, indexed by their first character, found inside the Chinese and
/// Japanese tokens of a text (those languages write no spaces between words).
struct FlightCJKIndex<Value: Sendable>: Sendable {
    private var entries: [Character: [(word: String, value: Value)]] = [:]

    /// Creates an index; where two words start at the same place in a text, the longer one is found.
    init(_ words: [(word: String, value: Value)]) {
        for entry in words.sorted(by: { $0.word.count > $1.word.count }) {
            guard let first = entry.word.first else { continue }
            entries[first, default: []].append(entry)
        }
    }

    /// Whether the index holds no word.
    var isEmpty: Bool { entries.isEmpty }

    /// The words of the index in the text, in order and without overlaps.
    func matches(in text: FlightText) -> [(value: Value, range: Range<String.Index>)] {
        var found: [(value: Value, range: Range<String.Index>)] = []
        guard !entries.isEmpty else { return found }
        for token in text.tokens where token.isCJK {
            var index = token.text.startIndex
            while index < token.text.endIndex {
                var next = token.text.index(after: index)
                for entry in entries[token.text[index]] ?? [] where token.text[index...].starts(with: entry.word) {
                    let end = token.text.index(index, offsetBy: entry.word.count)
                    found.append((entry.value, index..<end))
                    next = end
                    break
                }
                index = next
            }
        }
        return found
    }

    /// The first word of the index in the text.
    func first(in text: FlightText) -> (value: Value, range: Range<String.Index>)? {
        guard !entries.isEmpty, text.tokens.contains(where: \.isCJK) else { return nil }
        return matches(in: text).first
    }
}
