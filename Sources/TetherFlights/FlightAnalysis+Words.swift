import Foundation

extension FlightAnalysis {
    // MARK: - Words

    /// The first word in a text that names a flight; "vol" is ambiguous in French (it also means theft).
    func flightKeyword(in text: FlightText) -> (word: String, isAmbiguous: Bool)? {
        for token in text.tokens where token.isWord && !token.isCJK {
            let word = token.folded
            if !token.lexemes.isDisjoint(with: [.flightWord, .flyWord]) {
                return (word, word == "vol" || word == "vols" || token.lexemes.contains(.flyWord))
            }
            // "Rückflug", "Terugvlucht": only words ending in "g" or "t" can end in a flight word.
            guard let last = word.utf8.last, last == UInt8(ascii: "g") || last == UInt8(ascii: "t") else { continue }
            for suffix in FlightVocabulary.flightWordSuffixes
            where word.utf8.count > suffix.utf8.count + 2
                && word.hasSuffix(suffix)
            {
                return (word, false)
            }
        }
        if text.hasCJK, FlightVocabulary.cjkFlightWords.first(in: text) != nil { return ("", false) }
        return nil
    }

    func containsBookingReference(_ text: FlightText) -> Bool {
        !FlightVocabulary.bookingPhraseMatcher.groups(in: text).isEmpty
    }

    /// Whether every word of a title is accounted for by the flight: designators, codes, places, airline names,
    /// flight words, connectors and travel words.
    func isExplained(
        _ text: FlightText,
        designators: [Designator],
        places: [Place],
        namedAirline: NamedAirline?
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
    func block(in text: FlightText, departure: Bool) -> Block? {
        let label: FlightLexeme = departure ? .departureLabel : .arrivalLabel
        let otherLabel: FlightLexeme = departure ? .arrivalLabel : .departureLabel
        let genericLabel: FlightLexeme = departure ? .fromWord : .toWord
        let tokens = text.tokens
        var part: FlightText?
        for (index, token) in tokens.enumerated()
        where !token.lexemes.isDisjoint(with: [label, genericLabel]) {
            let followedByColon = index + 1 < tokens.count && tokens[index + 1].text == ":"
            let isLabel =
                token.lexemes.contains(label) && (followedByColon || token.startsLine || index > 0)
                || (token.lexemes.contains(genericLabel) && followedByColon && token.startsLine)
            guard isLabel else { continue }
            if token.lexemes.contains(label), !followedByColon, !token.startsLine,
                token.folded == "sale" || token.folded == "dep" || token.folded == "arr"
            {
                continue
            }
            // The rest of the line, up to the other block's label.
            var end = index + 1
            while end < tokens.count, !tokens[end].startsLine, end - index <= 40,
                !tokens[end].lexemes.contains(otherLabel)
            {
                end += 1
            }
            part = FlightText(tokens: Array(tokens[(index + 1)..<end]), of: text)
            break
        }
        if part == nil, text.hasCJK {
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
        if let code = part.tokens.first(where: isAirportCode) {
            block.code = String(code.text)
            block.isPrecise = true
        } else if let place = cjkPlaces(in: part).first {
            block.code = place.code
            block.isPrecise = data.metropolitanAreas[place.code] == nil
        } else if let place = places(in: part, capitalizedOnly: true).first {
            block.code = place.code
            block.isPrecise = place.isAirportName || siblingAirports(of: place.code).isEmpty
        }
        if let time = Self.time(in: part) {
            block.hour = time.hour
            block.minute = time.minute
            block.dayOffset = time.dayOffset
        }
        guard block.code != nil || block.hour != nil else { return nil }
        return block
    }

    /// The rest of a line from `start`, at most 160 characters.
    func line(of text: String, after start: String.Index) -> Substring {
        var rest = text[start...]
        if let newline = rest.firstIndex(where: \.isNewline) { rest = rest[..<newline] }
        return rest.prefix(160)
    }

    /// The first time of day in a text: "10:20", "7:15 AM", "2:20 PM", "10h20", with a "+1" day offset after it.
    static func time(in text: FlightText) -> (hour: Int, minute: Int, dayOffset: Int)? {
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
    func parseTime(_ string: String, airport code: String?) -> Date? {
        FlightDates.parse(string, in: zone(of: code) ?? event.timeZone)
    }

    func zone(of code: String?) -> TimeZone? {
        guard let identifier = code.flatMap(data.airport)?.timeZoneIdentifier, !identifier.isEmpty else { return nil }
        return TimeZone(identifier: identifier)
    }

    /// Turns the times of day of the departure and arrival blocks into instants, on the day the event starts,
    /// each in its airport's time zone.
    func readTimes(departureBlock: Block?, arrivalBlock: Block?) {
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
    func negativeWeight(_ text: FlightText, scale: Double, kinds: Set<Int>? = nil) -> Double {
        guard !text.tokens.isEmpty else { return 0 }
        var total = 0.0
        for kind in FlightVocabulary.negativePhrases.groups(in: text) where kinds?.contains(kind) ?? true {
            total += FlightVocabulary.negativeCues[kind].weight * scale
        }
        return total
    }
}
