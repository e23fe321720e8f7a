/// Words and phrases the flight detector looks for, in the nine languages it reads.
///
/// Latin-script entries are folded (lower case, no diacritics) and compared with whole tokens; Chinese and
/// Japanese entries are searched as substrings, since those languages write no spaces.
enum FlightVocabulary {
    /// Words that name a flight: English, Spanish, French, German, Italian, Portuguese, Dutch.
    static let flightWords: Set<String> = [
        "flight", "flights", "vuelo", "vuelos", "vol", "vols", "flug", "fluge", "fluege", "volo", "voli", "voo",
        "voos", "vlucht", "vluchten",
    ]

    /// Endings of compound words that name a flight ("Rückflug", "Heimflug", "Terugvlucht", "Heenvlucht").
    static let flightWordSuffixes = ["flug", "vlucht"]

    /// Words that name flying somewhere ("Fly to Denver", "Fliegen nach Wien").
    static let flyWords: Set<String> = [
        "fly", "flying", "volar", "voler", "fliegen", "volare", "voar", "vliegen", "redeye", "red-eye",
    ]

    /// Chinese and Japanese words that name a flight or flying.
    static let cjkFlightWords = FlightCJKIndex(
        [
            "フライト", "飛行機", "航班", "飞往", "飛往", "班机", "班機", "搭乗便", "飞机", "登机", "便名", "搭乗券", "ご搭乗",
            "登機", "登机牌",
        ].map { ($0, true) }
    )

    /// Chinese and Japanese words that say a location is an airport.
    static let cjkAirportWords = FlightCJKIndex(["空港", "机场", "機場", "ターミナル", "航站楼"].map { ($0, true) })

    /// Connectors after which a destination follows ("to Tokyo", "nach Berlin", "a Madrid", "pour Paris").
    static let toWords: Set<String> = ["to", "nach", "a", "pour", "vers", "per", "para", "naar", "into", "→"]

    /// Connectors after which an origin follows ("from SFO", "von Wien", "de Madrid", "da Catania").
    static let fromWords: Set<String> = [
        "from", "von", "aus", "ab", "de", "desde", "da", "dal", "van", "uit", "depuis",
    ]

    /// Articles that may stand between a connector and a place ("para o Rio", "naar het ...").
    static let articles: Set<String> = ["the", "o", "el", "la", "le", "l", "il", "lo", "het", "der", "den"]

    /// Symbols that join the two ends of a route ("SFO → PEK", "FRA-JFK").
    static let arrows: Set<String> = ["→", "➔", "➝", "➜", "⟶", "⇒", "✈", "✈️", "›", "»", ">", "⇢", "✈︎", "~", "〜", "～"]

    /// Dashes that join the two ends of a route.
    static let dashes: Set<String> = ["-", "–", "—", "−", "‐"]

    /// Labels that introduce the departure in a confirmation ("Departure:", "Salida:", "Abflug:", "出発").
    static let departureLabels: Set<String> = [
        "depart", "departs", "departure", "departing", "dep", "salida", "sale", "origen", "depart", "departure",
        "abflug", "partenza", "partida", "saida", "origem", "vertrek", "départ",
    ]

    /// Labels that introduce the arrival in a confirmation ("Arrival:", "Llegada:", "Ankunft:", "到着").
    static let arrivalLabels: Set<String> = [
        "arrive", "arrives", "arrival", "arriving", "arr", "llegada", "llega", "destino", "arrivee", "ankunft",
        "arrivo", "chegada", "aankomst",
    ]

    /// Chinese and Japanese departure (`true`) and arrival (`false`) labels.
    static let cjkLabels = FlightCJKIndex(
        ["出発", "出发", "起飞"].map { ($0, true) } + ["到着", "到达", "抵达"].map { ($0, false) }
    )

    /// Phrases that introduce a booking reference ("Confirmation code: K7XQ2P").
    static let bookingPhrases = [
        "booking reference", "booking ref", "confirmation code", "confirmation number", "confirmation #",
        "confirmation:", "record locator", "reservation code", "pnr", "codigo de reserva", "localizador",
        "clave de reservacion", "reference de reservation", "numero de reservation", "buchungscode", "buchungsnummer",
        "codice di prenotazione", "boekingscode", "reserveringsnummer", "e-ticket", "ticket number",
    ]

