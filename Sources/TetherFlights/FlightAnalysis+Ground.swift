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
    }

    /// The ground-travel cues of every field: in a ticket the operator and the coach number are often only in the
    /// description.
    func groundTravel() -> GroundTravel {
        var travel = GroundTravel()
        for text in [title, location, description] where !text.tokens.isEmpty {
            travel.kinds.formUnion(FlightVocabulary.groundPhrases.groups(in: text))
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
    /// also a train category ("EC170", "RJ 1234", "IC 2").
    func isGroundNumber(_ designator: Designator, in tokens: [FlightText.Token], ground: GroundTravel) -> Bool {
        if ground.isPresent, FlightVocabulary.trainCategories.contains(designator.airline.lowercased()) {
            return true
        }
        guard ground.isPresent, let previous = previousWord(tokens, before: designator.tokens.lowerBound) else {
            return false
        }
        return FlightVocabulary.trainCategories.contains(previous.folded)
            || FlightVocabulary.groundOperators.contains(previous.folded)
    }

    /// Whether an event that speaks of ground travel also says something only a flight says: a flight word
    /// ("flight", "Flug", "航班"), an airline's name with one of its flight numbers, an itinerary line of a
    /// reservation system, or flight markup. An airport's name is not enough: trains and coaches go to airports.
    func hasAirEvidence(namedAirline: NamedAirline?, designators: [Designator], itinerary: [Leg]) -> Bool {
        if isSchemaReservation || !itinerary.isEmpty { return true }
        if let namedAirline, namedAirline.number != nil || designators.contains(where: {
            $0.airline == namedAirline.code
        }) {
            return true
        }
        for text in [title, description] {
            if let keyword = flightKeyword(in: text), !keyword.isAmbiguous { return true }
        }
        return false
    }
}
