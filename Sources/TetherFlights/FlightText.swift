import Foundation

/// One field of an event (title, description or location), normalized and cut into tokens.
struct FlightText: Sendable {
    /// A run of letters and digits, or a single other character.
    struct Token: Sendable {
        /// The token's text after width folding (full-width letters and digits become ASCII).
        var text: Substring
        /// The text in lower case without diacritics (`Zürich` becomes `zurich`).
        var folded: String
        /// Whether the token is a run of letters and digits (a word or a number).
        var isWord: Bool
        /// Whether white space separates the token from the one before it.
        var isSpaced: Bool
        /// Whether a line break separates the token from the one before it.
        var startsLine: Bool
        /// Whether the token is written in Chinese or Japanese script.
        var isCJK: Bool
        /// What the word is in the detector's word lists; empty for a text read without them.
        var lexemes: FlightLexeme = []

        /// Whether the token is a single symbol among `symbols`.
        func isSymbol(in symbols: String) -> Bool {
            !isWord && text.count == 1 && text.first.map(symbols.contains) == true
        }

        /// Whether every character is an ASCII digit.
        var isNumber: Bool { isWord && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        /// Whether every character is an ASCII upper-case letter.
        var isUpperASCII: Bool { isWord && text.utf8.allSatisfy { $0 >= 0x41 && $0 <= 0x5A } }
        /// Whether the first character is an upper-case letter (or a CJK character, which has no case).
        var isCapitalized: Bool { isCJK || (text.first?.isUppercase ?? false) }
    }

    /// The longest text read from one field; the rest of a huge description is ignored.
    static let maximumLength = 20_000

    /// The normalized text.
    let text: String
    /// The tokens of ``text``.
    let tokens: [Token]
    /// Whether a token is written in Chinese or Japanese script.
    let hasCJK: Bool

    /// Reads a field.
    ///
    /// - Parameters:
    ///   - raw: The field's text.
    ///   - classified: Whether to look each word up in the detector's word lists (``FlightLexicon``); the
    ///     lists themselves are read without.
    init(_ raw: String?, classified: Bool = true) {
        var raw = raw ?? ""
        if raw.utf8.count > Self.maximumLength {
            raw = String(raw.prefix(Self.maximumLength))
        }
        // Full-width letters, digits and punctuation (common in Chinese and Japanese text) become ASCII.
        let text = raw.utf8.allSatisfy { $0 < 0x80 } ? raw : Self.narrowed(raw)
        self.text = text
        var tokens = Self.tokenize(text)
        if classified {
            let lexicon = FlightLexicon.shared
            for index in tokens.indices where tokens[index].isWord && !tokens[index].isCJK {
                tokens[index].lexemes = lexicon[tokens[index].folded] ?? []
            }
        }
        self.tokens = tokens
        self.hasCJK = tokens.contains(where: \.isCJK)
    }

    /// A part of a text: some of its tokens.
    init(tokens: [Token], of text: FlightText) {
        self.text = text.text
        self.tokens = tokens
        self.hasCJK = tokens.contains(where: \.isCJK)
    }

