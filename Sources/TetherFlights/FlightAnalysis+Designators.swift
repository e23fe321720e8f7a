import Foundation

extension FlightAnalysis {
    // MARK: - Designators

    /// The airline designators with flight numbers in a text, in order.
    func designators(in text: FlightText) -> [Designator] {
        let tokens = text.tokens
        var found: [Designator] = []
        var index = 0
        while index < tokens.count {
            defer { index += 1 }
            let token = tokens[index]
            guard token.isWord, !token.isCJK else { continue }
            let bytes = Array(token.text.utf8)
            var code: String
            var digits: Substring
            var last = index
            var isWeak = false
            if bytes.count == 2, Self.isDesignator(bytes) {
                guard index + 1 < tokens.count, tokens[index + 1].isNumber, tokens[index + 1].isSpaced,
                    (1...4).contains(tokens[index + 1].text.utf8.count)
                else { continue }
                code = String(token.text)
                digits = tokens[index + 1].text
                last = index + 1
                isWeak = digits.utf8.count == 1
            } else if (3...6).contains(bytes.count), Self.isDesignator(bytes[0..<2]),
                bytes[2...].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            {
                guard !FlightVocabulary.isAircraftModel(token.text) else { continue }
                code = String(token.text.prefix(2))
                digits = token.text.dropFirst(2)
            } else if let icao = Self.icaoFlight(tokens, at: index) {
                // "EZY8868", "KLM 643": the airline's ICAO code, reported with its IATA designator.
                (code, digits, last) = icao
            } else {
                continue
            }
            guard data.isAirlineCode(code), let number = Int(digits), number > 0 else { continue }
            // A designator no airline flies under today is more often a code of something else: weaker evidence.
            if data.airlines[code] == nil { isWeak = true }

            // What comes before: "Room B12", "SKU LH400", "#UA857", "10 AM 12".
            if index > 0 {
                let previous = tokens[index - 1]
                if !previous.isWord, !token.isSpaced, previous.isSymbol(in: "-#/._@+&=") { continue }
                if let word = previousWord(tokens, before: index) {
                    if FlightVocabulary.codePrefixes.contains(word.folded) { continue }
                    if code == "AM" || code == "PM", word.isNumber, !token.startsLine { continue }
                }
            }
            // What comes after: "857abc", "2.14", "1:30", "815 2345", "A320-200", "1234 firmware".
            if last + 1 < tokens.count {
                let next = tokens[last + 1]
                if next.isWord, !next.isSpaced, !next.isCJK { continue }
                if !next.isWord, !next.isSpaced, next.isSymbol(in: ".,:-/"), last + 2 < tokens.count,
                    tokens[last + 2].isNumber, !tokens[last + 2].isSpaced
                {
                    continue
                }
                // "815 2345" is a phone number; "OS 128   06:55" is a flight and its departure time.
                // "AZ 1637    18 FEB 2019": a date after the number.
                if next.isNumber, next.isSpaced, !next.startsLine, next.text.utf8.count >= 2,
                    !(last + 3 < tokens.count && tokens[last + 2].text == ":" && tokens[last + 3].isNumber),
                    !(last + 2 < tokens.count && FlightVocabulary.monthWords.contains(tokens[last + 2].folded))
                {
                    continue
                }
                // "CS101 class"; not "UA1153      Class: Economy", a column of its own.
                if let word = nextWord(tokens, after: last), FlightVocabulary.codeSuffixes.contains(word.folded),
                    !word.startsLine, !Self.isColumnApart(tokens[last], word)
                {
                    continue
                }
            }
            found.append(Designator(airline: code, number: number, tokens: index...last, isWeak: isWeak))
            index = last
        }
        return found
    }

