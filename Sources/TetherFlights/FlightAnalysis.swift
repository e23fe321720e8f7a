import Foundation

/// The reading of one event: the evidence for and against a flight, and the flight's details.
///
/// Evidence adds to a score and look-alikes take from it; the score, clamped to 0...1, is the confidence. Each
/// kind of evidence counts once, so that a long confirmation does not outweigh its title.
struct FlightAnalysis {
    /// An airline designator with a flight number found in the text ("UA 857", "LH400").
    struct Designator {
        var airline: String
        var number: Int
        /// The indices of the tokens it spans.
        var tokens: ClosedRange<Int>
        /// A one-digit number written apart from its designator ("QF 1") is weaker evidence.
        var isWeak: Bool

        var flightNumber: String { "\(airline)\(number)" }
    }

    /// A place named in the text: an airport code, a city or airport name.
    struct Place {
        var code: String
        /// Whether the text names the airport itself ("London Heathrow", "Paris-Orly"), not only its city.
        var isAirportName = false
        /// The indices of the tokens it spans (for Chinese and Japanese, the token that holds it).
        var tokens: ClosedRange<Int>
    }

    /// A departure or arrival block of a confirmation ("Departure: Frankfurt (FRA) 10:20").
    struct Block {
        var code: String?
        var hour: Int?
        var minute: Int?
        var dayOffset = 0
    }

    private let data: FlightReferenceData
    private let event: FlightDetector.Event
    private let title: FlightText
    private let description: FlightText
    private let location: FlightText

    private var evidence = 0.0
    private var counterEvidence = 0.0
    private var isSchemaReservation = false

    private var airline: String?
    private var flightNumber: String?
    private var from: String?
    private var to: String?
    private var departure: Date?
    private var arrival: Date?

    init(event: FlightDetector.Event, data: FlightReferenceData = .shared) {
        self.event = event
        self.data = data
        title = FlightText(event.title)
        description = FlightText(event.description)
        location = FlightText(event.location)
        analyse()
    }

    func detection(minimumConfidence: Double) -> FlightDetection {
        let confidence = isSchemaReservation ? max(0.98, score) : score
        guard confidence >= minimumConfidence, confidence > 0 else {
            return .notAFlight(confidence: confidence)
        }
        return FlightDetection(
            isFlight: true,
            confidence: confidence,
            airline: airline.flatMap { data.airlines[$0] },
            flightNumber: flightNumber,
            departureAirport: from.flatMap(data.airport),
            arrivalAirport: to.flatMap(data.airport),
            departure: departure ?? event.start,
            arrival: arrival ?? event.end
        )
    }

    private var score: Double {
        min(1, max(0, evidence - counterEvidence))
    }

    // MARK: - Reading