    /// Chinese and Japanese phrases that introduce a booking reference.
    static let cjkBookingPhrases = ["予約番号", "確認番号", "预订编号", "订单号", "确认号", "航班号"]

    /// Finds the booking phrases of every language.
    static let bookingPhraseMatcher = FlightPhraseMatcher([bookingPhrases + cjkBookingPhrases], start: .bookingStart)

    /// Finds the look-alike cues; a group's index is its index in ``negativeCues``.
    static let negativePhrases = FlightPhraseMatcher(negativeCues.map(\.phrases), start: .negativeStart)

    /// Words after which a code is a room, a gate, a product or a reference, never a flight ("Room B12").
    static let codePrefixes: Set<String> = [
        "room", "rm", "gate", "gates", "suite", "ste", "apt", "apartment", "unit", "floor", "level", "sku", "model",
        "version", "ver", "ticket", "issue", "bug", "order", "invoice", "part", "item", "product", "platform", "track",
        "gleis", "binario", "voie", "spoor", "andén", "anden", "bus", "line", "linie", "tram", "train", "zug",
        "building", "bldg", "hall", "halle", "sala", "salle", "raum", "aula", "stanza", "quarto", "zaal", "kamer",
        "lokaal", "hörsaal", "horsaal", "court", "field", "pitch", "lane", "exit", "highway", "hwy", "interstate",
        "route", "channel", "kanal", "canal", "chapter", "section", "page", "table", "box", "locker", "zone",
        "vorlesung", "kurs", "course", "class", "exam", "esame", "examen", "cours", "curso", "corso", "lecture",
        "poliza", "policy", "firmware", "release", "build", "kb", "projekt", "project", "sprint", "epic",
    ]

    /// Words after which a code is a product, a course or a model, never a flight ("AB 1234 firmware").
    static let codeSuffixes: Set<String> = [
        "firmware", "review", "training", "meeting", "class", "lecture", "seminar", "exam", "midterm", "final",
        "lab", "essay", "homework", "study", "model", "series", "chip", "update", "release", "patch", "driver",
        "license", "licence", "sprint", "tutorial", "workshop", "kurs", "vorlesung", "cours", "curso", "corso",
        "college", "pro", "max", "plus", "ultra", "mini", "neo", "router", "camera", "tv", "controller", "parts",
        "restock", "launch", "console", "kickoff", "problem", "assignment", "quiz",
    ]

    /// Aircraft families: a code such as `A320` or `B737` is an aircraft, not Aegean flight 20.
    static func isAircraftModel(_ token: Substring) -> Bool {
        let characters = Array(token.utf8)
        guard characters.count == 4, let first = characters.first else { return false }
        let digits = characters.dropFirst()
        guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        switch first {
        case UInt8(ascii: "A"): return digits.first == UInt8(ascii: "3") || digits.first == UInt8(ascii: "2")
        case UInt8(ascii: "B"): return digits.first == UInt8(ascii: "7")
        case UInt8(ascii: "E"): return digits.first == UInt8(ascii: "1")
        default: return false
        }
    }

    /// Three-letter words of everyday business that are also airport codes: never read as an airport.
    static let notAirportCodes: Set<String> = [
        "CEO", "CFO", "CTO", "COO", "CIO", "CMO", "CPO", "API", "SDK", "CPU", "GPU", "RAM", "SSD", "USB", "PDF", "CSV",
        "XML", "SQL", "AWS", "GCP", "ETA", "ETD", "FYI", "TBD", "TBA", "OKR", "KPI", "ROI", "QBR", "HRS", "MTG", "REV",
        "DEV", "OPS", "SEO", "CRM", "ERP", "LLC", "INC", "USA", "EUR", "USD", "GBP", "JPY", "CNY", "CHF", "NBA", "NFL",
        "NHL", "MLB", "OOO", "WFH", "PTO", "AGM", "ALL", "AND", "THE", "FOR", "YOU", "NEW", "BIG", "TOP", "ONE", "TWO",
        "VIP", "DJS", "BBQ", "FAQ", "DIY", "CEST", "UTC", "GMT", "PST", "EST", "CET", "BST", "JST", "CST",
        "MST", "EDT", "PDT", "MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN", "JAN", "FEB", "MAR", "APR", "JUN", "JUL",
        "AUG", "SEP", "OCT", "NOV", "DEC", "ICE", "TGV", "AVE", "RER", "BUS", "CAR", "TAX", "VAT", "PIN", "SMS",
        "PNR", "PAX", "TKT", "SSR", "OSI", "DOB", "BAG", "SEG", "FOP", "NVB", "NVA", "RES", "REF", "FEE", "APP", "WEB",
        "WWW", "COM", "NET", "ORG", "KLM", "TAP", "SAS", "JAL", "ANA", "IDA", "VIA", "NON", "END",
        "AIR", "DEP", "ARR", "ITA", "MXN", "BRL", "ARS", "CLP", "COP", "PEN", "AUD", "CAD", "NZD", "SEK", "NOK",
        "DKK", "PLN", "CZK", "HUF", "TRY", "INR", "KRW", "TWD", "HKD", "SGD", "THB", "AED", "SAR", "ZAR", "RUB",
        "RMB", "VOL", "VOO", "TUI", "CVC", "NOT", "BUT", "ARE", "HAS", "WAS", "OUR",
    ]

