import Foundation
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

@testable import TetherCLI

/// "Did you mean …?" for a mistyped connection or calendar source name.
@Suite(.timeLimit(.minutes(3)))
struct NameSuggestionTests {
    @Test(arguments: [
        ("wrok", "work"),  // two neighbours swapped
        ("wor", "work"),  // one left out
        ("Work", "work"),  // case
        ("calender", "calendar"),  // one replaced
        ("calndr", "calendar"),  // two left out of a long name
        ("home-gogle", "home-google"),
    ])
    func aCloseNameIsSuggested(typed: String, meant: String) {
        #expect(NameSuggestion.closest(to: typed, among: ["work", "calendar", "home-google", "dev"]) == meant)
    }

    @Test func farTiedOrExactNamesAreNot() {
        let known = ["work", "calendar", "dev"]
        #expect(NameSuggestion.closest(to: "zzzz", among: known) == nil)
        #expect(NameSuggestion.closest(to: "x", among: known) == nil)
        #expect(NameSuggestion.closest(to: "de", among: known) == "dev")
        // Two names one edit away: no guess.
        #expect(NameSuggestion.closest(to: "dog", among: ["dot", "dig"]) == nil)
        // Short names allow one edit only: "wx" is not "work".
        #expect(NameSuggestion.closest(to: "wx", among: known) == nil)
        #expect(NameSuggestion.closest(to: "work", among: known) == nil)
        #expect(NameSuggestion.closest(to: "", among: known) == nil)
        #expect(NameSuggestion.closest(to: "work", among: []) == nil)
        #expect(NameSuggestion.didYouMean("wrok", among: known) == "Did you mean 'work'? ")
        #expect(NameSuggestion.didYouMean("zzzz", among: known) == "")
    }

    @Test func theDistanceCountsEditsAndSwaps() {
        func distance(_ a: String, _ b: String, limit: Int = 5) -> Int {
            NameSuggestion.editDistance(Array(a), Array(b), limit: limit)
        }
        #expect(distance("", "") == 0)
        #expect(distance("abc", "") == 3)
        #expect(distance("kitten", "sitting") == 3)
        #expect(distance("ab", "ba") == 1)
        #expect(distance("calendar", "calendar") == 0)
        // Past the limit it stops early with limit + 1.
        #expect(distance("aaaaaaaa", "bbbbbbbb", limit: 2) == 3)
        #expect(distance("a", "abcdef", limit: 2) == 3)
    }

    /// Each command that takes a connection's name suggests the one meant, and still exits 3 with nothing changed.
    @Test func commandsSuggestTheConnectionMeant() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode(name: "work").status == 0)
        for arguments in [["token", "wrok"], ["status", "wrok"], ["logout", "wrok"], ["keep-alive", "wrok"]] {
            let result = try await cli.run(arguments)
            #expect(result.status == 3, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("Did you mean 'work'?"), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        let far = try await cli.run(["token", "personal"])
        #expect(far.status == 3)
        #expect(!far.stderr.contains("Did you mean"), "\(far.stderr)")
        // The connection is still there.
        #expect(try await cli.run(["token", "work"]).status == 0)
    }
}
