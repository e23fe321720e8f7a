import Foundation
import HTTPTypes
import Testing
import Tether
import TetherTestSupport

@testable import TetherOAuth

/// `expires_in` (RFC 6749 §5.1: a lifetime in seconds, a JSON number): what counts as one, what a sign-in refuses
/// as a protocol error, and what an answer to a refresh keeps.
struct ExpiresInTests {
    static let endpoint = URL(string: "https://auth.example.com/token")!

    static func parse(_ expiresIn: String, refresh: Bool = false) throws -> TokenResponse {
        var response = HTTPResponse(status: .ok)
        response.headerFields[.contentType] = "application/json"
        let body = #"{"access_token":"a","token_type":"Bearer","refresh_token":"r2","expires_in":\#(expiresIn)}"#
        return try TokenResponseTests.client().parseTokenResponse(
            response,
            Data(body.utf8),
            endpoint: endpoint,
            keepingMalformedExpiry: refresh
        )
    }

    @Test(arguments: [
        ("3600", Int64(3600)), (#""3600""#, 3600), (#"" 3599 ""#, 3599), ("0", 0), ("3600.0", 3600),
        ("31536001", 31_536_000), ("9007199254740991", 31_536_000),
    ])
    func wholeSecondsAreALifetime(value: String, seconds: Int64) throws {
        #expect(try Self.parse(value).expiresIn == .seconds(seconds))
    }

    @Test(arguments: [
        ("-60", "negative"), (#""-60""#, "negative"), ("-1e300", "negative"), ("12.5", "not a whole number"),
        (#""an hour""#, "not a number"), (#""1e3""#, "not a number"), (#""+60""#, "not a number"),
        (#""""#, "not a number"), ("true", "not a number"), ("[3600]", "not a number"), ("1e300", "too large"),
        ("9007199254740992", "too large"), (#""99999999999999999999999999""#, "too large"),
    ])
    func aMalformedLifetimeIsAProtocolErrorNamingTheField(value: String, problem: String) throws {
        let error = try #require(#expect(throws: OAuthError.invalidExpiresIn) { try Self.parse(value) })
        #expect(error.classification == .configuration)
        #expect(!error.requiresReauthentication)
        #expect(error.message.contains("expires_in (\(problem))"), "\(error.message)")
        #expect(error.message.contains("auth.example.com/token"))
    }

    /// The provider may have rotated the refresh token already: its answer is kept, with a lifetime that says
    /// nothing (unknown, docs/decisions.md §3) or, when too large to read, the longest one taken.
    @Test(arguments: [
        ("-60", Duration?.none), ("12.5", nil), (#""an hour""#, nil), ("true", nil),
        ("1e300", .seconds(365 * 86_400)), (#""99999999999999999999999999""#, .seconds(365 * 86_400)),
        ("3600", .seconds(3600)),
    ])
    func aRefreshKeepsItsTokensWhateverTheLifetime(value: String, expected: Duration?) throws {
        let response = try Self.parse(value, refresh: true)
        #expect(response.refreshToken == RefreshToken("r2"))
        #expect(response.accessToken == AccessToken("a"))
        #expect(response.expiresIn == expected)
    }
}
