import Foundation

/// The reading of one event: the evidence for and against a flight, and the flight's details.
///
/// Evidence adds to a score and look-alikes take from it; the score, clamped to 0...1, is the confidence. Each
/// kind of evidence counts once, so that a long confirmation does not outweigh its title.
///
/// A class, used by one detection on one thread: its readers capture it in closures, and a struct this large would
/// be copied, with all its references retained, at every capture.
final class FlightAnalysis {
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
        /// Whether the block writes the airport (its code or its name), not only its city.
        var isPrecise = false
    }

    let data: FlightReferenceData
    let event: FlightDetector.Event
    let title: FlightText
    let description: FlightText
    let location: FlightText

    var evidence = 0.0
    var counterEvidence = 0.0
    var isSchemaReservation = false

    var airline: String?
    var flightNumber: String?
    var from: String?
    var to: String?
    var departure: Date?
    var arrival: Date?
    var airlineIsRetired = false
    /// The indices of the description's airport codes (``codeIndices(in:)``), read once.
    lazy var descriptionCodes: [Int] = codeIndices(in: description)
    /// The places the title and the description name in Chinese or Japanese script, read once.
    lazy var titleCJKPlaces: [(code: String, range: Range<String.Index>)] = cjkPlaces(in: title)
    lazy var descriptionCJKPlaces: [(code: String, range: Range<String.Index>)] = cjkPlaces(in: description)
    var legs: [Leg] = []

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
            airline: airline.flatMap { airlineRecord($0, retired: airlineIsRetired) },
            flightNumber: flightNumber,
            departureAirport: from.flatMap(data.airport),
            arrivalAirport: to.flatMap(data.airport),
            departure: departure ?? event.start,
            arrival: arrival ?? event.end,
            legs: legs.count > 1
                ? legs.map { leg in
                    FlightLeg(
                        airline: airlineRecord(leg.airline, retired: false),
                        flightNumber: leg.flightNumber,
                        departureAirport: leg.from.flatMap(data.airport),
                        arrivalAirport: leg.to.flatMap(data.airport),
                        departure: leg.departure,
                        arrival: leg.arrival
                    )
                } : []
        )
    }

    /// The airline of a designator: today's carrier, or the one that last flew under it when none does or the
    /// text names the retired one.
    func airlineRecord(_ code: String, retired: Bool) -> Airline? {
        if retired, let airline = data.retiredAirlines[code] { return airline }
        return data.airlines[code] ?? data.retiredAirlines[code]
    }

    /// The leg an event is about: the one its title names, the one leaving nearest the event's start, or the
    /// first.
    func eventLeg(of legs: [Leg], title designator: Designator?) -> Leg? {
        if let designator, let leg = legs.first(where: { $0.flightNumber == designator.flightNumber }) {
            return leg
        }
        guard let start = event.start else { return legs.first }
        let timed = legs.compactMap { leg in leg.departure.map { (leg, abs($0.timeIntervalSince(start))) } }
        if let nearest = timed.min(by: { $0.1 < $1.1 }), nearest.1 < 36 * 3600 { return nearest.0 }
        return legs.first
    }

    /// The designators of a schedule change's new flights: one in a part headed "previous", "cancelled",
    /// "bisherige Verbindung" or "変更前" is the flight it replaces, unless all are.
    func current(_ designators: [Designator], in text: FlightText) -> [Designator] {
        guard designators.count > 1 else { return designators }
        let kept = designators.filter { !isReplaced(at: $0.tokens.lowerBound, in: text) }
        return kept.isEmpty ? designators : kept
    }

    /// Whether the flight written at a token is one a schedule change replaces: the nearest heading before it,
    /// within 30 tokens, says "previous" or "cancelled" rather than "new".
    func isReplaced(at position: Int, in text: FlightText) -> Bool {
        let tokens = text.tokens
        var index = position - 1
        while index >= 0, index >= position - 30 {
            let token = tokens[index]
            if token.isWord, FlightVocabulary.replacedWords.contains(token.folded) { return true }
            if token.isWord, FlightVocabulary.replacementWords.contains(token.folded) { return false }
            index -= 1
        }
        if text.hasCJK {
            let before = FlightText(tokens: Array(tokens[max(0, position - 30)..<position]), of: text)
            if let last = FlightVocabulary.cjkScheduleChange.matches(in: before).last { return !last.value }
        }
        return false
    }

    /// The designators that name a flight as it was sold: one written after "operated by" is the same flight's
    /// operating carrier, unless it is the only one.
    func marketing(_ designators: [Designator], in text: FlightText) -> [Designator] {
        let sold = designators.filter { designator in
            let start = designator.tokens.lowerBound
            let window = text.tokens[max(0, start - 5)..<start]
            return !window.contains { $0.isWord && FlightVocabulary.operatedWords.contains($0.folded) }
        }
        return sold.isEmpty ? designators : sold
    }

    /// The confidence: evidence less counter-evidence, clamped to 0...1 and rounded to a millionth, so that
    /// 0.35 + 0.15 is 0.5 and not 0.49999999999999994.
    var score: Double {
        (min(1, max(0, evidence - counterEvidence)) * 1_000_000).rounded() / 1_000_000
    }

    // MARK: - Reading

    private func analyse() {
        if let reservation = FlightSchemaMarkup(description.text, data: data) {
            isSchemaReservation = true
            airline = reservation.airline
            flightNumber = reservation.flightNumber
            from = reservation.departureAirport
            to = reservation.arrivalAirport
            departure = reservation.departureTime.flatMap { parseTime($0, airport: from) }
            arrival = reservation.arrivalTime.flatMap { parseTime($0, airport: to) }
        }

        // Trains, coaches and ferries: their numbers are not flight numbers.
        let ground = groundTravel()

        // Airline names ("Lufthansa", "Air France", "全日空").
        var namedAirline = airlineName(in: title) ?? airlineName(in: description) ?? airlineName(in: location)
        // "Southwest: OAK → SAN" in the title, "Southwest Airlines # 2217" in the description; "スカイマーク 神戸→羽田"
        // in the title, "102便 7:00発" in the description.
        if let named = namedAirline, named.number == nil {
            if let other = airlineName(in: description), other.code == named.code, other.number != nil {
                namedAirline = other
            } else if title.hasCJK, let number = Self.cjkFlightNumber(in: description) {
                namedAirline?.number = number
            }
        }

        // Airline and flight number; a codeshare's "operated by" designator describes the same flight.
        let named = namedAirline?.code
        let titleDesignators = designators(in: title).filter {
            !isGroundNumber($0, in: title.tokens, ground: ground, named: named)
        }
        let descriptionDesignators = current(
            marketing(
                designators(in: description).filter {
                    !isGroundNumber($0, in: description.tokens, ground: ground, named: named)
                },
                in: description
            ),
            in: description
        )
        let locationDesignators = designators(in: location).filter {
            !isGroundNumber($0, in: location.tokens, ground: ground, named: named)
        }
        let otherDesignators = descriptionDesignators + locationDesignators
        if let first = titleDesignators.first {
            evidence += first.isWeak ? 0.3 : 0.4
        } else if let first = otherDesignators.first {
            evidence += first.isWeak ? 0.2 : 0.3
        }

        // The flights of a booking that lists several: a reservation system's segment lines, or designators each
        // with its route.
        let itinerary = itineraryLegs(in: description)
        if !itinerary.isEmpty { evidence += 0.9 }
        legs =
            itinerary.isEmpty
            ? confirmationLegs(in: description, codes: descriptionCodes, designators: descriptionDesignators)
            : itinerary
        let leg = legs.isEmpty ? nil : eventLeg(of: legs, title: titleDesignators.first)
        if let leg, titleDesignators.isEmpty, flightNumber == nil {
            airline = leg.airline
            flightNumber = leg.flightNumber
        }
        if let first = titleDesignators.first ?? otherDesignators.first, flightNumber == nil {
            airline = airline ?? first.airline
            flightNumber = first.flightNumber
        }

        // What the airline's name adds: evidence, the airline, and the flight number written after it.
        if let namedAirline {
            evidence += 0.15
            // "Alaska Airlines flight 1139", "US Airways(US) #403": a flight number as good as a designator.
            if namedAirline.number != nil, titleDesignators.isEmpty, otherDesignators.isEmpty {
                evidence += airlineName(in: title)?.number != nil ? 0.4 : 0.3
            }
            airline = airline ?? namedAirline.code
            if flightNumber == nil, let number = namedAirline.number, airline == namedAirline.code {
                flightNumber = "\(namedAirline.code)\(number)"
            }
            if namedAirline.isRetired, airline == namedAirline.code { airlineIsRetired = true }
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

        // Trains, coaches and ferries: without anything only a flight has, the event is not one.
        if ground.isPresent {
            let allDesignators = titleDesignators + otherDesignators
            if titleIsGroundTravel(designators: titleDesignators) {
                counterEvidence += 1
            } else if hasAirEvidence(
                namedAirline: namedAirline,
                titleDesignators: titleDesignators,
                designators: allDesignators,
                itinerary: itinerary
            ) {
                counterEvidence += min(0.3, 0.1 * Double(ground.kinds.count))
            } else {
                counterEvidence += 1
            }
        }

        // Fill in the route, the most explicit source first: in a booking of several flights, the event's own.
        // A city named in the title ("Flight to Reykjavík") gives way to the airport the text writes ("KEF").
        let legRoute = legs.count > 1 || !itinerary.isEmpty ? leg.map { ($0.from, $0.to, true) } : nil
        let titleCodes = codeRoute(in: title)
        // Each candidate says, for each end, whether it writes the airport itself.
        let descriptionHasCodes = codeRoute(in: description) != nil
        let candidates: [(String?, String?, Bool, Bool)?] = [
            legRoute.map { ($0.0, $0.1, $0.2, $0.2) },
            titleRoute.map { ($0.from, $0.to, titleCodes != nil, titleCodes != nil) },
            descriptionRoute.map { ($0.from, $0.to, descriptionHasCodes, descriptionHasCodes) },
            (
                departureBlock?.code, arrivalBlock?.code, departureBlock?.isPrecise ?? false,
                arrivalBlock?.isPrecise ?? false
            ),
            lineRoute(in: description).map { ($0.0, $0.1, $0.2, $0.2) },
            timetableRoute(in: description).map { ($0.0, $0.1, $0.2, $0.2) },
            mentionedRoute(in: description, codes: descriptionCodes, places: descriptionPlaces).map {
                ($0.0, $0.1, $0.2, $0.2)
            },
            (titleEnds.from, titleEnds.to, false, false),
        ]
        var isPrecise = (from: false, to: false)
        for candidate in candidates {
            guard let candidate else { continue }
            // An end read from its airport is kept.
            if !isPrecise.from { from = refined(from, by: candidate.0, other: to, precise: candidate.2) }
            if !isPrecise.to { to = refined(to, by: candidate.1, other: from, precise: candidate.3) }
            if candidate.2, let code = candidate.0, from == code, data.metropolitanAreas[code] == nil {
                isPrecise.from = true
            }
            if candidate.3, let code = candidate.1, to == code, data.metropolitanAreas[code] == nil {
                isPrecise.to = true
            }
        }
        if from == nil, let code = locationAirport.code, code != to { from = code }
        // A confirmation that names two places, one of them the known end: the other is the other end.
        if from == nil || to == nil,
            let pair = namedRoute(description.tokens, of: description, exactlyTwo: true)
        {
            if from == nil, to == pair.1 || to == pair.0 { from = to == pair.1 ? pair.0 : pair.1 }
            if to == nil, from == pair.0 || from == pair.1 { to = from == pair.0 ? pair.1 : pair.0 }
        }
        // One end known, and a description that names one other airport: "vol pour Ajaccio", "Orly 1, 9h45".
        if (from == nil) != (to == nil), let known = from ?? to,
            let other = onlyOtherAirport(than: known, places: descriptionPlaces)
        {
            if from == nil { from = other } else { to = other }
        }
        // A city with several airports, read from its name: the one of its airports the text names.
        if !isPrecise.from, let code = from, let airport = namedAirport(of: code, other: to, places: descriptionPlaces)
        {
            from = airport
        }
        if !isPrecise.to, let code = to, let airport = namedAirport(of: code, other: from, places: descriptionPlaces) {
            to = airport
        }

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
            if let leg, leg.departure != nil, legs.count > 1 || !itinerary.isEmpty {
                departure = leg.departure
                arrival = leg.arrival ?? arrival
            }
        }
    }

    /// The airports a city's name stands for: a metropolitan area's, or the other airports of an airport's city
    /// when the city's name reads as that airport ("Shanghai" as SHA, beside PVG); none for an airport named as
    /// such.
    func siblingAirports(of code: String) -> [String] {
        if let area = data.metropolitanAreas[code] { return area.members }
        let key = data.cityKey(code)
        guard let airport = data.airports[code], !key.isEmpty, data.places[key] == code,
            let airports = data.cityAirports[key], airports.count > 1
        else { return [] }
        return airports.filter { $0 != code && data.airports[$0]?.countryCode == airport.countryCode }
    }

    /// The airport of a city the description names, by code or by the airport's name, first in the text ("Milán
    /// (BGY)" for Milan, "Londra Heathrow" for London, "浦东" for Shanghai); nil when it names none, or names the
    /// city's default airport itself.
    func namedAirport(of code: String, other: String?, places: [Place]) -> String? {
        guard !descriptionCodes.isEmpty || description.hasCJK || places.contains(where: \.isAirportName) else {
            return nil
        }
        let siblings = siblingAirports(of: code)
        guard !siblings.isEmpty else { return nil }
        let tokens = description.tokens
        var mentions: [(position: String.Index, code: String)] = []
        for index in descriptionCodes {
            mentions.append((tokens[index].text.startIndex, String(tokens[index].text)))
        }
        for place in places where place.isAirportName {
            mentions.append((tokens[place.tokens.lowerBound].text.startIndex, place.code))
        }
        // The city written in Chinese or Japanese script reads as its default airport: only the others count.
        for place in descriptionCJKPlaces where place.code != code {
            mentions.append((place.range.lowerBound, place.code))
        }
        if mentions.contains(where: { $0.code == code }) { return nil }
        return mentions.sorted { $0.position < $1.position }
            .first { $0.code != other && siblings.contains($0.code) }?.code
    }

    /// The one airport the description names, by code or by the airport's own name, other than a known end (or
    /// one of the airports of its city); nil when it names none or several.
    func onlyOtherAirport(than known: String, places: [Place]) -> String? {
        var found: String?
        func add(_ code: String) -> Bool {
            guard code != known, !isCity(known, of: code), !isCity(code, of: known) else { return true }
            if let found, found != code { return false }
            found = code
            return true
        }
        for index in descriptionCodes where !add(String(description.tokens[index].text)) { return nil }
        for place in places where place.isAirportName && !add(place.code) { return nil }
        for place in descriptionCJKPlaces where data.metropolitanAreas[place.code] == nil && !add(place.code) {
            return nil
        }
        return found
    }

    /// The airport to keep: the one found first, unless it is a city and the candidate is one of its airports
    /// ("Frankfurt – New York" in the title, "Ankunft: New York (JFK)" in the description).
    func refined(_ current: String?, by candidate: String?, other: String?, precise: Bool = false) -> String? {
        guard let candidate, candidate != other else { return current }
        guard let current else { return candidate }
        // A written airport code replaces a guess from a city's name in the same country.
        if precise, current != candidate, data.airports[candidate] != nil,
            data.airport(current)?.countryCode == data.airports[candidate]?.countryCode
        {
            return candidate
        }
        if let area = data.metropolitanAreas[current], area.members.contains(candidate) { return candidate }
        if data.airports[current] == nil, data.airports[candidate]?.city == data.airport(current)?.city {
            return candidate
        }
        if let airport = data.airports[current], let other = data.airports[candidate], airport.city == other.city,
            data.places[data.cityKey(airport.iataCode)] == current, current != candidate
        {
            // A city written by name resolves to its main airport; an airport named in the text is more precise.
            return candidate
        }
        return current
    }

}

extension Substring {
    /// Whether the substring ends with the characters of `suffix`, compared by the standard library.
    func hasEnding(_ suffix: String) -> Bool {
        reversed().starts(with: suffix.reversed())
    }
}
