import Foundation
import TetherFlights

/// One labelled event of `Fixtures/flight-corpus.json`.
struct FlightCorpusEntry: Decodable {
    struct Expected: Decodable {
        var airline: String?
        var flightNumber: String?
        var from: String?
        var to: String?
    }

    var id: String
    var language: String
    var isFlight: Bool
    var heldOut: Bool
    var kind: String?
    var expected: Expected?
    /// Every flight leg, for an event that lists several.
    var legs: [Expected]
    var event: FlightDetector.Event

    private enum CodingKeys: String, CodingKey {
        case id, language, isFlight, heldOut, kind, expected, legs
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        language = try container.decode(String.self, forKey: .language)
        isFlight = try container.decode(Bool.self, forKey: .isFlight)
        heldOut = try container.decodeIfPresent(Bool.self, forKey: .heldOut) ?? false
        kind = try container.decodeIfPresent(String.self, forKey: .kind)
        expected = try container.decodeIfPresent(Expected.self, forKey: .expected)
        legs = try container.decodeIfPresent([Expected].self, forKey: .legs) ?? []
        event = try FlightDetector.Event(from: decoder)
    }

    /// The labelled corpus, read from the test bundle.
    static func load(_ name: String = "flight-corpus") throws -> [FlightCorpusEntry] {
        try JSONDecoder().decode([FlightCorpusEntry].self, from: fixture(name))
    }

    /// A JSON file of the test bundle's `Fixtures` (or of one of its folders).
    static func fixture(_ name: String, in folder: String = "Fixtures") throws -> Data {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: folder) else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try Data(contentsOf: url)
    }
}

/// Precision and recall of a set of detections.
struct FlightScore {
    var truePositives = 0
    var falsePositives = 0
    var falseNegatives = 0
    var trueNegatives = 0

    var precision: Double {
        truePositives + falsePositives == 0 ? 1 : Double(truePositives) / Double(truePositives + falsePositives)
    }
    var recall: Double {
        truePositives + falseNegatives == 0 ? 1 : Double(truePositives) / Double(truePositives + falseNegatives)
    }
    var count: Int { truePositives + falsePositives + falseNegatives + trueNegatives }

    mutating func add(expected: Bool, detected: Bool) {
        switch (expected, detected) {
        case (true, true): truePositives += 1
        case (false, true): falsePositives += 1
        case (true, false): falseNegatives += 1
        case (false, false): trueNegatives += 1
        }
    }

    var summary: String {
        let precisionText = String(format: "%.3f", precision)
        let recallText = String(format: "%.3f", recall)
        return "precision \(precisionText) recall \(recallText) (\(count) events: \(truePositives) TP, "
            + "\(falsePositives) FP, \(falseNegatives) FN, \(trueNegatives) TN)"
    }
}
