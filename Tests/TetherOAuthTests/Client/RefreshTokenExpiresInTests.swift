import Foundation
import HTTPTypes
import Testing
import Tether
import TetherTestSupport

@testable import TetherOAuth

/// `refresh_token_expires_in` (GitHub Apps' user tokens, Google's time-limited access): read like `expires_in`, and
/// a malformed value never costs the tokens, neither at sign-in nor at a refresh.
struct RefreshTokenExpiresInTests {
    static func parse(_ member: String, refreshToken: Bool = true, refresh: Bool = false) throws -> TokenResponse {
        var response = HTTPResponse(status: .ok)
        response.headerFields[.contentType] = "application/json"
        let refreshMember = refreshToken ? #","refresh_token":"r2""# : ""
        let body =
            #"{"access_token":"a","token_type":"Bearer","expires_in":28800\#(refreshMember)"#
            + #","refresh_token_expires_in":\#(member)}"#
        return try TokenResponseTests.client().parseTokenResponse(
            response,
            Data(body.utf8),
            endpoint: ExpiresInTests.endpoint,
            keepingMalformedExpiry: refresh
        )
    }

    @Test(arguments: [
        ("15897600", Int64(15_897_600)), (#""15897600""#, 15_897_600), ("604800", 604_800), ("0", 0),
    ])
    func wholeSecondsAreTheRefreshTokensLifetime(value: String, seconds: Int64) throws {
        #expect(try Self.parse(value).refreshTokenExpiresIn == .seconds(seconds))
        #expect(try Self.parse(value, refresh: true).refreshTokenExpiresIn == .seconds(seconds))
    }

    @Test(arguments: [
        "-60", #""-60""#, "12.5", #""six months""#, "true", "[1]", "1e300", "9007199254740992",
        "315360001", "null",
    ])
    func aMalformedLifetimeKeepsTheTokensAndSaysNothing(value: String) throws {
        for refresh in [false, true] {
            let response = try Self.parse(value, refresh: refresh)
            #expect(response.accessToken == AccessToken("a"))
            #expect(response.refreshToken == RefreshToken("r2"))
            #expect(response.expiresIn == .seconds(28_800))
            #expect(response.refreshTokenExpiresIn == nil)
        }
    }

    /// Without a new refresh token the member describes nothing Tether holds: the kept token keeps its old end.
    @Test func aLifetimeWithoutARefreshTokenIsIgnored() throws {
        #expect(try Self.parse("15897600", refreshToken: false).refreshTokenExpiresIn == nil)
    }

    @Test func theRefreshTokensEndIsAnchoredAtReceipt() throws {
        let received = Date(timeIntervalSince1970: 1_767_225_600)
        let tokens = TokenSet(try Self.parse("15897600"), receivedAt: received)
        #expect(tokens.refreshTokenExpiresAt == received.addingTimeInterval(15_897_600))
        #expect(tokens.refreshTokenIssuedAt == received)
    }
}
