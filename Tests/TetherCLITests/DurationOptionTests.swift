import Foundation
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

@testable import TetherCLI

/// Options that take a time span read `90s`, `5m`, `2h`, `1d` and `1w`, as `--margin` does; a bare number is
/// seconds, as it always was.
@Suite(.timeLimit(.minutes(3)))
struct DurationOptionTests {
    @Test(arguments: [
        ("90", 90), ("90s", 90), ("5m", 300), ("2h", 7_200), ("1d", 86_400), ("1w", 604_800), (" 10M ", 600),
    ])
    func aSpanIsReadWithOrWithoutAUnit(text: String, seconds: Int64) throws {
        #expect(try #require(DurationArgument(argument: text)).seconds == seconds)
    }

    @Test(arguments: ["", "m", "5x", "-5m", "1.5h", "٣m", "999999999999w"])
    func anythingElseIsRefused(text: String) {
        #expect(DurationArgument(argument: text) == nil)
    }

    @Test func defaultsAreShownWithTheirUnit() {
        #expect(DurationArgument(seconds: 300).defaultValueDescription == "5m")
        #expect(DurationArgument(seconds: 30).defaultValueDescription == "30s")
        #expect(DurationArgument(seconds: 7_200).defaultValueDescription == "2h")
        #expect(DurationArgument(seconds: 90).defaultValueDescription == "90s")
    }

    /// `tether token --minimum-lifetime`: a span the token outlives hands it out, a longer one refreshes, and a
    /// value that is no span is a usage error.
    @Test func theTokensMinimumLifetimeTakesUnits() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let before = await cli.provider.admin.counters()[.refreshes]
        let first = try await cli.run(["token", "dev", "--minimum-lifetime", "1m"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(await cli.provider.admin.counters()[.refreshes] == before)
        // The development provider's tokens live an hour: two hours is more than the token left, so it is refreshed
        // — and more than any of its tokens has, which is said.
        let longer = try await cli.run(["token", "dev", "--minimum-lifetime", "2h"])
        #expect(longer.status == 1 && longer.stdout.isEmpty, "\(longer.stderr)")
        #expect(longer.stderr.contains("live shorter than the requested minimum"), "\(longer.stderr)")
        #expect(await cli.provider.admin.counters()[.refreshes] == before + 1)
        let shorter = try await cli.run(["token", "dev", "--minimum-lifetime", "58m"])
        #expect(shorter.status == 0, "\(shorter.stderr)")
        #expect(await cli.provider.admin.counters()[.refreshes] == before + 1)
        let refused = try await cli.run(["token", "dev", "--minimum-lifetime", "5x"])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("--minimum-lifetime"), "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)

        let help = try await cli.run(["login", "--help"])
        #expect(help.stdout.contains("(default: 5m)"), "\(help.stdout)")
    }
}
