import Foundation
import Testing
import Tether

/// What a record says about the end of its grant: the refresh token's own end (`refresh_token_expires_in`), its
/// issue time, and the ends a provider's rules give.
struct GrantLifetimeTests {
    static let received = Date(timeIntervalSince1970: 1_767_225_600)
    static let day: TimeInterval = 86_400

    /// A record as Tether wrote it before it kept the refresh token's end and issue time.
    static let oldRecord = """
        {"account":{"displayIdentifier":"ada@example.com","providerID":"microsoft","subject":"s1"},\
        "id":"work","metadata":{"calendar":"primary"},\
        "tokens":{"accessToken":"a1","expiresAt":788918400,"receivedAt":788914800,"refreshToken":"r1",\
        "scopes":["openid","offline_access"],"tokenType":"Bearer"},"version":3}
        """

    static func tokens(refreshToken: String? = "r1", receivedAt: Date = received) -> TokenSet {
        TokenSet(
            accessToken: AccessToken("a1"),
            refreshToken: refreshToken.map(RefreshToken.init),
            receivedAt: receivedAt,
            expiresAt: receivedAt.addingTimeInterval(3600)
        )
    }

    @Test func aRecordWrittenBeforeGrantEndsStillDecodes() throws {
        let record = try ConnectionCodec.decode(Data(Self.oldRecord.utf8))
        #expect(record.id == "work")
        #expect(record.tokens.refreshToken == RefreshToken("r1"))
        #expect(record.tokens.accessToken == AccessToken("a1"))
        #expect(record.tokens.receivedAt == Date(timeIntervalSinceReferenceDate: 788_914_800))
        #expect(record.tokens.refreshTokenExpiresAt == nil)
        #expect(record.tokens.refreshTokenIssuedAt == nil)
        #expect(record.metadata == ["calendar": "primary"])
        // Its last refresh stands in for the issue time: an inactivity rule counts from it.
        let rules = GrantLifetime(provider: "Microsoft", inactivityLimit: .seconds(90 * 86_400))
        let end = try #require(
            GrantLifetime.end(of: record.tokens, rules: rules, now: record.tokens.receivedAt, threshold: .zero)
        )
        #expect(end.date == record.tokens.receivedAt.addingTimeInterval(90 * Self.day))
    }

    @Test func theNewFieldsSurviveTheStore() throws {
        var tokens = Self.tokens()
        tokens.refreshTokenExpiresAt = Self.received.addingTimeInterval(184 * Self.day)
        tokens.refreshTokenIssuedAt = Self.received.addingTimeInterval(-Self.day)
        let connection = Connection(id: "work", account: Account(providerID: "github", subject: "1"), tokens: tokens)
        let decoded = try ConnectionCodec.decode(try ConnectionCodec.encode(connection))
        #expect(decoded.tokens.refreshTokenExpiresAt == tokens.refreshTokenExpiresAt)
        #expect(decoded.tokens.refreshTokenIssuedAt == tokens.refreshTokenIssuedAt)
        #expect(decoded == connection)
    }

    @Test func aKeptRefreshTokenKeepsItsOldEndWhateverTheAnswerSays() {
        var old = TokenSet(
            TokenResponse(accessToken: AccessToken("a1"), refreshToken: RefreshToken("r1"), expiresIn: .seconds(60)),
            receivedAt: Self.received
        )
        old.refreshTokenExpiresAt = Self.received.addingTimeInterval(7 * Self.day)
        var answer = TokenResponse(accessToken: AccessToken("a2"), expiresIn: .seconds(60))
        answer.refreshTokenExpiresIn = .seconds(30 * 86_400)
        let later = Self.received.addingTimeInterval(3 * Self.day)
        let merged = old.applying(answer, receivedAt: later)
        #expect(merged.refreshToken == RefreshToken("r1"))
        #expect(merged.refreshTokenExpiresAt == Self.received.addingTimeInterval(7 * Self.day))
        #expect(merged.refreshTokenIssuedAt == Self.received)
        #expect(merged.lastUsed == later)
    }

    @Test func aRotatedRefreshTokenTakesItsOwnEnd() {
        var old = TokenSet(
            TokenResponse(accessToken: AccessToken("a1"), refreshToken: RefreshToken("r1"), expiresIn: .seconds(60)),
            receivedAt: Self.received
        )
        old.refreshTokenExpiresAt = Self.received.addingTimeInterval(184 * Self.day)
        let later = Self.received.addingTimeInterval(Self.day)
        var rotated = TokenResponse(
            accessToken: AccessToken("a2"),
            refreshToken: RefreshToken("r2"),
            expiresIn: .seconds(60)
        )
        rotated.refreshTokenExpiresIn = .seconds(184 * 86_400)
        let merged = old.applying(rotated, receivedAt: later)
        #expect(merged.refreshTokenExpiresAt == later.addingTimeInterval(184 * Self.day))
        #expect(merged.refreshTokenIssuedAt == later)
        // A new refresh token without a stated end has none: the old token's end was the old token's.
        rotated.refreshTokenExpiresIn = nil
        #expect(old.applying(rotated, receivedAt: later).refreshTokenExpiresAt == nil)
    }

    @Test func theSameRefreshTokenSentBackKeepsItsIssueTime() {
        let old = TokenSet(
            TokenResponse(accessToken: AccessToken("a1"), refreshToken: RefreshToken("r1"), expiresIn: .seconds(60)),
            receivedAt: Self.received
        )
        let later = Self.received.addingTimeInterval(Self.day)
        let echoed = TokenResponse(accessToken: AccessToken("a2"), refreshToken: RefreshToken("r1"), expiresIn: nil)
        #expect(old.applying(echoed, receivedAt: later).refreshTokenIssuedAt == Self.received)
    }

    @Test func anInactivityDeadlineCountsFromTheLastRefresh() throws {
        let rules = GrantLifetime(provider: "Microsoft", inactivityLimit: .seconds(90 * 86_400))
        let now = Self.received.addingTimeInterval(83 * Self.day + 3600)
        let end = try #require(
            GrantLifetime.end(of: Self.tokens(), rules: rules, now: now, threshold: .seconds(14 * 86_400))
        )
        #expect(end.kind == .inactivity)
        #expect(end.isRenewable)
        #expect(end.date == Self.received.addingTimeInterval(90 * Self.day))
        #expect(end.lastUsed == Self.received)
        #expect(end.note == "unused for 83 days: Microsoft ends it after 90")
        #expect(end.isSoon)
        #expect("\(end)" == "unused for 83 days: Microsoft ends it after 90 (by 2026-04-01)")
    }

    @Test func theThresholdDecidesWhatIsSoon() throws {
        let rules = GrantLifetime(provider: "Microsoft", inactivityLimit: .seconds(90 * 86_400))
        let now = Self.received.addingTimeInterval(60 * Self.day)
        let tokens = Self.tokens()
        let fortnight = try #require(
            GrantLifetime.end(of: tokens, rules: rules, now: now, threshold: .seconds(1_209_600))
        )
        #expect(!fortnight.isSoon)
        let month = try #require(GrantLifetime.end(of: tokens, rules: rules, now: now, threshold: .seconds(2_592_000)))
        #expect(month.isSoon)
    }

    @Test func theEarlierOfTwoEndsIsReportedAndAnAbsoluteOneIsNotRenewable() throws {
        let rules = GrantLifetime(
            provider: "Google",
            inactivityLimit: .seconds(180 * 86_400),
            maximumAge: .seconds(7 * 86_400),
            absoluteNote: "Google ends refresh tokens of apps in Testing after 7 days"
        )
        let end = try #require(
            GrantLifetime.end(of: Self.tokens(), rules: rules, now: Self.received, threshold: .zero)
        )
        #expect(end.kind == .absolute)
        #expect(!end.isRenewable)
        #expect(end.date == Self.received.addingTimeInterval(7 * Self.day))
        #expect("\(end)" == "ends 2026-01-08: Google ends refresh tokens of apps in Testing after 7 days")
    }

    @Test func theProvidersOwnEndReplacesAMaximumAge() throws {
        var tokens = Self.tokens()
        tokens.refreshTokenExpiresAt = Self.received.addingTimeInterval(184 * Self.day)
        let rules = GrantLifetime(provider: "GitHub", maximumAge: .seconds(7 * 86_400))
        let end = try #require(GrantLifetime.end(of: tokens, rules: rules, now: Self.received, threshold: .zero))
        #expect(end.date == Self.received.addingTimeInterval(184 * Self.day))
        #expect(end.note == "GitHub gave the refresh token 184 days")
        let unnamed = try #require(GrantLifetime.end(of: tokens, rules: nil, now: Self.received, threshold: .zero))
        #expect(unnamed.note == "The provider gave the refresh token 184 days")
    }

    @Test func nothingEndsWithoutARefreshTokenOrARule() {
        let rules = GrantLifetime(provider: "Microsoft", inactivityLimit: .seconds(90 * 86_400))
        #expect(
            GrantLifetime.end(of: Self.tokens(refreshToken: nil), rules: rules, now: Self.received, threshold: .zero)
                == nil
        )
        #expect(GrantLifetime.end(of: Self.tokens(), rules: nil, now: Self.received, threshold: .zero) == nil)
    }
}