    private mutating func analyse() {
        if let reservation = FlightSchemaMarkup(description.text, data: data) {
            isSchemaReservation = true
            airline = reservation.airline
            flightNumber = reservation.flightNumber
            from = reservation.departureAirport
            to = reservation.arrivalAirport
            departure = reservation.departureTime.flatMap { parseTime($0, airport: from) }
            arrival = reservation.arrivalTime.flatMap { parseTime($0, airport: to) }
        }

        // Airline and flight number.
        let titleDesignators = designators(in: title)
        let otherDesignators = designators(in: description) + designators(in: location)
        if let first = titleDesignators.first {
            evidence += first.isWeak ? 0.3 : 0.4
        } else if let first = otherDesignators.first {
            evidence += first.isWeak ? 0.2 : 0.3
        }
        if let first = titleDesignators.first ?? otherDesignators.first, flightNumber == nil {
            airline = airline ?? first.airline
            flightNumber = first.flightNumber
        }

        // Airline names ("Lufthansa", "Air France", "全日空").
        let namedAirline = airlineName(in: title) ?? airlineName(in: description) ?? airlineName(in: location)
        if let namedAirline {
            evidence += 0.15
            airline = airline ?? namedAirline.code
            if flightNumber == nil, let number = namedAirline.number, airline == namedAirline.code {
                flightNumber = "\(namedAirline.code)\(number)"
            }
        }

        // Routes: "SFO → PEK", "FRA-JFK", "London Heathrow to Los Angeles", "羽田→那覇".
        let titlePlaces = places(in: title, capitalizedOnly: true)
        let titleRoute = codeRoute(in: title) ?? placeRoute(in: title, places: titlePlaces) ?? cjkRoute(in: title)
        if let titleRoute {
            evidence += titleRoute.weight
        }
        let descriptionPlaces = places(in: description, capitalizedOnly: true)
        let descriptionRoute =
            codeRoute(in: description) ?? placeRoute(in: description, places: descriptionPlaces)
            ?? cjkRoute(in: description)
        if titleRoute == nil, let descriptionRoute {
            evidence += min(descriptionRoute.weight, 0.3)
        }

        // "Flight to Tokyo", "Vuelo a Madrid", "Rückflug aus Lissabon", "東京行き", "飞往北京".
        let titleEnds = connectedPlaces(in: title, places: titlePlaces)

        // Confirmation blocks.
        let departureBlock = block(in: description, departure: true) ?? block(in: title, departure: true)
        let arrivalBlock = block(in: description, departure: false) ?? block(in: title, departure: false)
        switch (departureBlock, arrivalBlock) {
        case (.some(let departure), .some(let arrival)) where departure.code != nil && arrival.code != nil:
            // "Departure: Madrid (MAD) … Arrival: Bogotá (BOG)": two airports of the reference data.
            evidence += 0.35
        case (.some, .some): evidence += 0.25
        case (.some, nil), (nil, .some): evidence += 0.1
        case (nil, nil): break
        }
        if containsBookingReference(description) {
            evidence += 0.15
        }

        // Flight words, weighed by what else was found: "Vol" alone may be a theft, "Vol pour Paris" is a flight.
        let titleKeyword = flightKeyword(in: title)
        let hasPlaceEvidence = titleRoute != nil || titleEnds.to != nil || titleEnds.from != nil
        let hasTitleEvidence = !titleDesignators.isEmpty || hasPlaceEvidence
        if let titleKeyword {
            evidence += titleKeyword.isAmbiguous && !hasTitleEvidence ? 0.15 : 0.35
            if titleEnds.to != nil || titleEnds.from != nil { evidence += 0.15 }
        } else if flightKeyword(in: description) != nil {
            evidence += 0.2
        }

        // An airport as the location.
        let locationAirport = airport(inLocation: location)
        if locationAirport.isAirport { evidence += 0.15 }

        // Fill in the route, the most explicit source first.
        for candidate in [
            titleRoute.map { ($0.from, $0.to) }, descriptionRoute.map { ($0.from, $0.to) },
            (departureBlock?.code, arrivalBlock?.code), (titleEnds.from, titleEnds.to),
        ] {
            guard let candidate else { continue }
            from = refined(from, by: candidate.0, other: to)
            to = refined(to, by: candidate.1, other: from)
        }
        if from == nil, let code = locationAirport.code, code != to { from = code }

        // A title that says nothing but the flight ("UA857", "✈ FRA-JFK", "Flight home").
        if titleKeyword != nil || !titleDesignators.isEmpty || titleRoute != nil,
            isExplained(title, designators: titleDesignators, places: titlePlaces, namedAirline: namedAirline)
        {
            evidence += 0.2
        }

        // How long the event lasts.
        if let start = event.start, let end = event.end, evidence > 0 {
            let duration = end.timeIntervalSince(start)
            if duration >= 20 * 60, duration <= 22 * 3600 {
                evidence += 0.05
            } else if duration > 24 * 3600 {
                counterEvidence += 0.2
            }
        }

        // Look-alikes.
        counterEvidence += negativeWeight(title, scale: 1) + negativeWeight(location, scale: 1)
        counterEvidence += negativeWeight(description, scale: 0.5, kinds: [2])

        // Times from the text when the event is a confirmation.
        if !isSchemaReservation {
            readTimes(departureBlock: departureBlock, arrivalBlock: arrivalBlock)
        }
    }

