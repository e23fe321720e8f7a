/// Finds groups of phrases in a text, comparing whole tokens so that "ice" (the train) is not found in "nice".
///
/// Latin-script phrases are cut into tokens like the text and compared token by token, folded; Chinese and
/// Japanese phrases are searched inside the text's Chinese and Japanese tokens.
struct FlightPhraseMatcher: Sendable {
    private var latin: [String: [(tokens: [String], group: Int)]] = [:]
    private var cjk: FlightCJKIndex<Int>
    /// The flag of ``FlightLexicon`` that marks the first words of the phrases; empty to look every token up.
    private let start: FlightLexeme

    /// The first words of the Latin-script phrases, folded.
    var firstWords: Dictionary<String, [(tokens: [String], group: Int)]>.Keys { latin.keys }

    /// Creates a matcher for groups of phrases.
    ///
    /// - Parameters:
    ///   - groups: The phrases, by group.
    ///   - start: The flag ``FlightLexicon`` gives the phrases' first words.
    init(_ groups: [[String]], start: FlightLexeme = []) {
        self.start = start
        var cjkPhrases: [(word: String, value: Int)] = []
        for (group, phrases) in groups.enumerated() {
            for phrase in phrases {
                if FlightText.containsCJK(phrase) {
                    cjkPhrases.append((phrase, group))
                    continue
                }
                let tokens = FlightText(phrase, classified: false).tokens.map(\.folded)
                guard let first = tokens.first else { continue }
                latin[first, default: []].append((tokens, group))
            }
        }
        cjk = FlightCJKIndex(cjkPhrases)
    }

    /// The indices of the groups that have a phrase in the text.
    func groups(in text: FlightText) -> Set<Int> {
        var found = Set<Int>()
        let tokens = text.tokens
        for index in tokens.indices {
            guard start.isEmpty || tokens[index].lexemes.contains(start),
                let candidates = latin[tokens[index].folded]
            else { continue }
            for candidate in candidates where !found.contains(candidate.group) {
                guard index + candidate.tokens.count <= tokens.count else { continue }
                var matches = true
                for (offset, word) in candidate.tokens.enumerated().dropFirst()
                where tokens[index + offset].folded != word {
                    matches = false
                    break
                }
                if matches { found.insert(candidate.group) }
            }
        }
        if !cjk.isEmpty, text.hasCJK {
            for match in cjk.matches(in: text) { found.insert(match.value) }
        }
        return found
    }
}