    /// Folded names too common as words to be read as places.
    static let notPlaceNames: Set<String> = [
        "the", "and", "for", "home", "back", "work", "office", "team", "meeting", "call", "lunch", "dinner",
        "international", "airport", "municipal", "regional", "city", "central", "north", "south", "east", "west",
        "island", "lake", "river", "beach", "park", "station", "field", "county", "valley", "mount", "port",
        "gracias", "hola", "bienvenido", "bienvenida", "obrigado", "obrigada", "merci", "danke", "grazie", "welcome",
        "hello", "dear", "bonjour", "buongiorno", "olá", "ola", "hallo", "beste", "estimado", "caro", "cher",
        // Words of an airport's name, a booking's or a street's ("Laguindingan Intl", "Fare: Regular").
        "intl", "new", "old", "fare", "imperial", "liberty", "riverside",
        // Beaches, in the languages read.
        "praia", "playa", "plage", "spiaggia", "strand", "barra",
        // Given names.
        "george", "hugo", "lee",
    ]

    /// Phrases that say an event is about something other than taking a flight, by kind, with their weight.
    ///
    /// The phrases are matched against folded text (Latin) or as substrings (Chinese and Japanese).
    static let negativeCues: [(phrases: [String], weight: Double)] = [
        // Another way to travel.
        (
            [
                "train", "tren", "treno", "trem", "comboio", "trein", "zug", "bahn", "ice", "tgv", "ave", "eurostar",
                "thalys", "bus", "autobus", "coach", "ferry", "fahre", "faehre", "traghetto", "ferri", "veerboot",
                "boot", "balsa", "cruise", "新幹線", "電車", "列车", "高铁", "火车", "动车", "フェリー", "渡轮", "バス",
                "大巴",
            ], 0.5
        ),
        // Someone else's flight, or the airport as a place.
        (
            [
                "pick up", "pickup", "pick-up", "picking up", "drop off", "drop-off", "abholen", "abholung", "recoger",
                "chercher", "prendere", "buscar", "ophalen", "迎え", "接机", "送机", "見送り", "shuttle", "rental car",
                "mietwagen", "pickups", "taxi", "transfer", "transfers", "transfert", "traslado", "trasferimento",
                "chauffeur", "motorista", "接人", "接爸", "接妈", "接送", "送迎", "parken", "parking", "parkhaus",
                "parkplatz", "aparcamiento", "parcheggio", "estacionamento", "parkeren", "駐車", "停车",
            ], 0.45
        ),
        // "Flight" meaning something else.
        (
            [
                "flight club", "flight simulator", "flight sim", "flight attendant", "flight school", "flight lesson",
                "flight instructor", "flight deck", "flight test", "flight software", "flight controller",
                "arrow flight", "wine flight", "beer flight", "whisky flight", "whiskey flight", "tasting",
                "flight of the", "pre-flight", "preflight", "in-flight", "vol a voile", "vol libre", "voo livre",
                "vuelo libre", "volo libero", "drone", "drones", "paragliding", "paraglider", "parapente", "シミュレーター",
                "模拟器",
                "管理系统", "系统",
            ], 0.6
        ),
        // Sports.
        (
            [
                " vs ", " vs. ", " v ", "score", "final:", "match", "game", "spiel", "partido", "partita", "jogo",
                "wedstrijd", " gegen ", " x ", "試合", "比赛",
            ], 0.4
        ),
        // Teaching.
        (
            [
                "lecture", "course", "midterm", "exam", "homework", "essay", "study group", "problem set", "lab",
                "vorlesung", "klausur", "ubung", "clase", "examen", "cours", "corso", "esame", "lezione", "curso",
                "aula", "tentamen", "college", "講義", "授業", "考试", "课程", "培训", "认证",
            ], 0.4
        ),
        // Products, versions and work items.
        (
            [
                "firmware", "release", "version", "update", "upgrade", "patch", "sku", "restock", "sprint", "deploy",
                "licence", "license", "launch party", "review", "training", "workshop", "kickoff", "kick-off",
                "briefing", "planning", "retirement", "maintenance", "supplier", "design", "jira", "onboarding",
                "webinar", "demo", "機種変更", "评审",
            ], 0.35
        ),
        // Things to do before a trip.
        (
            [
                "book flight", "book flights", "compare", "vergleichen", "buchen", "reservar vuelo", "comparar",
                "comparer", "confrontare", "vergelijken", "check in online", "online check-in", "マイル確認",
                "look up", "search flights", "seat sale", "fare sale", "flash sale", "piso fare", "promo fare",
            ], 0.4
        ),
        // A stay, a rental car, shopping or a lounge at the airport, around someone's flight.
        (
            [
                "hotel", "hotels", "hostel", "inn", "motel", "resort", "suites", "hilton", "marriott", "hyatt",
                "sheraton", "ibis", "novotel", "mercure", "holiday inn", "radisson", "premier inn", "travelodge",
                "movenpick", "steigenberger", "nh hotel", "melia", "airbnb", "ubernachtung", "hebergement",
                "alojamiento", "alloggio", "alojamento", "accommodatie", "hertz", "avis", "sixt", "europcar",
                "enterprise rent-a-car", "budget rent", "alamo", "national car", "localiza", "movida", "thrifty",
                "dollar rent", "rent a car", "rent-a-car", "car hire", "car rental", "location de voiture",
                "alquiler de coche", "alquiler de coches", "noleggio auto", "autonoleggio", "aluguel de carro",
                "aluguer de viaturas", "autohuur", "autoverhuur", "duty free", "reserve & collect", "lounge",
                "ホテル", "酒店", "宾馆", "旅館", "民宿", "レンタカー", "租车", "免税", "check-out", "checkout", "late checkout",
                "breakfast", "ontbijt", "fruhstuck", "petit-dejeuner", "desayuno", "colazione", "pequeno-almoco",
                "citizenm", "moxy", "guesthouse", "bed and breakfast", "朝食", "早餐",
            ], 0.6
        ),
        // Meetings.
        (
            [
                "meeting", "sync", "standup", "stand-up", "1:1", "interview", "offsite", "call with", "besprechung",
                "reunion", "réunion", "riunione", "reuniao", "vergadering", "overleg", "打ち合わせ", "会議", "会议",
                "周会", "准备会", "handover",
            ], 0.3
        ),
    ]