    /// A flight number written with the airline's three-letter ICAO code ("EZY8868", "KLM 643"): the IATA
    /// designator, the digits and the index of the last token.
    static func icaoFlight(_ tokens: [FlightText.Token], at index: Int) -> (String, Substring, Int)? {
        let token = tokens[index]
        guard token.isWord, let first = token.text.utf8.first, first >= 0x41, first <= 0x5A,
            (3...7).contains(token.text.utf8.count)
        else { return nil }
        let prefix = token.text.prefix(3)
        guard prefix.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }),
            let designator = FlightVocabulary.icaoAirlines[String(prefix)]
        else { return nil }
        let rest = token.text.dropFirst(3)
        if !rest.isEmpty {
            guard (1...4).contains(rest.utf8.count), rest.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                return nil
            }
            return (designator, rest, index)
        }
        guard index + 1 < tokens.count, tokens[index + 1].isNumber, tokens[index + 1].isSpaced,
            !tokens[index + 1].startsLine, (1...4).contains(tokens[index + 1].text.utf8.count)
        else { return nil }
        return (designator, tokens[index + 1].text, index + 1)
    }

    /// Whether two or more characters have the shape of an IATA designator: upper-case letters and digits, at
    /// least one letter.
    static func isDesignator(_ bytes: some Collection<UInt8>) -> Bool {
        var hasLetter = false
        for byte in bytes {
            switch byte {
            case 0x41...0x5A: hasLetter = true
            case 0x30...0x39: continue
            default: return false
            }
        }
        return hasLetter
    }

    func previousWord(_ tokens: [FlightText.Token], before index: Int) -> FlightText.Token? {
        var position = index - 1
        while position >= 0, position >= index - 3 {
            if tokens[position].isWord { return tokens[position] }
            if !tokens[position].isSymbol(in: ":") { return nil }
            position -= 1
        }
        return nil
    }

    /// Whether a word stands three spaces or more after another, in a column of its own.
    static func isColumnApart(_ token: FlightText.Token, _ next: FlightText.Token) -> Bool {
        let gap = token.text.base.utf8[token.text.endIndex..<next.text.startIndex]
        return gap.count >= 3 && gap.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    }

    func nextWord(_ tokens: [FlightText.Token], after index: Int) -> FlightText.Token? {
        var position = index + 1
        while position < tokens.count, position <= index + 2 {
            if tokens[position].isWord { return tokens[position] }
            position += 1
        }
        return nil
    }

    // MARK: - Airline names

    /// An airline named in a text.
    struct NamedAirline {
        var code: String
        /// The flight number written after the name.
        var number: Int?
        /// Whether the name is that of an airline that no longer flies ("US Airways", "Alitalia").
        var isRetired = false
    }

    /// The first airline named in a text, with the flight number written after it ("United 912",
    /// "Alaska Airlines flight 1139", "US Airways(US) #403").
    func airlineName(in text: FlightText) -> NamedAirline? {
        let tokens = text.tokens
        if let match = data.cjkAirlineNames.first(in: text) {
            return NamedAirline(code: match.value, number: Self.cjkFlightNumber(in: text))
        }
        var index = 0
        var replaced: NamedAirline?
        while index < tokens.count {
            guard tokens[index].isWord, !tokens[index].isCJK, !tokens[index].isNumber,
                tokens[index].lexemes.contains(.airlineStart)
            else {
                index += 1
                continue
            }
            var words: [String] = []
            var positions: [Int] = []
            var position = index
            while position < tokens.count, words.count < data.longestNameWords, tokens[position].isWord,
                !tokens[position].isCJK
            {
                words.append(tokens[position].folded)
                positions.append(position)
                position += 1
                if position < tokens.count, tokens[position].isSymbol(in: ".'"), !tokens[position].isSpaced {
                    position += 1
                }
            }
            for count in stride(from: words.count, to: 0, by: -1) {
                let key = words[0..<count].joined(separator: " ")
                guard let code = data.airlineNames[key] else { continue }
                // Single common words ("United", "Delta", "Swiss") count only when written with a capital.
                if count == 1, !tokens[index].isCapitalized { continue }
                let named = NamedAirline(
                    code: code,
                    number: flightNumber(in: tokens, after: positions[count - 1], code: code),
                    isRetired: data.retiredAirlineNames.contains(key)
                )
                // A schedule change names the replaced flight first: the new one follows.
                guard named.number != nil, isReplaced(at: index, in: text) else { return named }
                replaced = replaced ?? named
                break
            }
            index += 1
        }
        return replaced
    }

    /// A flight number written the Japanese and Chinese way, digits before 便 ("305便").
    static func cjkFlightNumber(in text: FlightText) -> Int? {
        let tokens = text.tokens
        for index in tokens.indices.dropLast() where tokens[index].isNumber && !tokens[index + 1].isSpaced {
            guard tokens[index + 1].isCJK, tokens[index + 1].text.first == "便",
                (1...4).contains(tokens[index].text.utf8.count)
            else { continue }
            return Int(tokens[index].text)
        }
        return nil
    }

    /// The number after an airline's name: "United 912", "Airlines flight 1139", "Airlines, Flight number 5",
    /// "US Airways(US) #403", "Eurowings\nFlugnummer: 8462".
    func flightNumber(in tokens: [FlightText.Token], after index: Int, code: String) -> Int? {
        var position = index + 1
        var steps = 0
        while position < tokens.count, steps < 6 {
            let token = tokens[position]
            if token.isNumber {
                let count = token.text.utf8.count
                return (1...4).contains(count) ? Int(token.text) : nil
            }
            if token.isWord {
                guard !token.lexemes.isDisjoint(with: [.flightWord, .numberWord]) || token.text == code
                else { return nil }
            } else if !token.isSymbol(in: "():#,.-–°º") {
                return nil
            }
            position += 1
            steps += 1
        }
        return nil
    }
}
