import Foundation

extension FlightAnalysis {
    // MARK: - Places and routes

    /// Whether a token is an airport code of the reference data ("SFO"), not a business acronym ("CEO").
    func isAirportCode(_ token: FlightText.Token) -> Bool {
        token.text.utf8.count == 3 && token.isUpperASCII && data.isAirportCode(String(token.text))
            && !FlightVocabulary.notAirportCodes.contains(String(token.text))
    }

    /// A route written with airport codes: "SFO → PEK", "FRA-JFK", "SFO to PEK", "DUB > BOS".
    func codeRoute(in text: FlightText) -> (from: String, to: String, weight: Double)? {
        let tokens = text.tokens
        for index in tokens.indices where isAirportCode(tokens[index]) {
            var position = index + 1
            var weight = 0.0
            while position < tokens.count, position <= index + 3, !isAirportCode(tokens[position]) {
                let token = tokens[position]
                if FlightVocabulary.arrows.contains(String(token.text)) {
                    weight = 0.45
                } else if FlightVocabulary.dashes.contains(String(token.text)) {
                    weight = max(weight, 0.35)
                } else if token.isWord, FlightVocabulary.toWords.contains(token.folded) {
                    weight = max(weight, 0.4)
                } else if token.text != "\u{FE0F}" {
                    weight = 0
                    break
                }
                position += 1
            }
            guard weight > 0, position < tokens.count, isAirportCode(tokens[position]),
                tokens[position].text != tokens[index].text
            else { continue }
            return (String(tokens[index].text), String(tokens[position].text), weight)
        }
        return nil
    }

