import Foundation

extension FlightAnalysis {
    /// One flight of a booking: its designator and number, its airports and, when the text says, its times.
    struct Leg {
        var airline: String
        var number: Int
        var from: String?
        var to: String?
        var departure: Date?
        var arrival: Date?

        var flightNumber: String { "\(airline)\(number)" }
    }

    // MARK: - Reservation-system itineraries

    /// The flight segments of an itinerary printed by a global distribution system, one per line:
    ///
    /// ```
    ///  1  LH 455 Y 14MAR 7 SFOFRA HK1  1540  1125+1           (Amadeus)
    ///  1 AA 100Y 15MAR 1 JFKLHR SS1   600P  650A /DCAA*ABC    (Sabre)
    ///  1. BA  283 Y  15MAR LHRLAX HK1  1005   1305  O*        (Travelport)
    /// ```
    ///
    /// A segment is a designator with its number, then a day and month (`14MAR`), then the city pair (`SFOFRA`,
    /// both airport codes), then the departure and arrival times.
    func itineraryLegs(in text: FlightText) -> [Leg] {
        let tokens = text.tokens
        guard tokens.count >= 6 else { return [] }
        var lines: [Range<Int>] = []
        var lineStart = 0
        while lineStart < tokens.count {
            var lineEnd = lineStart + 1
            while lineEnd < tokens.count, !tokens[lineEnd].startsLine { lineEnd += 1 }
            lines.append(lineStart..<lineEnd)
            lineStart = lineEnd
        }
        var legs: [Leg] = []
        for (number, line) in lines.enumerated() where line.count >= 4 {
            let next = number + 1 < lines.count ? lines[number + 1] : nil
            if let leg = itineraryLeg(tokens, line, nextLine: next) { legs.append(leg) }
        }
        return legs
    }

    /// One segment line; in the table of an electronic ticket the arrival airport is on the next line:
    ///
    /// ```
    /// FRANKFURT FRA        LH 400   Y  14MAR  1015  YRT  OK  1PC
    /// NEW YORK JFK
    /// ```
    private func itineraryLeg(_ tokens: [FlightText.Token], _ line: Range<Int>, nextLine: Range<Int>?) -> Leg? {
        // The day and month, then the city pair after it.
        guard let dateIndex = line.first(where: { Self.dayAndMonth(tokens[$0]) != nil }),
            let (day, month) = Self.dayAndMonth(tokens[dateIndex])
        else { return nil }
        var pairIndex: Int?
        var from = ""
        var to = ""
        for index in (dateIndex + 1)..<min(line.upperBound, dateIndex + 5) {
            let token = tokens[index]
            guard token.isWord, token.isUpperASCII, token.text.utf8.count == 6 else { continue }
            let first = String(token.text.prefix(3))
            let second = String(token.text.suffix(3))
            if data.isAirportCode(first), data.isAirportCode(second) {
                (pairIndex, from, to) = (index, first, second)
                break
            }
        }
        // The designator and number before the date: "LH 455", "AA 100Y", "LH455"; or, in a ticket's table, after
        // it ("18MAR  CX 504  HONG KONG  TOKYO NARITA  0905  1425").
        var designator: (code: String, number: Int, index: Int)?
        let searched =
            pairIndex == nil
            ? Array(line.lowerBound..<dateIndex) + Array((dateIndex + 1)..<min(line.upperBound, dateIndex + 4))
            : Array(line.lowerBound..<dateIndex)
        for index in searched where designator == nil && index != dateIndex {
            let token = tokens[index]
            guard token.isWord, !token.isCJK else { continue }
            let bytes = Array(token.text.utf8)
            if bytes.count == 2, Self.isDesignator(bytes), data.isAirlineCode(String(token.text)),
                index + 1 < line.upperBound, index + 1 != dateIndex,
                let number = Self.segmentNumber(tokens[index + 1].text)
            {
                designator = (String(token.text), number, index)
            } else if (3...7).contains(bytes.count), Self.isDesignator(bytes[0..<2]),
                data.isAirlineCode(String(token.text.prefix(2))),
                let number = Self.segmentNumber(token.text.dropFirst(2))
            {
                designator = (String(token.text.prefix(2)), number, index)
            }
        }
        guard let designator else { return nil }
        var timesStart = pairIndex.map { $0 + 1 } ?? dateIndex + 1
        if pairIndex == nil, designator.index > dateIndex {
            // The ticket's table with the date first: the cities after the flight, by name.
            let rest = Array(tokens[(designator.index + 2)..<line.upperBound])
            guard designator.index + 2 < line.upperBound,
                let route = namedRoute(rest, of: FlightText(tokens: rest, of: FlightText(nil)))
            else { return nil }
            (from, to) = route
            timesStart = designator.index + 2
        } else if pairIndex == nil {
            // The ticket's table: the departure airport before the designator, the arrival on the next line.
            guard
                let origin = tokens[line.lowerBound..<designator.index].last(where: isAirportCode),
                let nextLine, Self.dayAndMonth(tokens[nextLine.lowerBound]) == nil,
                !isSegmentLine(tokens, nextLine),
                let destination = tokens[nextLine].first(where: isAirportCode),
                destination.text != origin.text
            else { return nil }
            from = String(origin.text)
            to = String(destination.text)
            timesStart = dateIndex + 1
        }
        var leg = Leg(airline: designator.code, number: designator.number, from: from, to: to)
        // The times after the city pair: "1540 1125+1", "600P 650A".
        var times: [(hour: Int, minute: Int)] = []
        var dayOffset = 0
        var index = timesStart
        while index < line.upperBound, times.count < 2 {
            if let time = Self.segmentTime(tokens[index].text) {
                times.append(time)
                if times.count == 2, index + 2 < line.upperBound, tokens[index + 1].text == "+",
                    !tokens[index + 1].isSpaced, let days = Int(tokens[index + 2].text), days <= 2
                {
                    dayOffset = days
                }
            }
            index += 1
        }
        if let (year, zone) = segmentYear(month: month, day: day, airport: from) {
            let components = DateComponents(year: year, month: month, day: day, hour: 0, minute: 0, second: 0)
            if let departure = times.first {
                var start = components
                start.hour = departure.hour
                start.minute = departure.minute
                leg.departure = FlightDates.date(start, zone: zone)
            }
            if times.count == 2, let arrivalZone = self.zone(of: to) {
                var end = components
                end.hour = times[1].hour
                end.minute = times[1].minute
                if var arrival = FlightDates.date(end, zone: arrivalZone) {
                    arrival += Double(dayOffset) * 86_400
                    var steps = 0
                    while let departure = leg.departure, arrival < departure, steps < 2 {
                        arrival += 86_400
                        steps += 1
                    }
                    leg.arrival = arrival
                }
            }
        }
        return leg
    }

