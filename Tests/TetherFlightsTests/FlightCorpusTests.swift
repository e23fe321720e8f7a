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
}
