import Foundation
import Testing
import Tether

@testable import TetherCalendar

/// `CalendarSelection`: which calendars a source reads, how it is kept, and what a sync expects of it.
struct CalendarSelectionTests {
    static func calendar(
        _ id: String,
        primary: Bool = false,
        shown: Bool? = nil
    ) -> CalendarInfo {
        CalendarInfo(id: id, name: id.capitalized, isPrimary: primary, isSelectedByDefault: shown)
    }

    /// A Google list: the primary calendar, one shown, one hidden from the calendar UI.
    static let google = [
        calendar("me@example.com", primary: true, shown: true), calendar("work", shown: true),
        calendar("team", shown: false),
    ]
    /// A Graph list: `isDefaultCalendar` only, nothing about being shown.
    static let graph = [calendar("AAA"), calendar("BBB", primary: true), calendar("CCC")]

    @Test func theDefaultIsThePrimaryCalendarAndThoseTheProviderShows() {
        #expect(CalendarSelection.default.chosen(from: Self.google).map(\.id) == ["me@example.com", "work"])
        #expect(CalendarSelection.default.chosen(from: Self.graph).map(\.id) == ["BBB"])
        // A list that marks nothing: its first calendar.
        #expect(CalendarSelection.default.chosen(from: [Self.calendar("x"), Self.calendar("y")]).map(\.id) == ["x"])
        #expect(CalendarSelection.default.chosen(from: []).isEmpty)
    }

    @Test func allTakesEveryCalendarAndNamedOnesOnlyThose() {
        #expect(CalendarSelection.all.chosen(from: Self.google).map(\.id) == Self.google.map(\.id))
        #expect(CalendarSelection.calendars(["team", "gone"]).chosen(from: Self.google).map(\.id) == ["team"])
        #expect(CalendarSelection.calendars([]).chosen(from: Self.google).isEmpty)
        #expect(CalendarSelection.all.includesEveryCalendar && !CalendarSelection.all.isDefault)
        #expect(CalendarSelection.default.isDefault && CalendarSelection.default.calendarIDs == nil)
        #expect(CalendarSelection.calendars(["a"]).calendarIDs == ["a"])
        #expect(CalendarSelection(nil) == .default)
        #expect(CalendarSelection(["a"]) == .calendars(["a"]))
    }

    @Test func itIsKeptAsAWordOrAnArrayAndReadsTheSetItReplaced() throws {
        let encoder = JSONEncoder()
        #expect(String(decoding: try encoder.encode(CalendarSelection.all), as: UTF8.self) == #""all""#)
        #expect(String(decoding: try encoder.encode(CalendarSelection.default), as: UTF8.self) == #""default""#)
        let named = try encoder.encode(CalendarSelection.calendars(["b", "a"]))
        #expect(String(decoding: named, as: UTF8.self) == #"["a","b"]"#)
        // A set of identifiers, as it was kept before, reads as the same calendars.
        let old = try encoder.encode(Set(["a", "b"]))
        #expect(try JSONDecoder().decode(CalendarSelection.self, from: old) == .calendars(["a", "b"]))
        for selection in [CalendarSelection.all, .default, .calendars(["x@example.com", "y"]), .calendars([])] {
            #expect(try JSONDecoder().decode(CalendarSelection.self, from: encoder.encode(selection)) == selection)
        }
        for bad in [#""some""#, "42", "{}", #"[1]"#] {
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode(CalendarSelection.self, from: Data(bad.utf8))
            }
        }
    }

    @Test func itsDescriptionCountsButDoesNotNameTheCalendars() {
        #expect(CalendarSelection.calendars(["ada@example.com", "b"]).description == "calendars(2)")
        #expect("\(CalendarSelection.all)" == "all")
        #expect("\(CalendarSelection.default)" == "default")
    }

    static func state(_ calendars: [CalendarInfo]) -> CalendarSyncState {
        CalendarSyncState(
            calendars: Dictionary(uniqueKeysWithValues: calendars.map { ($0.id, CalendarSyncState.Calendar(info: $0)) })
        )
    }

    @Test func calendarsNamedButNoLongerListedAreMissingByTheirLastName() {
        var team = Self.calendar("team")
        team.name = "Team (shared)"
        let plan = CalendarReadPlan(
            .calendars(["work", "team", "never-seen"]),
            available: [Self.google[0], Self.google[1]],
            previous: Self.state([team])
        )
        #expect(plan.read.map(\.id) == ["work"])
        #expect(plan.missing.map(\.id) == ["never-seen", "team"])
        #expect(plan.missing.map(\.name) == ["never-seen", "Team (shared)"])
    }

    @Test func underAllOrTheDefaultACalendarReadLastTimeAndNowUnlistedIsMissing() {
        let previous = Self.state(Self.google)
        let listed = [Self.google[0], Self.google[1]]
        for selection in [CalendarSelection.all, .default] {
            let plan = CalendarReadPlan(selection, available: listed, previous: previous)
            #expect(plan.missing.map(\.id) == ["team"], "\(selection)")
        }
        // Still listed, just not shown any more: not missing, not read by default.
        let hidden = CalendarReadPlan(.default, available: Self.google, previous: previous)
        #expect(hidden.missing.isEmpty)
        #expect(hidden.read.map(\.id) == ["me@example.com", "work"])
    }

    @Test func aGoneCalendarNamesItselfAndWhy() {
        let team = CalendarInfo(id: "t", name: "Team")
        #expect(UnavailableCalendar(calendar: team).message.contains("'Team' is no longer in the calendar list"))
        let refused = UnavailableCalendar(calendar: team, httpStatus: 403, providerReason: "ErrorAccessDenied")
        #expect(refused.message.contains("'Team' could not be read (HTTP 403, ErrorAccessDenied)"))
    }

    @Test func theStatusNamesGoneCalendarsOnlyWhileTheSignInStandsAndTheFetchSucceeded() {
        let gone = [UnavailableCalendar(calendar: CalendarInfo(id: "t", name: "Team"), httpStatus: 404)]
        let account = Account(providerID: "p", subject: "s", displayIdentifier: "ada@example.com")
        let connected = CalendarSourceStatus.derive(
            access: .connected(account: account),
            lastError: nil,
            failingSince: nil,
            unavailableCalendars: gone
        )
        #expect(connected == .calendarsUnavailable(account: account, calendars: gone))
        #expect(connected.kind == .calendarsUnavailable)
        #expect(connected.account == account)
        #expect(!connected.requiresUserAction)
        #expect(connected.description == "calendarsUnavailable(1)")
        // A failed fetch, or a sign-in that needs the user, says more.
        let failed = CalendarSourceStatus.derive(
            access: .connected(account: account),
            lastError: .offline,
            failingSince: nil,
            unavailableCalendars: gone
        )
        #expect(failed.kind == .offline)
        let signIn = CalendarSourceStatus.derive(
            access: .needsSignIn(accountHint: account, reason: "revoked"),
            lastError: nil,
            failingSince: nil,
            unavailableCalendars: gone
        )
        #expect(signIn.kind == .needsSignIn)
        #expect(
            CalendarSourceStatus.derive(access: .connected(account: nil), lastError: nil, failingSince: nil).kind
                == .connected
        )
    }
}
