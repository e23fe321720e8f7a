import Foundation
import HTTPTypes
import Testing
import Tether
import TetherTestSupport

@testable import TetherOAuth

/// Parsing and classification of token endpoint answers, with the shapes real providers send (RFC 6749 §5.1 and §5.2,
/// and the providers' token endpoint documentation cited at each case).
struct TokenResponseTests {
    static let endpoint = URL(string: "https://auth.example.com/token")!

    static func client(_ configuration: ProviderConfiguration = ProviderConfigurationTests.make()) throws -> OAuthClient
    {
        try OAuthClient(configuration: configuration, transport: CountingTransport())
    }

    static func response(
        _ status: Int,
        contentType: String = "application/json",
        retryAfter: String? = nil
    )
        -> HTTPResponse
    {
        var response = HTTPResponse(status: .init(code: status))
        response.headerFields[.contentType] = contentType
        if let retryAfter { response.headerFields[.retryAfter] = retryAfter }
        return response
    }

    static func parse(
        _ json: String,
        _ configuration: ProviderConfiguration = ProviderConfigurationTests.make()
    ) throws
        -> TokenResponse
    {
        try client(configuration).parseTokenResponse(response(200), Data(json.utf8), endpoint: endpoint)
    }

    @Test func googleCodeExchangeShape() throws {
        let tokens = try Self.parse(
            #"{"access_token":"ya29.a","expires_in":3920,"token_type":"Bearer","scope":"openid https://www.googleapis.com/auth/calendar.readonly","refresh_token":"1//xE","id_token":"e.y.j"}"#
        )
        #expect(tokens.expiresIn == .seconds(3920))
        #expect(tokens.scopes == ["openid", "https://www.googleapis.com/auth/calendar.readonly"])
        #expect(tokens.refreshToken == RefreshToken("1//xE"))
        #expect(tokens.idToken == IDToken("e.y.j"))
    }

    @Test func googleRefreshWithoutRefreshTokenKeepsNone() throws {
        let tokens = try Self.parse(
            #"{"access_token":"ya29.b","expires_in":3599,"token_type":"Bearer","scope":"openid"}"#
        )
        #expect(tokens.refreshToken == nil)
    }

    @Test func microsoftShapeWithExtExpiresIn() throws {
        let tokens = try Self.parse(
            #"{"token_type":"Bearer","scope":"User.Read Calendars.Read","expires_in":3599,"ext_expires_in":3599,"access_token":"eyJ0","refresh_token":"0.AR"}"#
        )
        #expect(tokens.expiresIn == .seconds(3599))
        #expect(tokens.refreshToken == RefreshToken("0.AR"))
    }

    @Test func firebaseStringExpiresInAndIDTokenAsBearer() throws {
        let configuration = ProviderConfiguration.firebase(apiKey: "key-1", projectID: "demo-project")
        let tokens = try Self.parse(
            #"{"expires_in":"3600","token_type":"Bearer","refresh_token":"AMf-1","id_token":"h.p.s","user_id":"tRcf","project_id":"1234567890"}"#,
            configuration
        )
        #expect(tokens.expiresIn == .seconds(3600))
        #expect(tokens.accessToken == AccessToken("h.p.s"))
        #expect(tokens.refreshToken == RefreshToken("AMf-1"))
    }

