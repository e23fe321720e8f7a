import Foundation
import Testing
import Tether
import TetherOAuth

/// The status text each preset's rule gives, for a grant last refreshed 83 days ago and signed in 83 days ago.
struct GrantLifetimePresetTests {
    static let signedIn = Date(timeIntervalSince1970: 1_767_225_600)
    static let now = signedIn.addingTimeInterval(83 * 86_400 + 60)

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let rules: GrantLifetime
        let statedEnd: TimeInterval?
        let kind: GrantEnd.Kind
        let text: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "microsoft",
            rules: .microsoft,
            statedEnd: nil,
            kind: .inactivity,
            text: "unused for 83 days: Microsoft ends it after 90 (by 2026-04-01)"
        ),
        Case(
            name: "google",
            rules: .google,
            statedEnd: nil,
            kind: .inactivity,
            text: "unused for 83 days: Google ends it after 180 (by 2026-06-30)"
        ),
        Case(
            name: "googleTesting",
            rules: .googleTesting,
            statedEnd: nil,
            kind: .absolute,
            text: "ends 2026-01-08: Google ends refresh tokens of apps in Testing after 7 days"
        ),
        Case(
            name: "gitHub",
            rules: .gitHub,
            statedEnd: 15_897_600,
            kind: .absolute,
            text: "ends 2026-07-04: GitHub user tokens last 6 months"
        ),
    ]

    @Test(arguments: cases)
    func eachPresetSaysWhenAndWhy(_ testCase: Case) throws {
        var response = TokenResponse(
            accessToken: AccessToken("a"),
            refreshToken: RefreshToken("r"),
            expiresIn: .seconds(3600)
        )
        response.refreshTokenExpiresIn = testCase.statedEnd.map { .seconds($0) }
        let tokens = TokenSet(response, receivedAt: Self.signedIn)
        let end = try #require(
            GrantLifetime.end(of: tokens, rules: testCase.rules, now: Self.now, threshold: .seconds(14 * 86_400))
        )
        #expect(end.kind == testCase.kind)
        #expect("\(end)" == testCase.text)
    }

    /// GitHub documents no inactivity rule, and a GitHub grant without `refresh_token_expires_in` (an OAuth app's
    /// token, which does not expire) has no end.
    @Test func gitHubWithoutAStatedEndHasNone() {
        let tokens = TokenSet(
            TokenResponse(accessToken: AccessToken("a"), refreshToken: RefreshToken("r"), expiresIn: nil),
            receivedAt: Self.signedIn
        )
        #expect(GrantLifetime.end(of: tokens, rules: .gitHub, now: Self.now, threshold: .zero) == nil)
    }
}
