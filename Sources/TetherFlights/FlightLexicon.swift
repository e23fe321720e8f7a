/// What a word can be to the detector, looked up once per token: each of the detector's word lists is a flag, so
/// that reading a text hashes each word once instead of once per list.
struct FlightLexeme: OptionSet, Sendable, Hashable {
    let rawValue: UInt32

    /// A word that names a flight ("flight", "Flug", "vuelo").
    static let flightWord = FlightLexeme(rawValue: 1 << 0)
    /// A word that names flying ("fly", "fliegen").
    static let flyWord = FlightLexeme(rawValue: 1 << 1)
    /// A connector before a destination ("to", "nach").
    static let toWord = FlightLexeme(rawValue: 1 << 2)
    /// A connector before an origin ("from", "von").
    static let fromWord = FlightLexeme(rawValue: 1 << 3)
    /// A departure label ("Departure", "Abflug").
    static let departureLabel = FlightLexeme(rawValue: 1 << 4)
    /// An arrival label ("Arrival", "Ankunft").
    static let arrivalLabel = FlightLexeme(rawValue: 1 << 5)
    /// The first word of a place name of the reference data.
    static let placeStart = FlightLexeme(rawValue: 1 << 6)
    /// The first word of an airline name of the reference data.
    static let airlineStart = FlightLexeme(rawValue: 1 << 7)
    /// The first word of a look-alike phrase (``FlightVocabulary/negativePhrases``).
    static let negativeStart = FlightLexeme(rawValue: 1 << 8)
    /// The first word of a ground-travel phrase (``FlightVocabulary/groundPhrases``).
    static let groundStart = FlightLexeme(rawValue: 1 << 9)
    /// The first word of a booking-reference phrase.
    static let bookingStart = FlightLexeme(rawValue: 1 << 10)
    /// A word that says a place is an airport.
    static let airportWord = FlightLexeme(rawValue: 1 << 11)
    /// A word between an airline's name and its flight number ("number", "Flugnummer").
    static let numberWord = FlightLexeme(rawValue: 1 << 12)

    /// The flags of the word lists, with the lists' words.
    static func lists(_ data: FlightReferenceData) -> [(FlightLexeme, any Sequence<String>)] {
        [
            (.flightWord, FlightVocabulary.flightWords), (.flyWord, FlightVocabulary.flyWords),
            (.toWord, FlightVocabulary.toWords), (.fromWord, FlightVocabulary.fromWords),
            (.departureLabel, FlightVocabulary.departureLabels), (.arrivalLabel, FlightVocabulary.arrivalLabels),
            (.placeStart, data.placeFirstWords), (.airlineStart, data.airlineFirstWords),
            (.negativeStart, FlightVocabulary.negativePhrases.firstWords),
            (.groundStart, FlightVocabulary.groundPhrases.firstWords),
            (.bookingStart, FlightVocabulary.bookingPhraseMatcher.firstWords),
            (.airportWord, FlightVocabulary.airportWords), (.numberWord, FlightVocabulary.numberWords),
        ]
    }
}

/// The flags of every word the detector knows, by folded word.
enum FlightLexicon {
    /// Built on first use, after the reference data.
    static let shared: [String: FlightLexeme] = {
        var lexicon: [String: FlightLexeme] = [:]
        for (flag, words) in FlightLexeme.lists(.shared) {
            for word in words { lexicon[word, default: []].insert(flag) }
        }
        return lexicon
    }()
}