    /// Whether a line has a segment's designator and number before a day and month.
    private func isSegmentLine(_ tokens: [FlightText.Token], _ line: Range<Int>) -> Bool {
        guard let date = line.first(where: { Self.dayAndMonth(tokens[$0]) != nil }) else { return false }
        return (line.lowerBound..<date).contains { index in
            let token = tokens[index]
            return token.isWord && token.text.utf8.count == 2 && Self.isDesignator(Array(token.text.utf8))
                && data.isAirlineCode(String(token.text)) && index + 1 < date
                && Self.segmentNumber(tokens[index + 1].text) != nil
        }
    }

    /// The year of a day and month printed without one: the one that puts it nearest the event's start.
    private func segmentYear(month: Int, day: Int, airport: String) -> (Int, TimeZone)? {
        guard let zone = zone(of: airport) ?? event.timeZone, let start = event.start else { return nil }
        guard let year = FlightDates.day(of: start, in: zone).year else { return nil }
        var best: (year: Int, distance: Double)?
        for candidate in (year - 1)...(year + 1) {
            let components = DateComponents(year: candidate, month: month, day: day, hour: 12, minute: 0, second: 0)
            guard let date = FlightDates.date(components, zone: zone) else { continue }
            let distance = abs(date.timeIntervalSince(start))
            if best == nil || distance < best?.distance ?? .infinity { best = (candidate, distance) }
        }
        return best.map { ($0.year, zone) }
    }