    @Test func appleRefreshShape() throws {
        let tokens = try Self.parse(#"{"access_token":"a.b","token_type":"Bearer","expires_in":3600}"#)
        #expect(tokens.refreshToken == nil)
        #expect(tokens.idToken == nil)
    }

    @Test func missingExpiresInIsNil() throws {
        #expect(try Self.parse(#"{"access_token":"a","token_type":"bearer"}"#).expiresIn == nil)
    }

    @Test(arguments: [
        #"{"access_token":"a","token_type":"Bearer","expires_in":-5}"#,
        #"{"access_token":"a","token_type":"Bearer","expires_in":"soon"}"#,
        #"{"access_token":"a","token_type":"Bearer","expires_in":12.5}"#,
        #"{"access_token":"a","token_type":"Bearer","expires_in":true}"#,
        #"{"access_token":"a","token_type":"Bearer","expires_in":"-1"}"#,
        #"{"access_token":"a","token_type":"Bearer","expires_in":-1e300}"#,
        #"{"access_token":"a","token_type":"Bearer","expires_in":"1e300"}"#,
        #"{"access_token":"a","token_type":"Bearer","expires_in":"+60"}"#,
        #"{"access_token":"a","token_type":"Bearer","expires_in":""}"#,
    ])
    func invalidExpiresInIsTyped(json: String) {
        #expect(throws: OAuthError.invalidExpiresIn) { try Self.parse(json) }
    }

    /// Lifetimes beyond a year, up to the largest whole number JSON carries exactly, are cut to a year instead of
    /// trapping or overflowing a date.
    @Test(arguments: ["31536001", "9007199254740991", #""9007199254740991""#])
    func hugeExpiresInIsCutToOneYear(value: String) throws {
        let tokens = try Self.parse(#"{"access_token":"a","token_type":"Bearer","expires_in":\#(value)}"#)
        #expect(tokens.expiresIn == .seconds(365 * 86_400))
    }

    /// Beyond 2^53 − 1 a number is no longer a lifetime JSON carries exactly (RFC 8259 §6): a protocol error.
    @Test(arguments: ["1e300", #""99999999999999999999999999""#, #""9223372036854775807""#])
    func expiresInBeyondExactNumbersIsAProtocolError(value: String) {
        #expect(throws: OAuthError.invalidExpiresIn) {
            try Self.parse(#"{"access_token":"a","token_type":"Bearer","expires_in":\#(value)}"#)
        }
    }

    @Test func tokenTypeIsSanitizedInTheMessage() {
        let error = #expect(throws: OAuthError.unsupportedTokenType) {
            try Self.parse(#"{"access_token":"a","token_type":"\u001b]0;owned\u0007mac\nline","expires_in":60}"#)
        }
        #expect(error?.message == "The token type ']0;ownedmac line' is not supported (only Bearer)")
    }

    @Test func unknownTokenTypeIsRejected() {
        #expect(throws: OAuthError.unsupportedTokenType) {
            try Self.parse(#"{"access_token":"a","token_type":"DPoP","expires_in":60}"#)
        }
        #expect(throws: OAuthError.unsupportedTokenType) { try Self.parse(#"{"access_token":"a","expires_in":60}"#) }
    }

    @Test func missingAccessTokenIsTyped() {
        #expect(throws: OAuthError.missingAccessToken) { try Self.parse(#"{"token_type":"Bearer"}"#) }
    }

    @Test func malformedAndHTMLBodiesAreTyped() throws {
        let client = try Self.client()
        #expect(throws: OAuthError.malformedResponse) {
            try client.parseTokenResponse(Self.response(200), Data("{\"access_token\":".utf8), endpoint: Self.endpoint)
        }
        #expect(throws: OAuthError.unexpectedContentType) {
            try client.parseTokenResponse(
                Self.response(200, contentType: "text/html"),
                Data("<html><body>Sign in to the Wi-Fi</body></html>".utf8),
                endpoint: Self.endpoint
            )
        }
        let htmlError = client.errorResponse(
            Self.response(502, contentType: "text/html"),
            Data("<html>Bad Gateway</html>".utf8),
            endpoint: Self.endpoint
        )
        #expect(htmlError == .unexpectedContentType)
        #expect(htmlError.classification == .transient)
    }

    static func classify(_ status: Int, _ body: String, retryAfter: String? = nil) throws -> OAuthError {
        try client().errorResponse(response(status, retryAfter: retryAfter), Data(body.utf8), endpoint: endpoint)
    }

    @Test func googleRevokedRefreshTokenIsPermanent() throws {
        let error = try Self.classify(
            400,
            #"{"error":"invalid_grant","error_description":"Token has been expired or revoked."}"#
        )
        #expect(error.errorCode == .invalidGrant)
        #expect(error.classification == .permanent(.grantRevoked))
        #expect(error.refreshError.kind == .permanent(.grantRevoked))
    }

    @Test func googleReauthSubtypeNeedsInteraction() throws {
        let error = try Self.classify(
            400,
            #"{"error":"invalid_grant","error_subtype":"invalid_rapt","error_description":"reauth related error"}"#
        )
        #expect(error.classification == .permanent(.interactionRequired))
        #expect(error.providerDetail == "invalid_rapt")
    }

    @Test func microsoftErrorsAreClassifiedByCodeNotDescription() throws {
        let revoked = try Self.classify(
            400,
            #"{"error":"invalid_grant","error_description":"AADSTS50173: The provided grant has expired due to it being revoked.","error_codes":[50173],"timestamp":"2026-11-22 00:00:00Z","trace_id":"t","correlation_id":"c","error_uri":"https://login.microsoftonline.com/error?code=50173"}"#
        )
        #expect(revoked.classification == .permanent(.grantRevoked))
        #expect(revoked.providerDetail == "AADSTS50173")
        let mfa = try Self.classify(400, #"{"error":"invalid_grant","error_codes":[50076],"suberror":"basic_action"}"#)
        #expect(mfa.classification == .permanent(.interactionRequired))
        let interaction = try Self.classify(400, #"{"error":"interaction_required","error_codes":[50076]}"#)
        #expect(interaction.classification == .permanent(.interactionRequired))
        let unavailable = try Self.classify(400, #"{"error":"temporarily_unavailable"}"#)
        #expect(unavailable.classification == .transient)
    }

    /// Microsoft's `error_codes` are small integers; any other number is left out of the detail instead of
    /// trapping the conversion.
    @Test(arguments: ["1e300", "-1e300", "-3", "2.5", #""50173""#])
    func unusableErrorCodesAreIgnored(number: String) throws {
        let error = try Self.classify(400, #"{"error":"invalid_grant","error_codes":[\#(number)],"suberror":"x"}"#)
        #expect(error.classification == .permanent(.grantRevoked))
        #expect(error.providerDetail == "x")
    }

    @Test(arguments: [
        ("TOKEN_EXPIRED", "grant_revoked"), ("INVALID_REFRESH_TOKEN", "grant_revoked"),
        ("USER_DISABLED", "user_disabled"), ("USER_NOT_FOUND", "user_not_found"),
    ])
    func firebaseErrorsEndTheSession(message: String, reason: String) throws {
        let error = try Self.classify(
            400,
            #"{"error":{"code":400,"message":"\#(message)","status":"INVALID_ARGUMENT"}}"#
        )
        #expect(error.errorCode == OAuthErrorCode(message))
        guard case .permanent(let signInReason) = error.classification else {
            Issue.record("expected permanent, got \(error.classification)")
            return
        }
        #expect(signInReason.code == reason)
    }

    @Test func firebaseBadAPIKeyIsConfiguration() throws {
        let error = try Self.classify(
            400,
            #"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}"#
        )
        #expect(error.classification == .configuration)
    }

    @Test func appleInvalidClientIsConfiguration() throws {
        let error = try Self.classify(400, #"{"error":"invalid_client"}"#)
        #expect(error.classification == .configuration)
        #expect(error.refreshError.kind == .configuration)
    }

    @Test func serverErrorsAndRateLimitsAreTransientWithRetryAfter() throws {
        let limited = try Self.classify(429, #"{"error":"slow_down"}"#, retryAfter: "30")
        #expect(limited.classification == .transient)
        #expect(limited.retryAfter == .seconds(30))
        let outage = try Self.classify(503, "", retryAfter: "5")
        #expect(outage == .unexpectedStatus)
        #expect(outage.classification == .transient)
        #expect(outage.retryAfter == .seconds(5))
    }

    @Test func errorDescriptionsNeverCarryTheRequestSecrets() throws {
        let error = try Self.classify(400, #"{"error":"invalid_grant","error_description":"Bad Request"}"#)
        #expect(!error.description.contains("refresh_token="))
        #expect(error.message.contains("auth.example.com/token"))
    }
}