    /// The places named in Latin script in a text, longest name first: "London Heathrow", "Los Angeles",
    /// "Paris-Orly", and an airport code in brackets after a name ("Frankfurt (FRA)") makes it precise.
    func places(in text: FlightText, capitalizedOnly: Bool) -> [Place] {
        let tokens = text.tokens
        var found: [Place] = []
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            guard token.isWord, !token.isCJK, !token.isNumber, !capitalizedOnly || token.isCapitalized,
                token.lexemes.contains(.placeStart)
            else {
                index += 1
                continue
            }
            var words: [String] = []
            var positions: [Int] = []
            var position = index
            while position < tokens.count, words.count < data.longestNameWords {
                let current = tokens[position]
                if current.isWord, !current.isCJK {
                    words.append(current.folded)
                    positions.append(position)
                    position += 1
                } else if !current.isSpaced, current.isSymbol(in: "-'’./"), position + 1 < tokens.count,
                    tokens[position + 1].isWord, !tokens[position + 1].isSpaced, !words.isEmpty
                {
                    position += 1
                } else {
                    break
                }
            }
            var matched = false
            // "Jeju Air", "DELTA", "Brussels Airlines", "GOL": an airline's name is no place.
            var airlineWords: Int?
            for count in stride(from: words.count, to: 0, by: -1) {
                let key = words[0..<count].joined(separator: " ")
                guard let code = data.places[key] else { continue }
                // "Salida", "Van", "Arrivo": a word of a label or a connector is no place on its own.
                if count == 1, !token.lexemes.isDisjoint(with: Self.vocabularyWords) { continue }
                if airlineWords == nil {
                    airlineWords = token.lexemes.contains(.airlineStart) ? airlineNameLength(at: index, in: tokens) : 0
                }
                if let airlineWords, airlineWords >= count {
                    index += airlineWords
                    matched = true
                    break
                }
                var place = Place(code: code, tokens: index...positions[count - 1])
                if data.airports[code] != nil, data.cityKey(code) != key {
                    place.isAirportName = true
                }
                // "Mailand-Malpensa", "Paris-Charles de Gaulle", "Milano-Linate": a city joined by a hyphen to
                // one of its country's airports is that airport.
                if count < words.count, tokens[positions[count] - 1].isSymbol(in: "-/"),
                    !tokens[positions[count]].isSpaced || !tokens[positions[count] - 1].isSpaced
                {
                    for rest in stride(from: words.count - count, to: 0, by: -1) {
                        let airportKey = words[count..<(count + rest)].joined(separator: " ")
                        guard let airport = data.places[airportKey], data.airports[airport] != nil,
                            airport != code,
                            data.airport(airport)?.countryCode == data.airport(code)?.countryCode,
                            data.cityKey(airport) != airportKey
                        else { continue }
                        place = Place(code: airport, isAirportName: true, tokens: index...positions[count + rest - 1])
                        break
                    }
                }
                refine(&place, tokens: tokens)
                // "Buenos Aires - Aeroparque", "Bangkok (Don Mueang)", "Londra Heathrow": a city, then one of its
                // airports, is that airport.
                if place.isAirportName, let last = found.last, !last.isAirportName, !isAirportCode(token),
                    isCity(last.code, of: place.code),
                    tokens[(last.tokens.upperBound + 1)..<index].allSatisfy({ !$0.isWord && !$0.startsLine }),
                    index - last.tokens.upperBound <= 2, !tokens[index].startsLine
                {
                    var end = place.tokens.upperBound
                    if tokens[index - 1].text == "(", end + 1 < tokens.count, tokens[end + 1].text == ")" { end += 1 }
                    place.tokens = last.tokens.lowerBound...end
                    found.removeLast()
                }
                found.append(place)
                index = place.tokens.upperBound + 1
                matched = true
                break
            }
            if !matched { index += 1 }
        }
        return found
    }

    /// The words of the detector's vocabulary that also name a small place: labels, connectors, flight words.
    static let vocabularyWords: FlightLexeme = [
        .flightWord, .flyWord, .toWord, .fromWord, .departureLabel, .arrivalLabel, .numberWord,
    ]

    /// Whether a place read from a city's name is the city of an airport: a metropolitan area it belongs to, or
    /// the same city.
    func isCity(_ city: String, of airport: String) -> Bool {
        if city == airport { return true }
        if let area = data.metropolitanAreas[city] { return area.members.contains(airport) }
        let key = data.cityKey(city)
        return !key.isEmpty && key == data.cityKey(airport)
            && data.airports[city]?.countryCode == data.airports[airport]?.countryCode
    }

    /// Replaces a city by the airport written after it in brackets: "London (LHR)", "大阪（伊丹）".
    func refine(_ place: inout Place, tokens: [FlightText.Token]) {
        let open = place.tokens.upperBound + 1
        guard open + 2 < tokens.count, tokens[open].text == "(", tokens[open + 2].text == ")" else { return }
        let inner = tokens[open + 1]
        if isAirportCode(inner) {
            place.code = String(inner.text)
            place.isAirportName = data.airports[place.code] != nil
            place.tokens = place.tokens.lowerBound...(open + 2)
        }
    }

    /// A route written with names joined by an arrow, a dash or "to": "London Heathrow to Los Angeles",
    /// "Barcelona - Madrid", "Nice → Paris-Orly".
    func placeRoute(in text: FlightText, places: [Place]) -> (from: String, to: String, weight: Double)? {
        let tokens = text.tokens
        for (first, second) in zip(places, places.dropFirst())
        where first.code != second.code && !isCity(first.code, of: second.code) {
            // "Dublin T1 to Lanzarote": a terminal after the first name.
            var between = tokens[(first.tokens.upperBound + 1)..<second.tokens.lowerBound]
            between = between.dropFirst(Self.terminalLength(between))
            guard !between.isEmpty, between.count <= 3 else { continue }
            let isJoined = between.allSatisfy { token in
                FlightVocabulary.arrows.contains(String(token.text))
                    || FlightVocabulary.dashes.contains(String(token.text))
                    || (token.isWord && FlightVocabulary.toWords.contains(token.folded)) || token.text == "\u{FE0F}"
            }
            if isJoined { return (first.code, second.code, first.isAirportName || second.isAirportName ? 0.45 : 0.3) }
        }
        return nil
    }

    /// The number of tokens at the start of a part of a text that name a terminal: "T1", "Terminal 2",
    /// "(Terminal 2)", "(T1)".
    static func terminalLength(_ part: ArraySlice<FlightText.Token>) -> Int {
        var position = part.startIndex
        let isBracketed = position < part.endIndex && part[position].text == "("
        if isBracketed { position += 1 }
        guard position < part.endIndex else { return 0 }
        if isTerminal(part[position]) {
            position += 1
        } else if part[position].folded == "terminal", position + 1 < part.endIndex, part[position + 1].isNumber {
            position += 2
        } else {
            return 0
        }
        if isBracketed {
            guard position < part.endIndex, part[position].text == ")" else { return 0 }
            position += 1
        }
        return position - part.startIndex
    }

    /// Whether a token names a terminal: "T1", "T5", "T4S".
    static func isTerminal(_ token: FlightText.Token) -> Bool {
        let bytes = Array(token.text.utf8)
        guard token.isWord, (2...3).contains(bytes.count), bytes[0] == UInt8(ascii: "T"), bytes[1] >= 0x31,
            bytes[1] <= 0x39
        else { return false }
        return bytes.count == 2 || (bytes[2] >= 0x41 && bytes[2] <= 0x5A)
    }

    /// ``cjkPlaces(in:)`` of a text, read once for the title and the description.
    func knownCJKPlaces(in text: FlightText) -> [(code: String, range: Range<String.Index>)] {
        guard text.hasCJK else { return [] }
        if text.text == description.text { return descriptionCJKPlaces }
        if text.text == title.text { return titleCJKPlaces }
        return cjkPlaces(in: text)
    }

    /// The places named in Chinese or Japanese script, in order, each with its range in the text; the longest
    /// name wins where names overlap ("上海浦东" over "上海").
    func cjkPlaces(in text: FlightText) -> [(code: String, range: Range<String.Index>)] {
        guard text.hasCJK else { return [] }
        let found = data.cjkPlaces.matches(in: text).map { (code: $0.value, range: $0.range) }
        // "大阪（伊丹）": the airport in brackets makes the city precise.
        var refined: [(code: String, range: Range<String.Index>)] = []
        for place in found {
            // "ソウル（仁川国際空港）": the airport words may stand before the closing bracket.
            var rest = text.text[place.range.upperBound...]
            for word in ["国際空港", "国际机场", "國際機場", "空港", "机场", "機場"] where rest.hasPrefix(word) {
                rest = rest.dropFirst(word.count)
                break
            }
            if let last = refined.last, text.text[last.range.upperBound..<place.range.lowerBound] == "(",
                rest.first == ")"
            {
                // "台北(松山)": a name in brackets that is another city's is read with the city before it.
                var code = place.code
                if !isCity(last.code, of: code) {
                    let joined = String(text.text[last.range]) + String(text.text[place.range])
                    if let whole = data.cjkPlaces.matches(in: FlightText(joined)).first,
                        whole.range.isEmpty == false, joined[whole.range] == joined[...]
                    {
                        code = whole.value
                    }
                }
                refined[refined.count - 1] = (code, last.range.lowerBound..<place.range.upperBound)
                continue
            }
            // "松本 大輔 様", "宮崎様": a family name, not a place.
            if Self.isPersonName(rest) { continue }
            refined.append(place)
        }
        return refined
    }

    /// Whether the text after a name says it is a person's: a given name, perhaps, then "様", "さん" or "先生".
    static func isPersonName(_ rest: Substring) -> Bool {
        var scalars = rest.unicodeScalars[...]
        func skipSpaces() {
            while let first = scalars.first, first == " " || first == "\u{3000}" { scalars.removeFirst() }
        }
        skipSpaces()
        var letters = 0
        while let first = scalars.first, letters < 4, FlightText.isCJK(first), !honorificStarts.contains(first) {
            scalars.removeFirst()
            letters += 1
        }
        skipSpaces()
        guard let first = scalars.first, honorificStarts.contains(first) else { return false }
        let next = scalars.dropFirst().first
        switch first {
        case "様": return true
        case "さ": return next == "ん" || next == "ま"
        default: return next == "生"
        }
    }

    /// The first characters of the honorifics after a person's name: 様, さん, さま, 先生.
    private static let honorificStarts: Set<Unicode.Scalar> = ["様", "さ", "先"]

    /// A route written in Chinese or Japanese: "羽田→那覇", "上海→北京", "深圳飞上海", "虹桥-首都".
    func cjkRoute(in text: FlightText) -> (from: String, to: String, weight: Double)? {
        let found = knownCJKPlaces(in: text)
        for (first, second) in zip(found, found.dropFirst()) where first.code != second.code {
            var between = String(text.text[first.range.upperBound..<second.range.lowerBound].filter { $0 != " " })
            // "東京(羽田)－台北(松山)": the bracket that closes the first name.
            if between.hasPrefix(")") { between.removeFirst() }
            // "成田T3 → 新千歳": a terminal after the first name.
            if between.hasPrefix("T"), between.dropFirst().first?.isNumber == true {
                between = String(between.dropFirst(2).drop { $0.isUppercase })
            }
            if ["→", "->", "-", "—", "–", "~", "〜", "～", "⇒", "✈", "✈️", ">", "飞", "飛", "至", "到", "发往", "から"].contains(
                between
            ) {
                return (first.code, second.code, 0.3)
            }
        }
        return nil
    }

    /// The destination and origin a title names with a connector: "Flight to Tokyo", "Vuelo a Madrid",
    /// "Rückflug aus Lissabon", "Voo para o Rio", "東京行き", "札幌へ", "飞往北京".
    func connectedPlaces(in text: FlightText, places: [Place]) -> (from: String?, to: String?) {
        var from: String?
        var to: String?
        let tokens = text.tokens
        for place in places {
            var position = place.tokens.lowerBound - 1
            if position >= 0, tokens[position].isWord, FlightVocabulary.articles.contains(tokens[position].folded) {
                position -= 1
            }
            // "✈ Wien": an arrow that opens the title points to the destination.
            let opensWithArrow = position == 0 && FlightVocabulary.arrows.contains(String(tokens[position].text))
            guard position >= 0, tokens[position].isWord || tokens[position].text == "→" || opensWithArrow else {
                continue
            }
            let word = tokens[position].folded
            if to == nil, tokens[position].lexemes.contains(.toWord) || word == "→" || opensWithArrow {
                to = place.code
            } else if from == nil, tokens[position].lexemes.contains(.fromWord) {
                from = place.code
            }
        }
        // "Paris → Pointe-à-Pitre": a place before an arrow is the origin, even when the other end is unknown.
        for place in places where from == nil {
            var next = place.tokens.upperBound + 1
            if next < tokens.count, Self.isTerminal(tokens[next]) { next += 1 }
            if next + 1 < tokens.count, FlightVocabulary.arrows.contains(String(tokens[next].text)) {
                from = place.code
            }
        }
        // Airport codes after a connector: "flight to SFO", "WN 2280 to LAS".
        for index in tokens.indices.dropFirst() where isAirportCode(tokens[index]) {
            let lexemes = tokens[index - 1].lexemes
            if to == nil, lexemes.contains(.toWord) { to = String(tokens[index].text) }
            if from == nil, lexemes.contains(.fromWord) { from = String(tokens[index].text) }
        }
        for place in knownCJKPlaces(in: text) {
            let after = text.text[place.range.upperBound...]
            let before = text.text[..<place.range.lowerBound]
            if to == nil,
                after.first == "行" || after.first == "へ" || before.hasEnding("飞往")
                    || before.hasEnding("飛往") || before.hasEnding("前往")
            {
                to = place.code
            } else if from == nil, before.last == "从" || before.last == "從" || after.first == "発" {
                from = place.code
            }
        }
        return (from, to)
    }

    /// The airport a location names: a code ("SFO"), an airport's name ("Terminal 2, Munich Airport"), or words
    /// that say it is an airport.
    func airport(inLocation text: FlightText) -> (isAirport: Bool, code: String?) {
        guard !text.tokens.isEmpty else { return (false, nil) }
        if let token = text.tokens.first(where: isAirportCode) {
            return (true, String(token.text))
        }
        let place = places(in: text, capitalizedOnly: false).first
        let code = place?.code ?? cjkPlaces(in: text).first?.code
        // "Paris Orly 3", "Milano Linate": an airport's own name.
        let isAirport =
            place?.isAirportName == true
            || text.tokens.contains { $0.lexemes.contains(.airportWord) || $0.folded == "terminal" }
            || FlightVocabulary.cjkAirportWords.first(in: text) != nil
        return (isAirport, isAirport ? code : nil)
    }

    /// The indices of the airport codes of a text, but for words of a longer place name written in capitals
    /// ("LOS ANGELES TOM BRADLEY INTL" holds no code).
    func codeIndices(in text: FlightText) -> [Int] {
        let tokens = text.tokens
        let candidates = tokens.indices.filter { isAirportCode(tokens[$0]) }
        guard !candidates.isEmpty else { return [] }
        var named = Set<Int>()
        for place in places(in: text, capitalizedOnly: true) where place.tokens.count > 1 {
            // "Frankfurt (FRA)": the code in brackets is the code.
            let words = place.tokens.filter { tokens[$0].isWord && ($0 == 0 || tokens[$0 - 1].text != "(") }
            if words.count > 1 { named.formUnion(words) }
        }
        named.formUnion(airlineNameTokens(in: text))
        return candidates.filter { !named.contains($0) && !isPassengerName(at: $0, in: tokens) }
    }

    /// Whether a word is part of a passenger's name as reservation systems write it, "LEE/MINJI" or
    /// "CHAN/TAI MAN": joined by a slash to a word that is not an airport code.
    private func isPassengerName(at index: Int, in tokens: [FlightText.Token]) -> Bool {
        if index + 2 < tokens.count, tokens[index + 1].text == "/", !tokens[index + 1].isSpaced,
            tokens[index + 2].isWord, !tokens[index + 2].isSpaced, !isAirportCode(tokens[index + 2])
        {
            return true
        }
        if index >= 2, tokens[index - 1].text == "/", !tokens[index].isSpaced, !tokens[index - 1].isSpaced,
            tokens[index - 2].isWord, !isAirportCode(tokens[index - 2])
        {
            return true
        }
        guard Self.passengerTitles.contains(String(tokens[index].text)) else { return false }
        // "TAYLOR/SUSAN MRS", "DUPONT/MARIE MME": the title after the name.
        if index >= 3, tokens[index].isSpaced, tokens[index - 1].isWord, tokens[index - 2].text == "/",
            !tokens[index - 1].isSpaced
        {
            return true
        }
        // "MRS NIAMH DOYLE": the title before the name, on the same line.
        if index + 1 < tokens.count, tokens[index + 1].isWord, tokens[index + 1].isSpaced,
            !tokens[index + 1].startsLine, tokens[index + 1].isCapitalized, !tokens[index + 1].isNumber,
            !isAirportCode(tokens[index + 1]), !tokens[index + 1].lexemes.contains(.toWord)
        {
            return true
        }
        return false
    }

    /// The titles reservation systems and airlines write beside a passenger's name.
    private static let passengerTitles: Set<String> = [
        "MR", "MRS", "MS", "MISS", "MSTR", "DR", "MME", "MLLE", "SRA", "SIG", "HR", "DHR", "MEVR",
    ]

    /// The number of words of the airline's name that starts at a token, or 0.
    func airlineNameLength(at index: Int, in tokens: [FlightText.Token]) -> Int {
        var words: [String] = []
        var position = index
        while position < tokens.count, words.count < data.longestNameWords, tokens[position].isWord,
            !tokens[position].isCJK
        {
            words.append(tokens[position].folded)
            position += 1
        }
        for count in stride(from: words.count, to: 0, by: -1)
        where data.airlineNames[words[0..<count].joined(separator: " ")] != nil {
            return count
        }
        return 0
    }

    /// The indices of the words of the airline names in a text ("AIR FRANCE", "ITA Airways"), whose words are
    /// not airport codes.
    func airlineNameTokens(in text: FlightText) -> Set<Int> {
        let tokens = text.tokens
        var covered = Set<Int>()
        var index = 0
        while index < tokens.count {
            guard tokens[index].lexemes.contains(.airlineStart) else {
                index += 1
                continue
            }
            let matched = airlineNameLength(at: index, in: tokens)
            if matched > 0 {
                covered.formUnion(index..<(index + matched))
                index += matched
            } else {
                index += 1
            }
        }
        return covered
    }

    /// The route of a confirmation that names exactly two airports by code ("Amsterdam (AMS) 17:50 → Londen
    /// Gatwick (LGW) 18:05"), or, in Chinese and Japanese, exactly two places ("北京首都T1 08:10-海口美兰T2").
    func mentionedRoute(in text: FlightText, codes indices: [Int], places: [Place]) -> (String?, String?, Bool)? {
        var codes: [String] = []
        for index in indices {
            let code = String(text.tokens[index].text)
            if !codes.contains(code) { codes.append(code) }
            if codes.count > 2 { return nil }
        }
        if codes.count == 2 { return (codes[0], codes[1], true) }
        guard codes.isEmpty else { return nil }
        // "10:35 Kansai International Airport T1 … 12:30 Incheon International Airport T1".
        var airports: [String] = []
        for place in places where place.isAirportName && !airports.contains(place.code) {
            airports.append(place.code)
        }
        if airports.count == 2 { return (airports[0], airports[1], true) }
        guard text.hasCJK else { return nil }
        var places: [String] = []
        for place in knownCJKPlaces(in: text) where !places.contains(place.code) {
            places.append(place.code)
            if places.count > 2 { return nil }
        }
        guard places.count == 2 else { return nil }
        return (places[0], places[1], places.allSatisfy { data.metropolitanAreas[$0] == nil })
    }

    /// A route written on one line around an arrow, whatever stands between: the last airport or place before
    /// the arrow and the first after it ("Amsterdam (AMS) 17:50 → Londen Gatwick (LGW) 18:05",
    /// "東京（成田）第1ターミナル 16:45 → バンコク（スワンナプーム）21:30"). Precise when both ends are airports.
    func lineRoute(in text: FlightText) -> (String?, String?, Bool)? {
        let tokens = text.tokens
        for arrow in tokens.indices
        where !tokens[arrow].isWord && FlightVocabulary.arrows.contains(String(tokens[arrow].text)) {
            var lineStart = arrow
            while lineStart > 0, !tokens[lineStart].startsLine { lineStart -= 1 }
            var lineEnd = arrow + 1
            while lineEnd < tokens.count, !tokens[lineEnd].startsLine { lineEnd += 1 }
            guard lineStart < arrow, arrow + 1 < lineEnd,
                let from = mention(FlightText(tokens: Array(tokens[lineStart..<arrow]), of: text), last: true),
                let to = mention(FlightText(tokens: Array(tokens[(arrow + 1)..<lineEnd]), of: text), last: false),
                from.code != to.code
            else { continue }
            return (from.code, to.code, from.isAirport && to.isAirport)
        }
        return nil
    }

    /// A route written as a timetable: a line that starts with the departure time and names the departure airport,
    /// and, at most three lines below, one that starts with the arrival time and names the arrival airport
    /// ("07:00  Lisboa, Aeroporto Humberto Delgado (LIS) – Terminal 1" then "10:25  Paris Orly (ORY) – Orly 1").
    /// Precise when both ends are airports.
    func timetableRoute(in text: FlightText) -> (String?, String?, Bool)? {
        let tokens = text.tokens
        var previous: (line: Int, code: String, isAirport: Bool)?
        var line = 0
        var start = 0
        while start < tokens.count {
            var end = start + 1
            while end < tokens.count, !tokens[end].startsLine { end += 1 }
            defer {
                start = end
                line += 1
            }
            guard end - start > 3, tokens[start].isNumber, tokens[start].text.utf8.count <= 2,
                tokens[start + 1].text == ":", !tokens[start + 1].isSpaced, tokens[start + 2].isNumber,
                let place = mention(FlightText(tokens: Array(tokens[(start + 3)..<end]), of: text), last: false)
            else { continue }
            if let previous, previous.code != place.code, line - previous.line <= 3 {
                return (previous.code, place.code, previous.isAirport && place.isAirport)
            }
            previous = (line, place.code, place.isAirport)
        }
        return nil
    }

    /// The last (or first) airport or place a part of a line names: a code, a name, or a Chinese or Japanese name.
    private func mention(_ part: FlightText, last: Bool) -> (code: String, isAirport: Bool)? {
        var found: [(position: String.Index, code: String, isAirport: Bool)] = []
        for index in codeIndices(in: part) {
            found.append((part.tokens[index].text.startIndex, String(part.tokens[index].text), true))
        }
        for place in places(in: part, capitalizedOnly: true) {
            found.append((part.tokens[place.tokens.lowerBound].text.startIndex, place.code, place.isAirportName))
        }
        for place in cjkPlaces(in: part) {
            found.append((place.range.lowerBound, place.code, data.metropolitanAreas[place.code] == nil))
        }
        let chosen = last ? found.max { $0.position < $1.position } : found.min { $0.position < $1.position }
        return chosen.map { ($0.code, $0.isAirport) }
    }
}
