import Crypto
import Foundation
import Testing
import TetherFlights

/// The detector on the frozen booking corpus (`Fixtures/frozen`): text written from the formats real senders use,
/// by writers who did not see the detector, and never tuned on. See `Fixtures/frozen/README.md`.
struct FrozenCorpusTests {
    /// The files' SHA-256 digests when they were committed: the corpus is never edited.
    static let digests = [
        "booking-corpus-a": "07458f20260bd4b817f2be1727b52c34aa6a7fc2adda3eea3cb0c83a23b89fd5",
        "booking-corpus-b": "59c57fe03bd3729d24266f35090330c82a79b9896fbbfe76bf8fd93e842236da",
    ]

    static func load() throws -> [FlightCorpusEntry] {
        try digests.keys.sorted().flatMap { name in
            try JSONDecoder().decode(
                [FlightCorpusEntry].self,
                from: FlightCorpusEntry.fixture(name, in: "Fixtures/frozen")
            )
        }
    }

    @Test func filesAreTheOnesCommitted() throws {
        for (name, digest) in Self.digests {
            let data = try FlightCorpusEntry.fixture(name, in: "Fixtures/frozen")
            let hex = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
            #expect(hex == digest, "\(name).json changed: the frozen corpus is never edited")
        }
    }

    @Test func corpusHasTheShapeItClaims() throws {
        let corpus = try Self.load()
        #expect(corpus.count == 288)
        let flights = corpus.filter(\.isFlight)
        #expect(corpus.count - flights.count >= flights.count)
        #expect(Set(flights.map(\.language)) == ["en", "es", "fr", "de", "it", "pt", "nl", "ja", "zh"])
        let groundTickets = corpus.filter { !$0.isFlight && ["rail", "coach"].contains($0.kind) }.count
        #expect(Double(groundTickets) >= 0.4 * Double(corpus.count - flights.count))
        #expect(Set(corpus.map(\.id)).count == corpus.count)
    }

    /// Precision, recall, the flight number and both airports of the first leg, and the legs of the events that
    /// list several; printed per kind, so that a change shows where it helped or hurt.
    @Test func detectorReachesTheTargets() throws {
        let corpus = try Self.load()
        let detector = FlightDetector()
        var score = FlightScore()
        var byKind: [String: FlightScore] = [:]
        var numbers = (right: 0, checked: 0)
        var airports = (right: 0, checked: 0)
        var legs = (right: 0, checked: 0)
        for entry in corpus {
            let detection = detector.detect(entry.event)
            score.add(expected: entry.isFlight, detected: detection.isFlight)
            byKind[entry.kind ?? "", default: FlightScore()].add(expected: entry.isFlight, detected: detection.isFlight)
            guard entry.isFlight, detection.isFlight, let expected = entry.expected else { continue }
            if let number = expected.flightNumber {
                numbers.checked += 1
                if detection.flightNumber == number { numbers.right += 1 }
            }
            if expected.from != nil || expected.to != nil {
                airports.checked += 1
                if detection.departureAirport?.iataCode == expected.from,
                    detection.arrivalAirport?.iataCode == expected.to
                {
                    airports.right += 1
                }
            }
            if entry.legs.count > 1 {
                legs.checked += 1
                if detection.legs.map(\.flightNumber) == entry.legs.map(\.flightNumber) { legs.right += 1 }
            }
        }
        func share(_ pair: (right: Int, checked: Int)) -> Double {
            pair.checked == 0 ? 1 : Double(pair.right) / Double(pair.checked)
        }
        print("Frozen corpus: \(score.summary)")
        print("Frozen corpus, flight number right: \(numbers.right) of \(numbers.checked)")
        print("Frozen corpus, both airports right: \(airports.right) of \(airports.checked)")
        print("Frozen corpus, every leg's number right: \(legs.right) of \(legs.checked)")
        for kind in byKind.keys.sorted() { print("Frozen corpus, \(kind): \(byKind[kind]?.summary ?? "")") }

        // The targets are 0.95, 0.95, 0.95 and 0.9. Measured: precision 0.962 (5 false flights), recall 0.992,
        // flight number 0.961, both airports 0.945 (120 of 127). The floors are the targets.
        #expect(score.precision >= 0.95)
        #expect(score.recall >= 0.95)
        #expect(share(numbers) >= 0.95)
        #expect(share(airports) >= 0.9)
    }
}