    /// The airport to keep: the one found first, unless it is a city and the candidate is one of its airports
    /// ("Frankfurt – New York" in the title, "Ankunft: New York (JFK)" in the description).
    private func refined(_ current: String?, by candidate: String?, other: String?) -> String? {
        guard let candidate, candidate != other else { return current }
        guard let current else { return candidate }
        if let area = data.metropolitanAreas[current], area.members.contains(candidate) { return candidate }
        if data.airports[current] == nil, data.airports[candidate]?.city == data.airport(current)?.city {
            return candidate
        }
        if let airport = data.airports[current], let other = data.airports[candidate], airport.city == other.city,
            data.places[FlightText.nameKey(airport.city)] == current, current != candidate
        {
            // A city written by name resolves to its main airport; an airport named in the text is more precise.
            return candidate
        }
        return current
    }

    // MARK: - Designators

    /// The airline designators with flight numbers in a text, in order.
    private func designators(in text: FlightText) -> [Designator] {
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
            } else {
                continue
            }
            guard data.airlines[code] != nil, let number = Int(digits), number > 0 else { continue }

            // What comes before: "Room B12", "SKU LH400", "#UA857", "10 AM 12".
            if index > 0 {
                let previous = tokens[index - 1]
                if !previous.isWord, !token.isSpaced, previous.isSymbol(in: "-#/._@+&=") { continue }
                if let word = previousWord(tokens, before: index) {
                    if FlightVocabulary.codePrefixes.contains(word.folded) { continue }
                    if code == "AM" || code == "PM", word.isNumber { continue }
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
                if next.isNumber, next.isSpaced, next.text.utf8.count >= 2 { continue }
                if let word = nextWord(tokens, after: last), FlightVocabulary.codeSuffixes.contains(word.folded) {
                    continue
                }
            }
            found.append(Designator(airline: code, number: number, tokens: index...last, isWeak: isWeak))
            index = last
        }
        return found
    }

    /// Whether two or more characters have the shape of an IATA designator: upper-case letters and digits, at
    /// least one letter.
    private static func isDesignator(_ bytes: some Collection<UInt8>) -> Bool {
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

    private func previousWord(_ tokens: [FlightText.Token], before index: Int) -> FlightText.Token? {
        var position = index - 1
        while position >= 0, position >= index - 3 {
            if tokens[position].isWord { return tokens[position] }
            if !tokens[position].isSymbol(in: ":") { return nil }
            position -= 1
        }
        return nil
    }

    private func nextWord(_ tokens: [FlightText.Token], after index: Int) -> FlightText.Token? {
        var position = index + 1
        while position < tokens.count, position <= index + 2 {
            if tokens[position].isWord { return tokens[position] }
            position += 1
        }
        return nil
    }

    // MARK: - Airline names

    /// The first airline named in a text, with the flight number written after it ("United 912",
    /// "Alaska Airlines flight 1139").
    private func airlineName(in text: FlightText) -> (code: String, number: Int?)? {
        let tokens = text.tokens
        if let match = data.cjkAirlineNames.first(in: text) {
            return (match.value, nil)
        }
        var index = 0
        while index < tokens.count {
            guard tokens[index].isWord, !tokens[index].isCJK, !tokens[index].isNumber,
                data.airlineFirstWords.contains(tokens[index].folded)
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
                return (code, flightNumber(in: tokens, after: positions[count - 1]))
            }
            index += 1
        }
        return nil
    }

    /// The number after an airline's name: "United 912", "Airlines flight 1139", "Airlines, Flight number 5".
    private func flightNumber(in tokens: [FlightText.Token], after index: Int) -> Int? {
        var position = index + 1
        var steps = 0
        while position < tokens.count, steps < 4 {
            let token = tokens[position]
            if token.isNumber {
                let count = token.text.utf8.count
                return (1...4).contains(count) ? Int(token.text) : nil
            }
            if token.isWord {
                guard
                    FlightVocabulary.flightWords.contains(token.folded) || token.folded == "number"
                        || token.folded == "no" || token.folded == "nr"
                else { return nil }
            }
            position += 1
            steps += 1
        }
        return nil
    }

    // MARK: - Places and routes

    /// Whether a token is an airport code of the reference data ("SFO"), not a business acronym ("CEO").
    private func isAirportCode(_ token: FlightText.Token) -> Bool {
        token.text.utf8.count == 3 && token.isUpperASCII && data.isAirportCode(String(token.text))
            && !FlightVocabulary.notAirportCodes.contains(String(token.text))
    }

    /// A route written with airport codes: "SFO → PEK", "FRA-JFK", "SFO to PEK", "DUB > BOS".
    private func codeRoute(in text: FlightText) -> (from: String, to: String, weight: Double)? {
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
    private func places(in text: FlightText, capitalizedOnly: Bool) -> [Place] {
        let tokens = text.tokens
        var found: [Place] = []
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            guard token.isWord, !token.isCJK, !token.isNumber, !capitalizedOnly || token.isCapitalized,
                data.placeFirstWords.contains(token.folded)
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
            for count in stride(from: words.count, to: 0, by: -1) {
                let key = words[0..<count].joined(separator: " ")
                guard let code = data.places[key] else { continue }
                var place = Place(code: code, tokens: index...positions[count - 1])
                if let airport = data.airports[code], FlightText.nameKey(airport.city) != key {
                    place.isAirportName = true
                }
                refine(&place, tokens: tokens)
                found.append(place)
                index = place.tokens.upperBound + 1
                matched = true
                break
            }
            if !matched { index += 1 }
        }
        return found
    }

    /// Replaces a city by the airport written after it in brackets: "London (LHR)", "大阪（伊丹）".
    private func refine(_ place: inout Place, tokens: [FlightText.Token]) {
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
    private func placeRoute(in text: FlightText, places: [Place]) -> (from: String, to: String, weight: Double)? {
        let tokens = text.tokens
        for (first, second) in zip(places, places.dropFirst()) where first.code != second.code {
            let between = tokens[(first.tokens.upperBound + 1)..<second.tokens.lowerBound]
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

    /// The places named in Chinese or Japanese script, in order, each with its range in the text; the longest
    /// name wins where names overlap ("上海浦东" over "上海").
    private func cjkPlaces(in text: FlightText) -> [(code: String, range: Range<String.Index>)] {
        guard text.tokens.contains(where: \.isCJK) else { return [] }
        let found = data.cjkPlaces.matches(in: text).map { (code: $0.value, range: $0.range) }
        // "大阪（伊丹）": the airport in brackets makes the city precise.
        var refined: [(code: String, range: Range<String.Index>)] = []
        for place in found {
            if let last = refined.last, text.text[last.range.upperBound..<place.range.lowerBound] == "(",
                text.text[place.range.upperBound...].first == ")"
            {
                refined[refined.count - 1] = (place.code, last.range.lowerBound..<place.range.upperBound)
                continue
            }
            refined.append(place)
        }
        return refined
    }

    /// A route written in Chinese or Japanese: "羽田→那覇", "上海→北京", "深圳飞上海", "虹桥-首都".
    private func cjkRoute(in text: FlightText) -> (from: String, to: String, weight: Double)? {
        let found = cjkPlaces(in: text)
        for (first, second) in zip(found, found.dropFirst()) where first.code != second.code {
            let between = String(text.text[first.range.upperBound..<second.range.lowerBound].filter { $0 != " " })
            if ["→", "->", "-", "—", "–", "~", "〜", "～", "⇒", "✈", "✈️", ">", "飞", "飛", "至", "到", "发往"].contains(between)
            {
                return (first.code, second.code, 0.3)
            }
        }
        return nil
    }

    /// The destination and origin a title names with a connector: "Flight to Tokyo", "Vuelo a Madrid",
    /// "Rückflug aus Lissabon", "Voo para o Rio", "東京行き", "札幌へ", "飞往北京".
    private func connectedPlaces(in text: FlightText, places: [Place]) -> (from: String?, to: String?) {
        var from: String?
        var to: String?
        let tokens = text.tokens
        for place in places {
            var position = place.tokens.lowerBound - 1
            if position >= 0, tokens[position].isWord, FlightVocabulary.articles.contains(tokens[position].folded) {
                position -= 1
            }
            guard position >= 0, tokens[position].isWord || tokens[position].text == "→" else { continue }
            let word = tokens[position].folded
            if to == nil, FlightVocabulary.toWords.contains(word) {
                to = place.code
            } else if from == nil, FlightVocabulary.fromWords.contains(word) {
                from = place.code
            }
        }
        // "Paris → Pointe-à-Pitre": a place before an arrow is the origin, even when the other end is unknown.
        for place in places where from == nil {
            let next = place.tokens.upperBound + 1
            if next + 1 < tokens.count, FlightVocabulary.arrows.contains(String(tokens[next].text)) {
                from = place.code
            }
        }
        // Airport codes after a connector: "flight to SFO", "WN 2280 to LAS".
        for index in tokens.indices.dropFirst() where isAirportCode(tokens[index]) {
            let word = tokens[index - 1].folded
            if to == nil, FlightVocabulary.toWords.contains(word) { to = String(tokens[index].text) }
            if from == nil, FlightVocabulary.fromWords.contains(word) { from = String(tokens[index].text) }
        }
        for place in cjkPlaces(in: text) {
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
    private func airport(inLocation text: FlightText) -> (isAirport: Bool, code: String?) {
        guard !text.tokens.isEmpty else { return (false, nil) }
        if let token = text.tokens.first(where: isAirportCode) {
            return (true, String(token.text))
        }
        let code = places(in: text, capitalizedOnly: false).first?.code ?? cjkPlaces(in: text).first?.code
        let words = ["airport", "aeropuerto", "aeroport", "flughafen", "aeroporto", "luchthaven", "terminal"]
        let isAirport =
            text.tokens.contains { $0.isWord && words.contains($0.folded) }
            || FlightVocabulary.cjkAirportWords.first(in: text) != nil
            || text.tokens.contains { $0.folded == "schiphol" }
        return (isAirport, isAirport ? code : nil)
    }

    // MARK: - Words

    /// The first word in a text that names a flight; "vol" is ambiguous in French (it also means theft).
    private func flightKeyword(in text: FlightText) -> (word: String, isAmbiguous: Bool)? {
        for token in text.tokens where token.isWord && !token.isCJK {
            let word = token.folded
            if FlightVocabulary.flightWords.contains(word) || FlightVocabulary.flyWords.contains(word) {
                return (word, word == "vol" || word == "vols" || FlightVocabulary.flyWords.contains(word))
            }
            for suffix in FlightVocabulary.flightWordSuffixes
            where word.count > suffix.count + 2
                && word.hasSuffix(suffix)
            {
                return (word, false)
            }
        }
        if FlightVocabulary.cjkFlightWords.first(in: text) != nil { return ("", false) }
        return nil
    }

    private func containsBookingReference(_ text: FlightText) -> Bool {
        !FlightVocabulary.bookingPhraseMatcher.groups(in: text).isEmpty
    }

    /// Whether every word of a title is accounted for by the flight: designators, codes, places, airline names,
    /// flight words, connectors and travel words.
    private func isExplained(
        _ text: FlightText,
        designators: [Designator],
        places: [Place],
        namedAirline: (code: String, number: Int?)?
    ) -> Bool {
        var covered = Set<Int>()
        for designator in designators { covered.formUnion(designator.tokens) }
        for place in places { covered.formUnion(place.tokens) }
        for (index, token) in text.tokens.enumerated() where !covered.contains(index) {
            guard token.isWord else { continue }
            if token.isNumber || isAirportCode(token) { continue }
            let word = token.folded
            if FlightVocabulary.flightWords.contains(word) || FlightVocabulary.flyWords.contains(word)
                || FlightVocabulary.toWords.contains(word) || FlightVocabulary.fromWords.contains(word)
                || FlightVocabulary.articles.contains(word) || Self.travelWords.contains(word)
                || FlightVocabulary.flightWordSuffixes.contains(where: { word.hasSuffix($0) })
            {
                continue
            }
            if namedAirline != nil, data.airlineNames[word] != nil { continue }
            if token.isCJK { continue }
            return false
        }
        return true
    }

    /// Words a person adds to a flight's title that say nothing against it.
    private static let travelWords: Set<String> = [
        "home", "back", "return", "outbound", "inbound", "travel", "trip", "via", "nonstop", "direct", "my", "our",
        "retour", "regreso", "vuelta", "ida", "ritorno", "andata", "volta", "regresso", "heen", "terug", "hin",
        "ruck", "zuruck", "viagem", "viaje", "voyage", "reise", "reis", "viaggio", "the", "and", "y", "et", "und",
        "e", "en", "of", "flight", "am", "pm", "h",
    ]

    // MARK: - Confirmation blocks

    /// The departure (or arrival) block of a text: the label, then on the same line the airport and the time.
    private func block(in text: FlightText, departure: Bool) -> Block? {
        let labels = departure ? FlightVocabulary.departureLabels : FlightVocabulary.arrivalLabels
        let otherLabels = departure ? FlightVocabulary.arrivalLabels : FlightVocabulary.departureLabels
        let genericLabels = departure ? FlightVocabulary.fromWords : FlightVocabulary.toWords
        let tokens = text.tokens
        var part: FlightText?
        for (index, token) in tokens.enumerated() where token.isWord && !token.isCJK {
            let followedByColon = index + 1 < tokens.count && tokens[index + 1].text == ":"
            let isLabel =
                labels.contains(token.folded) && (followedByColon || token.startsLine || index > 0)
                || (genericLabels.contains(token.folded) && followedByColon && token.startsLine)
            guard isLabel else { continue }
            if labels.contains(token.folded), !followedByColon, !token.startsLine,
                token.folded == "sale" || token.folded == "dep" || token.folded == "arr"
            {
                continue
            }
            // The rest of the line, up to the other block's label.
            var end = index + 1
            while end < tokens.count, !tokens[end].startsLine, end - index <= 40,
                !(tokens[end].isWord && otherLabels.contains(tokens[end].folded))
            {
                end += 1
            }
            part = FlightText(tokens: Array(tokens[(index + 1)..<end]), of: text)
            break
        }
        if part == nil {
            let labels = FlightVocabulary.cjkLabels.matches(in: text)
            if let label = labels.first(where: { $0.value == departure }) {
                var end = text.text.endIndex
                if let stop = labels.first(where: { $0.range.lowerBound >= label.range.upperBound }) {
                    end = stop.range.lowerBound
                }
                var segment = line(of: text.text, after: label.range.upperBound)
                if end < segment.endIndex { segment = segment[..<end] }
                part = FlightText(String(segment))
            }
        }
        guard let part else { return nil }
        var block = Block()
        block.code =
            part.tokens.first(where: isAirportCode).map { String($0.text) }
            ?? cjkPlaces(in: part).first?.code ?? places(in: part, capitalizedOnly: true).first?.code
        if let time = Self.time(in: part) {
            block.hour = time.hour
            block.minute = time.minute
            block.dayOffset = time.dayOffset
        }
        guard block.code != nil || block.hour != nil else { return nil }
        return block
    }

    /// The rest of a line from `start`, at most 160 characters.
    private func line(of text: String, after start: String.Index) -> Substring {
        var rest = text[start...]
        if let newline = rest.firstIndex(where: \.isNewline) { rest = rest[..<newline] }
        return rest.prefix(160)
    }

    /// The first time of day in a text: "10:20", "7:15 AM", "2:20 PM", "10h20", with a "+1" day offset after it.
    private static func time(in text: FlightText) -> (hour: Int, minute: Int, dayOffset: Int)? {
        let tokens = text.tokens
        for index in tokens.indices where tokens[index].isNumber {
            var hour: Int?
            var minute: Int?
            var last = index
            if index + 2 < tokens.count, tokens[index + 1].text == ":", !tokens[index + 1].isSpaced,
                tokens[index + 2].isNumber, tokens[index + 2].text.utf8.count == 2, !tokens[index + 2].isSpaced
            {
                hour = Int(tokens[index].text)
                minute = Int(tokens[index + 2].text)
                last = index + 2
            }
            guard var hourValue = hour, let minuteValue = minute, hourValue < 24, minuteValue < 60 else { continue }
            if last + 1 < tokens.count {
                let marker = tokens[last + 1].folded
                if marker == "pm" || marker == "p", hourValue < 12 { hourValue += 12 }
                if marker == "am" || marker == "a", hourValue == 12 { hourValue = 0 }
            }
            var dayOffset = 0
            if let plus = tokens[(last + 1)...].firstIndex(where: { $0.text == "+" }), plus + 1 < tokens.count,
                tokens[plus + 1].isNumber, let days = Int(tokens[plus + 1].text), days <= 2
            {
                dayOffset = days
            }
            return (hourValue, minuteValue, dayOffset)
        }
        // "10h20", written as one token.
        for token in tokens where token.isWord && !token.isCJK {
            let parts = token.folded.split(separator: "h", omittingEmptySubsequences: false)
            guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), parts[1].count == 2,
                hour < 24, minute < 60
            else { continue }
            return (hour, minute, 0)
        }
        return nil
    }

    // MARK: - Times

    /// Reads a date-time from markup; one written without an offset is in the airport's time zone.
    private func parseTime(_ string: String, airport code: String?) -> Date? {
        FlightDates.parse(string, in: zone(of: code) ?? event.timeZone)
    }

    private func zone(of code: String?) -> TimeZone? {
        guard let identifier = code.flatMap(data.airport)?.timeZoneIdentifier, !identifier.isEmpty else { return nil }
        return TimeZone(identifier: identifier)
    }

    /// Turns the times of day of the departure and arrival blocks into instants, on the day the event starts,
    /// each in its airport's time zone.
    private mutating func readTimes(departureBlock: Block?, arrivalBlock: Block?) {
        guard let start = event.start else { return }
        guard let departureZone = zone(of: from) ?? event.timeZone else { return }
        let day = FlightDates.day(of: start, in: departureZone)
        if let hour = departureBlock?.hour, let minute = departureBlock?.minute {
            var components = day
            components.hour = hour
            components.minute = minute
            components.second = 0
            departure = FlightDates.date(components, zone: departureZone)
        }
        if let hour = arrivalBlock?.hour, let minute = arrivalBlock?.minute,
            let arrivalZone = zone(of: to) ?? event.timeZone
        {
            var components = day
            components.hour = hour
            components.minute = minute
            components.second = 0
            guard var date = FlightDates.date(components, zone: arrivalZone) else { return }
            date += Double(arrivalBlock?.dayOffset ?? 0) * 86_400
            let reference = departure ?? start
            var steps = 0
            while date < reference, steps < 2 {
                date += 86_400
                steps += 1
            }
            arrival = date
        }
    }

    // MARK: - Look-alikes

    /// The weight of the look-alike cues in a text: each kind counts once.
    private func negativeWeight(_ text: FlightText, scale: Double, kinds: Set<Int>? = nil) -> Double {
        guard !text.tokens.isEmpty else { return 0 }
        var total = 0.0
        for kind in FlightVocabulary.negativePhrases.groups(in: text) where kinds?.contains(kind) ?? true {
            total += FlightVocabulary.negativeCues[kind].weight * scale
        }
        return total
    }

}

extension Substring {
    /// Whether the substring ends with the characters of `suffix`, compared by the standard library.
    fileprivate func hasEnding(_ suffix: String) -> Bool {
        reversed().starts(with: suffix.reversed())
    }
}