    // MARK: - Ground travel

    /// Trains, coaches, buses and ferries, their operators and what their tickets say, by kind: the vehicle or
    /// operator, "coach" (alone, since it is also an airline cabin), what is on board, and stations.
    ///
    /// Latin entries are folded; Chinese and Japanese entries are searched as substrings.
    static let groundCues: [[String]] = [
        [
            "train", "trains", "tren", "trenes", "treno", "treni", "trem", "comboio", "trein", "treinen", "zug",
            "zuge", "bahn", "railway", "railways", "railjet", "nightjet", "intercity", "eurocity", "euronight",
            "regional express", "tgv", "inoui", "ouigo", "alvia", "avlo", "iryo", "frecciarossa", "frecciargento",
            "frecciabianca", "trenitalia", "italo treno", "italotreno", "renfe", "sncf", "deutsche bahn",
            "bahn.de", "obb", "oebb", "sbb", "sbb cff ffs", "ns international", "eurostar", "thalys", "flixbus",
            "flixtrain", "regiojet", "leo express", "westbahn", "alsa", "greyhound", "megabus", "national express",
            "amtrak", "via rail", "comboios de portugal", "alfa pendular", "intercidades", "rede expressos",
            "eurolines", "itabus", "terravision", "navetta", "navette", "lanzadera", "autobus", "autocar", "autocarro",
            "pullman", "fernbus", "bus", "buses", "ferry",
            "ferries", "fahre", "faehre", "traghetto", "ferri", "veerboot", "irctc", "indian railways", "shinkansen",
            "jr east", "jr west", "jr central", "jr kyushu", "12306", "rail ticket", "train ticket", "bahnticket",
            "billet de train", "biglietto treno", "billete de tren", "bilhete de comboio", "treinkaartje",
            "新幹線", "のぞみ", "ひかり", "こだま", "はやぶさ", "みずほ", "特急", "電車", "列車", "列车", "高铁", "火车", "动车", "铁路",
            "鐵路", "高鐵", "高速バス", "夜行バス", "バス", "大巴", "巴士", "客运", "长途汽车", "フェリー", "渡轮", "乗車券",
            "車票", "车票", "onibus", "viacao", "rodoviaria", "rodoviario", "terminal rodoviario", "terminal terrestre",
            "terminal de autobuses", "central de autobuses", "estacion de autobuses", "busterminal", "cruz del sur",
            "ado gl", "primera plus", "estrella blanca", "turbus", "tur bus", "flecha bus", "andesmar", "oltursa",
            "avanza", "monbus", "blablacar bus", "ouibus", "peter pan bus", "ourbus", "stagecoach", "citylink",
            "navire", "buque", "barco", "schiff", "ship", "vessel", "traversee", "travesia", "traversata",
            "overtocht", "corsica linea", "corsica ferries", "la meridionale", "balearia", "trasmed", "grimaldi",
            "moby", "tirrenia", "gnv", "brittany ferries", "stena line", "dfds", "irish ferries", "p&o ferries",
            "tallink", "viking line", "color line", "naviera armas", "fred olsen", "gare maritime",
            "estacion maritima", "stazione marittima", "terminal maritimo", "ferry terminal", "car deck", "码头",
            "轮渡", "船票", "高速船", "乗船",
        ],
        ["coach", "coaches"],
        [
            "carriage", "wagon", "voiture", "wagen", "carrozza", "coche", "carruagem", "rijtuig", "couchette",
            "berth", "sleeper", "liegewagen", "schlafwagen", "platform", "gleis", "voie", "binario", "anden",
            "spoor", "plataforma", "车厢", "号车", "号車", "車両", "番線", "寝台", "卧铺", "检票", "改札", "座席指定",
        ],
        [
            "station", "bahnhof", "hbf", "hauptbahnhof", "gare", "stazione", "estacion", "estacao", "centraal",
            "busbahnhof", "zob", "火车站", "高铁站", "车站", "駅",
        ],
    ]