    /// Replaces full-width ASCII forms (U+FF01 to U+FF5E) and the ideographic space with their ASCII counterparts.
    private static func narrowed(_ string: String) -> String {
        guard string.unicodeScalars.contains(where: { $0.value == 0x3000 || (0xFF01...0xFF5E).contains($0.value) })
        else { return string }
        var scalars = String.UnicodeScalarView()
        for scalar in string.unicodeScalars {
            switch scalar.value {
            case 0x3000: scalars.append(" ")
            case 0xFF01...0xFF5E: scalars.append(Unicode.Scalar(scalar.value - 0xFEE0) ?? scalar)
            default: scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// Lower-cases a string and removes the diacritics of Latin letters (`Zürich` becomes `zurich`).
    static func fold(_ string: some StringProtocol) -> String {
        let lower = string.lowercased()
        guard !lower.utf8.allSatisfy({ $0 < 0x80 }) else { return lower }
        var result = String.UnicodeScalarView()
        for scalar in lower.unicodeScalars {
            if (0x300...0x36F).contains(scalar.value) { continue }
            if let base = baseLetters[scalar.value] {
                result.append(contentsOf: base.unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// Latin letters with diacritics (lower case) and the letters they are written with.
    private static let baseLetters: [UInt32: String] = [
        0xE0: "a", 0xE1: "a", 0xE2: "a", 0xE3: "a", 0xE4: "a", 0xE5: "a", 0xE7: "c", 0xE8: "e", 0xE9: "e", 0xEA: "e",
        0xEB: "e", 0xEC: "i", 0xED: "i", 0xEE: "i", 0xEF: "i", 0xF1: "n", 0xF2: "o", 0xF3: "o", 0xF4: "o", 0xF5: "o",
        0xF6: "o", 0xF9: "u", 0xFA: "u", 0xFB: "u", 0xFC: "u", 0xFD: "y", 0xFF: "y", 0x101: "a", 0x103: "a",
        0x105: "a", 0x107: "c", 0x109: "c", 0x10B: "c", 0x10D: "c", 0x10F: "d", 0x113: "e", 0x115: "e", 0x117: "e",
        0x119: "e", 0x11B: "e", 0x11D: "g", 0x11F: "g", 0x121: "g", 0x123: "g", 0x125: "h", 0x129: "i", 0x12B: "i",
        0x12D: "i", 0x12F: "i", 0x135: "j", 0x137: "k", 0x13A: "l", 0x13C: "l", 0x13E: "l", 0x144: "n", 0x146: "n",
        0x148: "n", 0x14D: "o", 0x14F: "o", 0x151: "o", 0x155: "r", 0x157: "r", 0x159: "r", 0x15B: "s", 0x15D: "s",
        0x15F: "s", 0x161: "s", 0x163: "t", 0x165: "t", 0x169: "u", 0x16B: "u", 0x16D: "u", 0x16F: "u", 0x171: "u",
        0x173: "u", 0x175: "w", 0x177: "y", 0x17A: "z", 0x17C: "z", 0x17E: "z", 0x1A1: "o", 0x1B0: "u", 0x1CE: "a",
        0x1D0: "i", 0x1D2: "o", 0x1D4: "u", 0x1D6: "u", 0x1D8: "u", 0x1DA: "u", 0x1DC: "u", 0x1DF: "a", 0x1E1: "a",
        0x1E7: "g", 0x1E9: "k", 0x1EB: "o", 0x1ED: "o", 0x1F0: "j", 0x1F5: "g", 0x1F9: "n", 0x1FB: "a", 0x201: "a",
        0x203: "a", 0x205: "e", 0x207: "e", 0x209: "i", 0x20B: "i", 0x20D: "o", 0x20F: "o", 0x211: "r", 0x213: "r",
        0x215: "u", 0x217: "u", 0x219: "s", 0x21B: "t", 0x21F: "h", 0x227: "a", 0x229: "e", 0x22B: "o", 0x22D: "o",
        0x22F: "o", 0x231: "o", 0x233: "y",
    ]

    /// The key under which a name is indexed: its words folded and joined by single spaces.
    static func nameKey(_ name: String) -> String {
        tokenize(name).filter(\.isWord).map(\.folded).joined(separator: " ")
    }

    /// Whether a string contains Chinese or Japanese characters.
    static func containsCJK(_ string: some StringProtocol) -> Bool {
        string.unicodeScalars.contains(where: isCJK)
    }

    /// Whether a scalar is a Han, Hiragana or Katakana character.
    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x2FA1F: true
        default: false
        }
    }

    private static func tokenize(_ text: String) -> [Token] {
        var tokens: [Token] = []
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        var spaced = false
        var newLine = true
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let kind = Self.kind(of: scalar)
            if kind == .space {
                spaced = true
                if scalar == "\n" || scalar == "\r" || scalar == "\u{2028}" || scalar == "\u{85}" { newLine = true }
                index = scalars.index(after: index)
                continue
            }
            let start = index
            index = scalars.index(after: index)
            let isWord = kind == .word || kind == .cjk
            if isWord {
                while index < scalars.endIndex {
                    let next = Self.kind(of: scalars[index])
                    // Marks stay with their letter; Chinese and Japanese text has no spaces, so the word ends
                    // where the script changes ("JL005便" gives "JL005" and "便").
                    guard next == kind || next == .mark else { break }
                    index = scalars.index(after: index)
                }
            } else {
                // A symbol keeps its variation selectors and joiners ("✈️").
                while index < scalars.endIndex, Self.kind(of: scalars[index]) == .mark {
                    index = scalars.index(after: index)
                }
            }
            let piece = text[start..<index]
            // A quoted line of a forwarded or answered email ("> From: Bangkok"): the line starts after the marks.
            if newLine, piece == ">", index < scalars.endIndex, Self.kind(of: scalars[index]) == .space {
                spaced = true
                continue
            }
            tokens.append(
                Token(
                    text: piece,
                    folded: isWord ? fold(piece) : String(piece),
                    isWord: isWord,
                    isSpaced: spaced,
                    startsLine: newLine,
                    isCJK: kind == .cjk
                )
            )
            spaced = false
            newLine = false
        }
        return tokens
    }

    private enum ScalarKind {
        case space, word, cjk, mark, symbol
    }

    private static func kind(of scalar: Unicode.Scalar) -> ScalarKind {
        let value = scalar.value
        if value < 0x80 {
            switch value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return .word
            case 0x09...0x0D, 0x20: return .space
            default: return .symbol
            }
        }
        if isCJK(scalar) { return .cjk }
        // Circled and parenthesised numbers number a list ("①NH256"): symbols, not digits of a word.
        if (0x2460...0x24FF).contains(value) || (0x2776...0x2793).contains(value) { return .symbol }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .format: return .mark
        case .spaceSeparator, .lineSeparator, .paragraphSeparator: return .space
        default: break
        }
        if value == 0x85 { return .space }
        if value >= 0xFE00 && value <= 0xFE0F { return .mark }
        return properties.isAlphabetic || properties.numericType != nil ? .word : .symbol
    }
}
