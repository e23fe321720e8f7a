import Foundation

extension FlightAnalysis {
    // MARK: - Trains, coaches and ferries

    /// What an event says about travel on the ground or by sea: a high-speed train between two cities with
    /// airports has a designator-shaped number ("EC 170", "RJ 1234", "FR 9611"), a booking reference and a
    /// departure and arrival, and is not a flight.
    struct GroundTravel {
        /// The kinds of ground-travel cue found (the indices of ``FlightVocabulary/groundCues``).
        var kinds: Set<Int> = []

        /// Whether anything in the event speaks of a train, a coach or a ferry.
        var isPresent: Bool { !kinds.isEmpty }
        /// Whether the event reads like a ticket for one: its title or location speaks of ground travel, or its
        /// description names the vehicle with a coach, seat, platform or station.
        var isTicket = false
    }

    /// The ground-travel cues of every field: in a ticket the operator and the coach number are often only in the
    /// description.
    func groundTravel() -> GroundTravel {
        var travel = GroundTravel()
        for (text, isDescription) in [(title, false), (location, false), (description, true)]
        where !text.tokens.isEmpty {
            let kinds = FlightVocabulary.groundPhrases.groups(in: text)
            travel.kinds.formUnion(kinds)
            if !kinds.isEmpty, !isDescription || kinds.count > 1 { travel.isTicket = true }
        }
        // "Coach" is also the economy cabin of North American airlines ("Coach class", "Main Cabin (Coach)").
        if travel.kinds == [FlightVocabulary.coachCueKind], mentionsCoachCabin() {
            travel.kinds = []
        }
        return travel
    }

    /// Whether "coach" is the airline cabin: followed by "class", "cabin", "seat", "fare" or "economy", or
    /// after "main cabin".
    private func mentionsCoachCabin() -> Bool {
        for text in [title, description] {
            let tokens = text.tokens
            for index in tokens.indices where tokens[index].folded == "coach" {
                if let next = nextWord(tokens, after: index),
                    ["class", "cabin", "seat", "fare", "economy", "y"].contains(next.folded)
                {
                    return true
                }
                if let previous = previousWord(tokens, before: index), ["cabin", "main"].contains(previous.folded) {
                    return true
                }
            }
        }
        return false
    }

    /// Whether a designator is a train's or a coach's number: a train category or an operator's name before it
    /// ("ICE 1234", "TGV 9577", "Frecciarossa FR 9611"), or, in an event about ground travel, a code that is
    /// also a train category ("EC170", "RJ 1234", "IC 2"); never the designator of the airline the text names.
    func isGroundNumber(
        _ designator: Designator,
        in tokens: [FlightText.Token],
        ground: GroundTravel,
        named airline: String?
    ) -> Bool {
        // "Ryanair · FR5321": the airline the text names flies under that code.
        if designator.airline == airline { return false }
        if ground.isTicket, FlightVocabulary.trainCategories.contains(designator.airline.lowercased()) {
            return true
        }
        guard ground.isPresent, let previous = previousWord(tokens, before: designator.tokens.lowerBound) else {
            return false
        }
        return FlightVocabulary.trainCategories.contains(previous.folded)
            || FlightVocabulary.groundOperators.contains(previous.folded)
    }

    /// Whether the title says the event is a train, a coach or a ferry ("Rail&Fly: Köln Hbf → Frankfurt
    /// Flughafen", "中旅巴士 深圳湾→香港机场", "成田エクスプレス13号") and nothing in it says flight: then a flight number
    /// in the description is the flight the person takes after, not the event.
    func titleIsGroundTravel(designators: [Designator]) -> Bool {
        guard !title.tokens.isEmpty else { return false }
        var isGround = !FlightVocabulary.groundPhrases.groups(in: title).isEmpty
        if !isGround {
            // "のぞみ21号", "G1234次": a train's number in Japanese and Chinese.
            let tokens = title.tokens
            isGround = tokens.indices.dropLast().contains { index in
                tokens[index].isNumber && !tokens[index + 1].isSpaced && tokens[index + 1].isCJK
                    && (tokens[index + 1].text.first == "号" || tokens[index + 1].text.first == "次")
                    && !tokens[index + 1].text.hasPrefix("号機")
            }
        }
        guard isGround, designators.isEmpty, airlineName(in: title) == nil else { return false }
        if let keyword = flightKeyword(in: title), !keyword.isAmbiguous { return false }
        return true
    }

    /// Whether an event that speaks of ground travel also says something only a flight says: a flight word
    /// ("flight", "Flug", "航班"), an airline's name with one of its flight numbers, an itinerary line of a
    /// reservation system, or flight markup. An airport's name is not enough: trains and coaches go to airports.
    func hasAirEvidence(
        namedAirline: NamedAirline?,
        titleDesignators: [Designator],
        designators: [Designator],
        itinerary: [Leg]
    ) -> Bool {
        // "福岡出張 JL315", "Vol Porto FR 4478": a flight number in the title that is no train's.
        if isSchemaReservation || !itinerary.isEmpty { return true }
        if titleDesignators.contains(where: { !FlightVocabulary.trainCategories.contains($0.airline.lowercased()) }) {
            return true
        }
        if let namedAirline,
            namedAirline.number != nil
                || designators.contains(where: {
                    $0.airline == namedAirline.code
                })
        {
            return true
        }
        for text in [title, description] {
            if let keyword = flightKeyword(in: text), !keyword.isAmbiguous { return true }
        }
        return false
    }
}