    /// The index in ``groundCues`` of "coach", which is also the economy cabin of North American airlines.
    static let coachCueKind = 1

    /// Finds the ground-travel cues; a group's index is its index in ``groundCues``.
    static let groundPhrases = FlightPhraseMatcher(groundCues, start: .groundStart)

    /// Train categories written before a train's number, folded: a designator-shaped code after one of these
    /// ("EC 170", "RJ 1234", "FR 9611", "IC 2") is a train when the event speaks of ground travel.
    static let trainCategories: Set<String> = [
        "ice", "ic", "ec", "en", "rj", "rjx", "nj", "tgv", "fr", "fa", "fb", "ave", "re", "rb", "ir", "ire", "rex",
        "ter", "tlk", "eic", "ex", "icn", "cnl", "es", "ouigo", "inoui", "thalys", "eurostar", "alvia", "avlo",
        "iryo", "italo", "railjet", "nightjet", "intercity", "eurocity", "euronight", "regio", "zug", "train",
        "tren", "treno", "trein", "trem", "bus", "coach", "linie", "line", "ligne", "linea",
    ]

    /// Operators written before a train's or coach's number ("FlixBus N 1234", "RegioJet 1021").
    static let groundOperators: Set<String> = [
        "flixbus", "flixtrain", "regiojet", "westbahn", "greyhound", "megabus", "amtrak", "renfe", "sncf",
        "trenitalia", "frecciarossa", "frecciargento", "frecciabianca", "italo", "alsa", "eurolines", "itabus",
    ]

    /// Words that say a place is an airport, folded.
    static let airportWords: Set<String> = [
        "airport", "airports", "aeropuerto", "aeroport", "aeroports", "flughafen", "aeroporto", "luchthaven",
        "schiphol",
    ]

    /// Words that introduce a codeshare's operating carrier ("operated by", "opéré par", "durchgeführt von").
    static let operatedWords: Set<String> = [
        "operated", "operado", "operada", "opere", "operee", "durchgefuhrt", "durchgefuehrt", "operato", "operata",
        "uitgevoerd", "betrieben", "operating",
    ]