    /// "14MAR", "14MAR27" or "TU14MAR": a day and an English month abbreviation, as reservation systems print
    /// them, perhaps after the weekday's two letters.
    static func dayAndMonth(_ token: FlightText.Token) -> (day: Int, month: Int)? {
        guard token.isWord, !token.isCJK else { return nil }
        var bytes = Array(token.text.utf8)
        if bytes.count >= 6, weekdays.contains(String(decoding: bytes[0..<2], as: UTF8.self)) {
            bytes.removeFirst(2)
        }
        guard (4...7).contains(bytes.count) else { return nil }
        var position = 0
        var day = 0
        while position < bytes.count, position < 2, bytes[position] >= 0x30, bytes[position] <= 0x39 {
            day = day * 10 + Int(bytes[position] - 0x30)
            position += 1
        }
        guard position > 0, (1...31).contains(day), position + 3 <= bytes.count else { return nil }
        let name = String(decoding: bytes[position..<(position + 3)], as: UTF8.self)
        guard let month = months[name] else { return nil }
        let rest = bytes[(position + 3)...]
        guard rest.isEmpty || (rest.count == 2 && rest.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return (day, month)
    }

    private static let weekdays: Set<String> = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

    private static let months: [String: Int] = [
        "JAN": 1, "FEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "JUN": 6, "JUL": 7, "AUG": 8, "SEP": 9, "OCT": 10,
        "NOV": 11, "DEC": 12,
    ]

    /// A flight number as a segment line prints it: one to four digits, perhaps with the booking class after
    /// them ("455", "100Y").
    static func segmentNumber(_ text: Substring) -> Int? {
        var digits = text
        if let last = digits.utf8.last, last >= 0x41, last <= 0x5A { digits = digits.dropLast() }
        guard (1...4).contains(digits.utf8.count), digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let number = Int(digits), number > 0
        else { return nil }
        return number
    }

    /// A time as a segment line prints it: "1540", "0705", "600P", "1005A", "1200N".
    static func segmentTime(_ text: Substring) -> (hour: Int, minute: Int)? {
        var digits = text
        var marker: UInt8?
        if let last = digits.utf8.last, [UInt8(ascii: "A"), UInt8(ascii: "P"), UInt8(ascii: "N")].contains(last) {
            marker = last
            digits = digits.dropLast()
        }
        guard (3...4).contains(digits.utf8.count), digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let value = Int(digits)
        else { return nil }
        var hour = value / 100
        let minute = value % 100
        guard minute < 60 else { return nil }
        switch marker {
        case UInt8(ascii: "P") where hour < 12: hour += 12
        case UInt8(ascii: "A") where hour == 12: hour = 0
        default: break
        }
        if marker != nil, !(1...12).contains(value / 100), marker != UInt8(ascii: "N") { return nil }
        guard hour < 24 else { return nil }
        return (hour, minute)
    }

    // MARK: - Legs of a confirmation

    /// The flights of a confirmation that lists several, each designator with its route. The route of a leg is
    /// written after its designator ("AV 27  Madrid (MAD) 12:45 → Bogotá (BOG) 15:35") or before it ("London
    /// Stansted - Venice Treviso / Flight FR 2837"), the same way for every leg of one text: the side the legs whose
    /// route is on one side only agree on. Failing both, the last code before the designator and the first after
    /// it ("06:10 London Luton (LTN) / Wizz Air · W6 2202 / 09:35 Budapest (BUD)").
    func confirmationLegs(in text: FlightText, codes: [Int], designators: [Designator]) -> [Leg] {
        guard designators.count >= 2 else { return [] }
        let tokens = text.tokens
        var sides: [(before: (String, String)?, after: (String, String)?, bridge: (String, String)?)] = []
        var onLine: [(String, String)?] = []
        var coded: [(String, String)?] = []
        for (position, designator) in designators.enumerated() {
            let start = designator.tokens.upperBound + 1
            let end = position + 1 < designators.count ? designators[position + 1].tokens.lowerBound : tokens.count
            let previousEnd = position > 0 ? designators[position - 1].tokens.upperBound + 1 : 0
            let after = windowRoute(text, start..<max(start, end), codes: codes)
            let before = windowRoute(text, previousEnd..<designator.tokens.lowerBound, codes: codes)
            var bridge: (String, String)?
            // Only codes within two lines of the designator enclose the leg ("07:00  Milan Bergamo · BGY / Orio al
            // Serio International / Ryanair · FR 2286").
            if let last = codes.last(where: { $0 >= previousEnd && $0 < designator.tokens.lowerBound }),
                let next = codes.first(where: { $0 >= start && $0 < end }), tokens[last].text != tokens[next].text,
                lineBreaks(tokens, last..<designator.tokens.lowerBound) <= 2,
                lineBreaks(tokens, start..<(next + 1)) <= 2
            {
                bridge = (String(tokens[last].text), String(tokens[next].text))
            }
            // "| BR191 | 2027/03/26 | 東京(羽田) 15:10 | 台北(松山) 17:55 |": the rest of the designator's line.
            var lineEnd = start
            while lineEnd < end, !tokens[lineEnd].startsLine { lineEnd += 1 }
            sides.append((before, after, bridge))
            // A side that writes the airports' codes over one that only names places (a forwarded email's header).
            let codedBefore = distinctCodes(text, previousEnd..<designator.tokens.lowerBound, codes: codes) >= 2
            let codedAfter = distinctCodes(text, start..<max(start, end), codes: codes) >= 2
            coded.append(codedBefore == codedAfter ? nil : codedBefore ? before : after)
            onLine.append(lineEnd > start ? windowRoute(text, start..<lineEnd, codes: codes, isLine: true) : nil)
        }
        let afterOnly = sides.filter { $0.after != nil && $0.before == nil }.count
        let beforeOnly = sides.filter { $0.before != nil && $0.after == nil }.count
        var legs: [Leg] = []
        for (position, (designator, side)) in zip(designators, sides).enumerated() {
            var leg = Leg(airline: designator.airline, number: designator.number)
            let route =
                onLine[position] ?? coded[position]
                ?? (beforeOnly > afterOnly
                    ? side.before ?? side.bridge ?? side.after : side.after ?? side.bridge ?? side.before)
            if let route { (leg.from, leg.to) = route }
            legs.append(leg)
        }
        // The same flight written twice (a summary and the details) is one leg, with the route it was given.
        var unique: [Leg] = []
        for leg in legs {
            if let index = unique.firstIndex(where: { $0.flightNumber == leg.flightNumber }) {
                if unique[index].from == nil { unique[index] = leg }
            } else {
                unique.append(leg)
            }
        }
        return unique
    }

    /// The number of different airport codes in a part of a text.
    private func distinctCodes(_ text: FlightText, _ window: Range<Int>, codes: [Int]) -> Int {
        var distinct: Set<Substring> = []
        for index in codes where window.contains(index) { distinct.insert(text.tokens[index].text) }
        return distinct.count
    }

    /// The line breaks in a range of tokens.
    private func lineBreaks(_ tokens: [FlightText.Token], _ range: Range<Int>) -> Int {
        tokens[range].dropFirst().filter(\.startsLine).count
    }

    /// The route a part of a text writes: two airport codes, a route of names or labelled blocks, or two places.
    /// On a single line, a route may write one end by its code and both by their names.
    private func windowRoute(
        _ text: FlightText,
        _ window: Range<Int>,
        codes: [Int],
        isLine: Bool = false
    ) -> (String, String)? {
        guard !window.isEmpty else { return nil }
        var distinct: [String] = []
        for index in codes where window.contains(index) {
            let code = String(text.tokens[index].text)
            if !distinct.contains(code) { distinct.append(code) }
        }
        if distinct.count >= 2 { return (distinct[0], distinct[1]) }
        if distinct.count == 1 {
            guard isLine else { return nil }
            // "Zürich 13:05 – New York Newark Liberty (EWR)": one end by its code, both by their names.
            guard let route = namedRoute(Array(text.tokens[window]), of: text),
                route.0 == distinct[0] || route.1 == distinct[0],
                !isCity(route.0, of: route.1), !isCity(route.1, of: route.0)
            else { return nil }
            return route
        }
        let part = FlightText(tokens: Array(text.tokens[window]), of: text)
        if let route = segmentRoute(part) { return route }
        if let route = namedRoute(Array(text.tokens[window]), of: text) { return route }
        if part.hasCJK {
            var places: [String] = []
            for place in cjkPlaces(in: part) where !places.contains(place.code) {
                places.append(place.code)
                if places.count == 2 { return (places[0], places[1]) }
            }
        }
        return nil
    }

    /// The first two places a leg's text names; with `exactlyTwo`, only when it names no other.
    func namedRoute(_ tokens: [FlightText.Token], of text: FlightText, exactlyTwo: Bool = false) -> (String, String)? {
        var codes: [String] = []
        for place in places(in: FlightText(tokens: tokens, of: text), capitalizedOnly: true)
        where !codes.contains(place.code) {
            // "Paris - Aéroport Charles de Gaulle": a city, then its airport, is the airport.
            if let last = codes.last, place.isAirportName,
                data.metropolitanAreas[last] != nil || data.airports[last] == nil
                    || data.cityKey(last) == data.cityKey(place.code),
                data.airport(last)?.countryCode == data.airport(place.code)?.countryCode
            {
                codes[codes.count - 1] = place.code
                continue
            }
            codes.append(place.code)
            if codes.count == 2, !exactlyTwo { return (codes[0], codes[1]) }
            if codes.count > 2 { return nil }
        }
        return codes.count == 2 ? (codes[0], codes[1]) : nil
    }

    /// The route of one leg's text: airport codes joined by an arrow or a dash, departure and arrival labels, two
    /// airport codes, or two places joined by a connector.
    private func segmentRoute(_ part: FlightText) -> (from: String, to: String)? {
        guard !part.tokens.isEmpty else { return nil }
        if let route = codeRoute(in: part) { return (route.from, route.to) }
        let departureBlock = block(in: part, departure: true)
        let arrivalBlock = block(in: part, departure: false)
        if let from = departureBlock?.code, let to = arrivalBlock?.code, from != to {
            return (from, to)
        }
        let places = places(in: part, capitalizedOnly: true)
        if let route = placeRoute(in: part, places: places) { return (route.from, route.to) }
        return nil
    }
}
