import Foundation
import Testing
import TetherCommandSupport

@testable import TetherCLI

/// The CLI's instants, written by arithmetic, are the ones `ISO8601DateFormatter` writes.
struct FormatTests {
    static func reference(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    @Test func instantsMatchTheFormatterAcrossCenturiesAndLeapDays() {
        var generator = SystemRandomNumberGenerator()
        var dates: [Date] = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1),
            Date(timeIntervalSince1970: 951_782_400),  // 2000-02-29
            Date(timeIntervalSince1970: 4_107_542_399),  // 2100-02-28T23:59:59Z
            Date(timeIntervalSince1970: -2_208_988_800),  // 1900-01-01
            Date(timeIntervalSince1970: 253_402_300_799),  // 9999-12-31T23:59:59Z
        ]
        for _ in 0..<2_000 {
            dates.append(
                Date(timeIntervalSince1970: Double(Int.random(in: -5_000_000_000...5_000_000_000, using: &generator)))
            )
        }
        for date in dates {
            #expect(Format.iso8601(date) == Self.reference(date), "\(date.timeIntervalSince1970)")
        }
        // A fraction of a second is dropped (the formatter rounds some of them up).
        #expect(Format.iso8601(Date(timeIntervalSince1970: 0.999)) == "1970-01-01T00:00:00Z")
        #expect(Format.iso8601(Date(timeIntervalSince1970: -0.25)) == "1969-12-31T23:59:59Z")
        #expect(Format.iso8601(nil) == nil)
        #expect(Format.iso8601(Date(timeIntervalSince1970: 3e11)) == Self.reference(Date(timeIntervalSince1970: 3e11)))
    }
}