    /// Words between an airline's name and its flight number ("Flight number", "Flugnummer", "N°").
    static let numberWords: Set<String> = [
        "number", "no", "nr", "num", "flugnummer", "flugnr", "vluchtnummer", "vluchtnr", "numero", "n", "nº",
        "vuelo", "vol", "volo", "voo", "flug", "vlucht", "flight", "flightnumber",
    ]

    /// ICAO codes of airlines that people and airlines' own systems write flight numbers with ("EZY8868",
    /// "KLM 643"), and the IATA designator they stand for. Codes that are also everyday words or train names
    /// ("ICE", Icelandair's) are left out.
    static let icaoAirlines: [String: String] = [
        "AAL": "AA", "ACA": "AC", "AEE": "A3", "AFR": "AF", "ANA": "NH", "ASA": "AS", "AUA": "OS", "BAW": "BA",
        "BEL": "SN", "CCA": "CA", "CES": "MU", "CPA": "CX", "CSN": "CZ", "DAL": "DL", "DLH": "LH", "EIN": "EI",
        "EJU": "EC", "ETD": "EY", "EWG": "EW", "EZS": "DS", "EZY": "U2", "FIN": "AY", "IBE": "IB", "ITY": "AZ",
        "JAL": "JL", "JBU": "B6", "KAL": "KE", "KLM": "KL", "LOT": "LO", "NAX": "DY", "NKS": "NK", "NOZ": "DY",
        "QFA": "QF", "QTR": "QR", "RYR": "FR", "SAS": "SK", "SIA": "SQ", "SWA": "WN", "SWR": "LX", "TAP": "TP",
        "THY": "TK", "TRA": "HV", "UAE": "EK", "UAL": "UA", "VLG": "VY", "WZZ": "W6",
    ]

    /// Words that head the flight a schedule change replaces ("Previous flight (cancelled)", "Bisherige
    /// Verbindung", "Vol initial"), folded.
    static let replacedWords: Set<String> = [
        "previous", "previously", "original", "originally", "old", "canceled", "cancelled", "bisherige", "bisheriger",
        "bisheriges", "ursprungliche", "ursprunglicher", "alte", "alter", "annule", "annulee", "ancien", "ancienne",
        "initial", "anterior", "cancelado", "cancelada", "precedente", "originale", "cancellato", "cancellata",
        "antigo", "antiga", "oude", "oorspronkelijke", "geannuleerd", "vervallen", "storniert", "gestrichen",
    ]

    /// Words that head the flight a schedule change books instead ("New flight", "Neue Verbindung"), folded.
    static let replacementWords: Set<String> = [
        "new", "neue", "neuer", "neues", "nouveau", "nouvel", "nouvelle", "nuevo", "nueva", "nuovo", "nuova", "novo",
        "nova", "nieuwe", "nieuw", "updated", "revised", "rebooked", "umgebucht",
    ]

    /// Chinese and Japanese headings of the replaced (`false`) and the new (`true`) flight of a schedule change.
    static let cjkScheduleChange = FlightCJKIndex(
        ["変更前", "旧", "原航班", "取消", "原定"].map { ($0, false) } + ["変更後", "新航班", "新しい", "变更后", "改为"].map { ($0, true) }
    )

    /// Month names and abbreviations, folded, in the languages the detector reads.
    static let monthWords: Set<String> = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "january",
        "february", "march", "april", "june", "july", "august", "september", "october", "november", "december",
        "ene", "abr", "ago", "dic", "enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
        "septiembre", "octubre", "noviembre", "diciembre", "janv", "fevr", "mars", "avr", "mai", "juin", "juil",
        "aout", "janvier", "fevrier", "avril", "juillet", "septembre", "octobre", "novembre", "decembre",
        "marz", "okt", "dez", "januar", "februar", "juni", "juli", "oktober", "dezember", "gen", "mag", "giu",
        "lug", "ott", "gennaio", "febbraio", "aprile", "maggio", "giugno", "luglio", "settembre", "ottobre",
        "dicembre", "fev", "out", "janeiro", "fevereiro", "marco", "maio", "junho", "julho", "setembro", "outubro",
        "novembro", "dezembro", "mrt", "mei", "januari", "februari", "maart", "augustus",
    ]
}
