import Foundation
import Testing
import Tether
import TetherCommandSupport

@testable import TetherCLI

/// What `tether watch` counts as a change between two looks at the rows.
struct WatchChangeTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func row(state: String = "connected", expiresAt: Date? = nil, endsIn days: Double? = nil) -> StatusRow {
        var row = StatusRow(
            name: "work",
            provider: "microsoft",
            account: "a***@example.com",
            state: state,
            expiresAt: expiresAt,
            lastRefresh: nil,
            lastError: nil,
            detail: nil
        )
        if let days {
            var end = GrantEnd(
                kind: .inactivity,
                date: now.addingTimeInterval(days * 86_400),
                lastUsed: now.addingTimeInterval(-80 * 86_400),
                note: "unused for 80 days: Microsoft ends it after 90"
            )
            end.isSoon = days <= 14
            row.grantEnd = end
        }
        return row
    }

    @Test func aGrantComingToEndSoonIsAChangeAndAMovedExpiryIsNot() {
        let before = ["work": Self.row(expiresAt: Self.now, endsIn: 20)]
        let moved = WatchChange.changes(
            from: before,
            to: [Self.row(expiresAt: Self.now.addingTimeInterval(3600), endsIn: 19)],
            at: Self.now
        )
        #expect(moved.isEmpty)

        let soon = WatchChange.changes(from: before, to: [Self.row(endsIn: 10)], at: Self.now)
        #expect(soon.count == 1)
        #expect(soon.first?.previous == "connected")
        #expect(soon.first?.row.grantEnd?.isSoon == true)
        #expect(WatchExec.variables(for: soon[0])["TETHER_GRANT_ENDS_SOON"] == "1")

        // Signed in again: the end is far off once more, which is a change too.
        let renewed = WatchChange.changes(
            from: ["work": Self.row(endsIn: 10)],
            to: [Self.row(endsIn: 90)],
            at: Self.now
        )
        #expect(renewed.count == 1)
        #expect(WatchExec.variables(for: renewed[0])["TETHER_GRANT_ENDS_SOON"] == "")
    }

    @Test func aNewStateAppearingAndGoneAreChanges() {
        let before = ["work": Self.row()]
        #expect(WatchChange.changes(from: before, to: [Self.row(state: "needs-sign-in")], at: Self.now).count == 1)
        #expect(WatchChange.changes(from: [:], to: [Self.row()], at: Self.now).first?.previous == nil)
        let gone = WatchChange.changes(from: before, to: [], at: Self.now)
        #expect(gone.first?.row.state == "removed")
        #expect(WatchChange.changes(from: before, to: [Self.row()], at: Self.now).isEmpty)
    }
}
