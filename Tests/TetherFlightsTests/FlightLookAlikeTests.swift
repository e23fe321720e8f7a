import Foundation
import Testing
import TetherFlights

/// Events that look like flights and are not, by class.
struct FlightLookAlikeTests {
    private func isFlight(_ title: String, description: String? = nil, location: String? = nil) -> Bool {
        let start = Date(timeIntervalSince1970: 1_806_604_200)
        return FlightDetector().detect(
            title: title,
            description: description,
            location: location,
            start: start,
            end: start.addingTimeInterval(3600)
        ).isFlight
    }

    @Test(arguments: [
        "Room B12", "Team sync – Room LH100", "Coffee at Gate A32", "Gate B22", "Raum EG 12", "Salle AF 204",
    ])
    func roomsAndGates(title: String) {
        #expect(!isFlight(title))
    }

    @Test(arguments: ["A320 review", "B737 MAX training", "A350 cabin workshop", "E190 planning", "A321neo Schulung"])
    func aircraftModels(title: String) {
        #expect(!isFlight(title))
    }

    @Test(arguments: ["UA meeting", "UA/UX review", "DL team lunch", "BA offsite", "AF planning session"])
    func airlineCodesWithoutAFlightNumber(title: String) {
        #expect(!isFlight(title))
    }

    @Test(
        arguments: [
            "iOS 17", "iOS 17 release review", "AB 1234 firmware", "SKU LH400", "MS 365 licence renewal",
            "Projekt LH 2.0 Kickoff", "LG 55 TV delivery", "Order EK 2000 controller parts",
        ]
    )
    func productAndVersionCodes(title: String) {
        #expect(!isFlight(title))
    }

    @Test(
        arguments: [
            ("Call", "Dial +1 415 555 0134"), ("Weekly sync", "Meeting ID: 815 2345 6789\nPasscode: 445566"),
            ("Telefonkonferenz", "Einwahl: 0800 123 4567, PIN 2291#"), ("Support", "Phone: 1-800-UA-FLYER"),
        ]
    )
    func phoneAndConferenceNumbers(title: String, description: String) {
        #expect(!isFlight(title, description: description))
    }

    @Test(
        arguments: [
            ("Dinner", "221B Baker Street, London NW1 6XE"), ("Dentist", "Suite 400, 1200 Market St"),
            ("Soirée", "12 Rue de Rivoli, 75004 Paris"), ("Besichtigung", "Hauptstraße 12, 10827 Berlin"),
        ]
    )
    func streetAddresses(title: String, location: String) {
        #expect(!isFlight(title, location: location))
        #expect(!isFlight("Dinner at \(location)"))
    }

    @Test(arguments: ["Lakers vs Celtics", "Final score bet: LA 102 BOS 99", "Ajax - PSV", "Real Madrid – Barcelona"])
    func sportsScores(title: String) {
        #expect(!isFlight(title))
    }

    @Test(arguments: ["CS 101", "CS 101 lecture", "MA 201 midterm", "AI 101 study group", "Vorlesung IT 2"])
    func courseCodes(title: String) {
        #expect(!isFlight(title))
    }

    @Test(arguments: ["Train to Paris", "ICE 578 nach Berlin", "Tren a Sevilla", "新幹線で大阪へ", "高铁 G102 上海→北京"])
    func otherWaysToTravel(title: String) {
        #expect(!isFlight(title))
    }

    @Test(arguments: ["Pick up Mom at SFO", "Oma vom Flughafen abholen", "接机", "Pick up Jamie – flight lands 6pm"])
    func someoneElsesFlight(title: String) {
        #expect(!isFlight(title))
    }

    @Test(
        arguments: [
            "Flight Club darts night", "Flight simulator session", "Wine flight tasting", "Vol de vélo", "Flugangst",
            "フライトシミュレーター練習", "航班管理系统评审会", "Book flights for Tokyo trip", "API-SDK review",
            "CEO/CFO sync", "NYC-LON leadership sync",
        ]
    )
    func wordsAndCodesThatMeanSomethingElse(title: String) {
        #expect(!isFlight(title))
    }
}
