import Foundation
import Testing
import TetherFlights

/// Precision and recall of the detector over the labelled corpus of `Fixtures/flight-corpus.json`.
struct FlightCorpusTests {
    @Test func corpusHasTheShapeItClaims() throws {
        let corpus = try FlightCorpusEntry.load()
        #expect(corpus.count >= 250)
        let flights = corpus.filter(\.isFlight).count
        #expect(corpus.count - flights >= flights)
        let languages = Set(corpus.filter(\.isFlight).map(\.language))
        #expect(languages == ["en", "es", "fr", "de", "it", "pt", "nl", "ja", "zh"])
        #expect(Set(corpus.map(\.id)).count == corpus.count)
    }

    @Test func precisionAndRecallReachTheTarget() throws {
        let corpus = try FlightCorpusEntry.load()
        let detector = FlightDetector()
        var overall = FlightScore()
        var tuning = FlightScore()
        var heldOut = FlightScore()
        var byLanguage: [String: FlightScore] = [:]
        var fieldsChecked = 0
        var fieldsRight = 0
        var mistakes: [String] = []
        for entry in corpus {
            let detection = detector.detect(entry.event)
            overall.add(expected: entry.isFlight, detected: detection.isFlight)
            byLanguage[entry.language, default: FlightScore()].add(
                expected: entry.isFlight,
                detected: detection.isFlight
            )
            if entry.heldOut {
                heldOut.add(expected: entry.isFlight, detected: detection.isFlight)
            } else {
                tuning.add(expected: entry.isFlight, detected: detection.isFlight)
            }
            let split = entry.heldOut ? "held-out" : "tuning"
            if entry.isFlight != detection.isFlight {
                let confidence = String(format: "%.2f", detection.confidence)
                mistakes.append("[\(split)] \(entry.id) expected \(entry.isFlight), confidence \(confidence)")
            }
            guard entry.isFlight, detection.isFlight, let expected = entry.expected else { continue }
            let pairs: [(String, String?, String?)] = [
                ("airline", expected.airline, detection.airline?.iataCode),
                ("flightNumber", expected.flightNumber, detection.flightNumber),
                ("from", expected.from, detection.departureAirport?.iataCode),
                ("to", expected.to, detection.arrivalAirport?.iataCode),
            ]
            for (name, want, got) in pairs {
                guard let want else { continue }
                fieldsChecked += 1
                if want == got {
                    fieldsRight += 1
                } else {
                    mistakes.append("[\(split)] \(entry.id) \(name): expected \(want), got \(got ?? "nothing")")
                }
            }
        }
        print("Flight corpus, overall: \(overall.summary)")
        print("Flight corpus, tuning part: \(tuning.summary)")
        print("Flight corpus, held-out part: \(heldOut.summary)")
        for language in byLanguage.keys.sorted() {
            print("Flight corpus, \(language): \(byLanguage[language]?.summary ?? "")")
        }
        let fieldAccuracy = fieldsChecked == 0 ? 1 : Double(fieldsRight) / Double(fieldsChecked)
        print(
            "Flight corpus, fields: \(fieldsRight) of \(fieldsChecked) right (\(String(format: "%.3f", fieldAccuracy)))"
        )
        for mistake in mistakes { print("Flight corpus mistake: \(mistake)") }

        #expect(overall.precision >= 0.97)
        #expect(overall.recall >= 0.97)
        #expect(fieldAccuracy >= 0.9)
    }

    /// The booking texts of `Fixtures/booking-tuning.json`: confirmations, reservation-system itineraries,
    /// organisers' feeds, rail, coach and ferry tickets in nine languages, written like the frozen corpus but kept
    /// for tuning (the last 200, ids `g-…`, by a writer who had not seen the detector).
    @Test func bookingTuningSetReachesTheTarget() throws {
        let corpus = try FlightCorpusEntry.load("booking-tuning")
        let detector = FlightDetector()
        var score = FlightScore()
        var numbers = (right: 0, checked: 0)
        var airports = (right: 0, checked: 0)
        var mistakes: [String] = []
        for entry in corpus {
            let detection = detector.detect(entry.event)
            score.add(expected: entry.isFlight, detected: detection.isFlight)
            if entry.isFlight != detection.isFlight { mistakes.append("\(entry.id): expected \(entry.isFlight)") }
            guard entry.isFlight, detection.isFlight, let expected = entry.expected else { continue }
            if let number = expected.flightNumber {
                numbers.checked += 1
                if detection.flightNumber == number {
                    numbers.right += 1
                } else {
                    mistakes.append("\(entry.id): flight \(number), got \(detection.flightNumber ?? "nothing")")
                }
            }
            if expected.from != nil || expected.to != nil {
                airports.checked += 1
                let got = (detection.departureAirport?.iataCode, detection.arrivalAirport?.iataCode)
                if got.0 == expected.from, got.1 == expected.to {
                    airports.right += 1
                } else {
                    mistakes.append("\(entry.id): route \(expected.from ?? "-")→\(expected.to ?? "-"), got \(got)")
                }
            }
        }
        print("Booking tuning set: \(score.summary)")
        print("Booking tuning set, flight number right: \(numbers.right) of \(numbers.checked)")
        print("Booking tuning set, both airports right: \(airports.right) of \(airports.checked)")
        for mistake in mistakes { print("Booking tuning set mistake: \(mistake)") }
        // Floors a little under the figures measured when the set was last extended to 1,000 texts (precision
        // 0.999, recall 0.989, flight number 0.982, airports 0.974), so that a change that makes them worse fails.
        #expect(corpus.count == 1000)
        #expect(score.precision >= 0.99)
        #expect(score.recall >= 0.98)
        #expect(Double(numbers.right) >= 0.98 * Double(numbers.checked))
        #expect(Double(airports.right) >= 0.96 * Double(airports.checked))
    }
}
