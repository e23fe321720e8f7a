package import Foundation
package import HTTPTypes
import Logging
package import Tether

extension OAuthClient {
    /// Posts a token request and parses the answer into a response anchored at its arrival.
    ///
    /// Two deviations from RFC 6749 §5.1/§5.2 are read as the provider means them: a form-encoded body (GitHub
    /// answers so unless JSON is asked for, and a server that ignores `Accept` does so always) is read like JSON,
    /// and a `2xx` that carries an `error` and no `access_token` is an error response (GitHub answers every token
    /// error with HTTP 200: "Troubleshooting OAuth app access token request errors",
    /// <https://docs.github.com/en/apps/oauth-apps/maintaining-oauth-apps/troubleshooting-oauth-app-access-token-request-errors>).
    func tokenRequest(_ form: [(String, String)], grantType: String) async throws -> (TokenResponse, Date) {
        let endpoint = configuration.tokenEndpoint
        let (response, received) = try await post(endpoint, form: form)
        let receivedAt = dateSource.now
        let body = Self.formAsJSON(response, received) ?? received
        let errorInSuccess =
            response.status.kind == .successful
            && JSONValue.object(from: body).map { $0["access_token"] == nil && $0["error"]?.string != nil } == true
        guard response.status.kind == .successful, !errorInSuccess else {
            var error = errorResponse(response, body, endpoint: endpoint)
            if errorInSuccess, let parsed = ProviderErrorBody.parse(body) {
                // A 2xx verdict would make it transient (a captive portal's page in the provider's place); here the
                // `error` decides, as it would with the 400 RFC 6749 §5.2 asks for.
                let verdict = FailureClassifier.classify(HTTPResponse(status: .badRequest), body: body)
                error = error.with(classification: parsed.classification(verdict))
            }
            error = Self.gitHubClassified(error)
            // GitHub's `slow_down` names the new interval ("Authorizing OAuth apps", "Rate limits for the device
            // flow"); it travels as the least wait before the next poll.
            if error.errorCode == .slowDown, let object = JSONValue.object(from: body),
                let seconds = Self.wholeSeconds(object["interval"])
            {
                error = error.with(retryAfter: .seconds(seconds))
            }
            logger.debug(
                "Token request failed",
                metadata: [
                    "oauth.grant_type": "\(grantType)", "http.status": "\(response.status.code)",
                    "oauth.error": "\(error.errorCode?.rawValue ?? "-")",
                ]
            )
            throw error
        }
        let tokens = try parseTokenResponse(
            response,
            body,
            endpoint: endpoint,
            keepingMalformedExpiry: grantType == "refresh_token"
        )
        return (tokens, receivedAt)
    }

    /// A non-negative whole number of seconds, as a JSON number or a numeric string (what a form-encoded body
    /// carries); `nil` otherwise. At most a day, so that no duration computed from it overflows.
    static func wholeSeconds(_ value: JSONValue?) -> Int64? {
        let number: Double?
        switch value {
        case .number(let value)?: number = value
        case .string(let text)?: number = Double(text.trimmingCharacters(in: .whitespaces))
        default: number = nil
        }
        guard let number, number.isFinite, number >= 0 else { return nil }
        return Int64(min(number.rounded(.up), 86_400))
    }

    /// A form-encoded body (by its content type) as the equivalent JSON object, so that one parser reads both;
    /// `nil` for any other body. Numbers stay strings, which ``readExpiresIn(_:maximum:)`` accepts.
    static func formAsJSON(_ response: HTTPResponse, _ body: Data) -> Data? {
        guard let contentType = response.headerFields[.contentType]?.lowercased(),
            contentType.hasPrefix("application/x-www-form-urlencoded"), let fields = FormEncoding.decode(body)
        else { return nil }
        return try? JSONEncoder().encode(fields)
    }

    /// GitHub's own error codes at its token endpoint, given the meaning of their RFC 6749 §5.2 equivalents:
    /// `bad_refresh_token` and `bad_verification_code` are `invalid_grant` (the grant or code is unusable; sign in
    /// again). The others (`incorrect_client_credentials`, `redirect_uri_mismatch`, `unverified_user_email`,
    /// `device_flow_disabled`) stay configuration problems. Error codes from "Troubleshooting OAuth app access
    /// token request errors" and "Authorizing OAuth apps"
    /// (<https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps#error-codes-for-the-device-flow>).
    static func gitHubClassified(_ error: OAuthError) -> OAuthError {
        guard error.classification != .transient else { return error }
        switch error.errorCode?.rawValue {
        case "bad_refresh_token"?, "bad_verification_code"?:
            return error.with(classification: .permanent(.grantRevoked))
        default:
            return error
        }
    }

    /// RFC 6749 §5.1, with the deviations real providers have (Firebase's string `expires_in`). `package` for the
    /// fuzz targets (Fuzz/TetherFuzz), which run this same code on hostile bodies.
    /// - Parameter keepingMalformedExpiry: Keep the tokens when `expires_in` is malformed, as an answer to a refresh
    ///   must (the provider may have rotated the refresh token already): a lifetime too large to read is cut to
    ///   ``maximumExpiresIn``, any other malformed one is unknown (docs/decisions.md §3). Otherwise it is
    ///   ``OAuthError/invalidExpiresIn``.
    package func parseTokenResponse(
        _ response: HTTPResponse,
        _ body: Data,
        endpoint: URL,
        keepingMalformedExpiry: Bool = false
    ) throws -> TokenResponse {
        guard let object = JSONValue.object(from: body) else {
            throw Self.notJSON(response, body, endpoint: endpoint)
        }
        let idToken = object["id_token"]?.string.flatMap { $0.isEmpty ? nil : IDToken($0) }
        let access =
            object["access_token"]?.string.flatMap { $0.isEmpty ? nil : $0 }
            ?? (configuration.idTokenIsAccessToken ? idToken?.revealedValue : nil)
        guard let access else {
            throw OAuthError.missingAccessToken.with(
                message: "The token response of \(Self.redacted(endpoint)) has no access_token"
            )
        }
        guard let tokenType = object["token_type"]?.string else {
            throw OAuthError.unsupportedTokenType.with(
                message: "The token response of \(Self.redacted(endpoint)) has no token_type"
            )
        }
        guard tokenType.caseInsensitiveCompare("Bearer") == .orderedSame else {
            throw OAuthError.unsupportedTokenType.with(
                message: "The token type '\(UntrustedText.sanitized(tokenType))' is not supported (only Bearer)"
            )
        }
        let expiresIn: Duration?
        switch Self.readExpiresIn(object["expires_in"]) {
        case .absent: expiresIn = nil
        case .seconds(let seconds): expiresIn = .seconds(seconds)
        case .invalid(let problem) where keepingMalformedExpiry:
            expiresIn = problem == .tooLarge ? Self.maximumExpiresIn : nil
            logger.info(
                "The refreshed tokens are kept although their expires_in is invalid",
                metadata: [
                    "oauth.field": "expires_in", "oauth.problem": "\(problem.rawValue)",
                    "oauth.expires_in": "\(expiresIn.map { "\($0.components.seconds)" } ?? "unknown")",
                ]
            )
        case .invalid(let problem):
            throw Self.invalidExpiresIn(problem, in: "token response", endpoint: endpoint)
        }
        let scopes = Self.grantedScopes(object["scope"])
        let refreshToken = object["refresh_token"]?.string.flatMap { $0.isEmpty ? nil : RefreshToken($0) }
        var tokens = TokenResponse(
            accessToken: AccessToken(access),
            refreshToken: refreshToken,
            idToken: idToken,
            tokenType: "Bearer",
            scopes: scopes,
            expiresIn: expiresIn
        )
        if refreshToken != nil {
            tokens.refreshTokenExpiresIn = refreshTokenLifetime(object["refresh_token_expires_in"])
        }
        return tokens
    }

    /// The longest refresh-token lifetime taken from `refresh_token_expires_in`: ten years. A longer one says the
    /// token does not end in any time that matters, and is read as no end.
    static let maximumRefreshTokenExpiresIn: Duration = .seconds(10 * 365 * 86_400)

    /// `refresh_token_expires_in` (GitHub Apps' user tokens, "Refreshing user access tokens"; Google's time-limited
    /// access, "Using OAuth 2.0 to Access Google APIs"), read like `expires_in` (a JSON number or a string of
    /// digits). A malformed value never costs the tokens: it is logged and read as no end, as is a lifetime beyond
    /// ``maximumRefreshTokenExpiresIn``. Only an answer that carries a refresh token is asked: the end of a kept
    /// refresh token stays the old one.
    func refreshTokenLifetime(_ value: JSONValue?) -> Duration? {
        let problem: ExpiresInProblem
        switch Self.readExpiresIn(value, maximum: Self.largestExactInteger) {
        case .absent:
            return nil
        case .seconds(let seconds) where seconds <= Self.maximumRefreshTokenExpiresIn.components.seconds:
            return .seconds(seconds)
        case .seconds:
            problem = .tooLarge
        case .invalid(let invalid):
            problem = invalid
        }
        logger.info(
            "The refresh token's lifetime is ignored: its refresh_token_expires_in is invalid",
            metadata: ["oauth.field": "refresh_token_expires_in", "oauth.problem": "\(problem.rawValue)"]
        )
        return nil
    }

    /// The `scope` of a token response (RFC 6749 §5.1): space-separated as the RFC says, comma-separated as GitHub
    /// sends it (`repo,gist`), or a JSON array. Absent, and empty (what GitHub Apps send, whose permissions are not
    /// scopes), are `nil`: the grant is what was asked for. A scope token may in theory contain a comma (RFC 6749
    /// §3.3); no provider Tether knows uses one, so a comma always separates.
    static func grantedScopes(_ value: JSONValue?) -> [String]? {
        let scopes: [String]
        switch value {
        case .string(let text)?:
            scopes = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        case .array(let items)?:
            scopes = items.compactMap(\.string).filter { !$0.isEmpty }
        default:
            return nil
        }
        return scopes.isEmpty ? nil : scopes
    }

    /// The requested scopes the provider did not grant, for a response that names its scopes (RFC 6749 §5.1: it
    /// must when they differ from the request). Logged, and reported on ``SignInResult/missingScopes``.
    func missingScopes(requested: [String], granted: [String]?, grantType: String) -> [String] {
        guard let granted else { return [] }
        let grantedSet = Set(granted)
        let missing = requested.filter { !grantedSet.contains($0) }
        if !missing.isEmpty {
            logger.info(
                "The provider granted fewer scopes than requested",
                metadata: [
                    "oauth.grant_type": "\(grantType)", "oauth.scopes_missing": "\(missing.joined(separator: " "))",
                    "oauth.scopes": "\(granted.joined(separator: " "))",
                ]
            )
        }
        return missing
    }

    /// The longest lifetime taken from `expires_in`: one year. A longer one is cut to it, so that no date or duration
    /// computed from it can overflow; real providers grant hours, and a token that outlives a year is refreshed
    /// once a year.
    static let maximumExpiresIn: Duration = .seconds(365 * 86_400)

    /// The largest whole number a JSON number carries exactly (RFC 8259 §6, RFC 7493 §2.2: 2^53 - 1). An
    /// `expires_in` beyond it is no count of seconds anyone computed.
    static let largestExactInteger: Int64 = (1 << 53) - 1

    /// What an `expires_in` says (RFC 6749 §5.1: the lifetime in seconds, a JSON number).
    enum ExpiresIn: Equatable {
        /// Not in the answer, or `null`: the lifetime is unknown (docs/decisions.md §3).
        case absent
        /// A whole number of seconds, cut to ``maximumExpiresIn``.
        case seconds(Int64)
        /// Not a lifetime in seconds.
        case invalid(ExpiresInProblem)
    }

    /// Why an `expires_in` is not a lifetime in seconds; the raw value names it in messages and logs.
    enum ExpiresInProblem: String, Equatable {
        case negative = "negative"
        case fractional = "not a whole number"
        case notANumber = "not a number"
        case tooLarge = "too large"
    }

    /// Reads `expires_in` as a JSON number or as a string of decimal digits (Firebase's secure token API sends
    /// `"3600"`, and every form-encoded answer carries strings; docs/decisions.md §30). Whole numbers of seconds up
    /// to ``largestExactInteger`` are valid and cut to ``maximumExpiresIn``; negative, fractional, non-numeric
    /// (`"an hour"`, `"1e3"`, `"+60"`, `true`) and larger values are not.
    /// - Parameters:
    ///   - value: The member's value, if any.
    ///   - maximum: The longest lifetime in seconds; a longer valid one is cut to it.
    /// - Returns: What the value says.
    static func readExpiresIn(_ value: JSONValue?, maximum: Int64 = maximumExpiresIn.components.seconds) -> ExpiresIn {
        switch value {
        case nil, .null?:
            return .absent
        case .number(let number)?:
            guard number.isFinite else { return .invalid(.tooLarge) }
            guard number >= 0 else { return .invalid(.negative) }
            guard number.rounded(.towardZero) == number else { return .invalid(.fractional) }
            guard number <= Double(largestExactInteger) else { return .invalid(.tooLarge) }
            return .seconds(min(Int64(number), maximum))
        case .string(let text)?:
            let digits = text.trimmingCharacters(in: .whitespaces)
            if digits.hasPrefix("-"), Double(digits) != nil { return .invalid(.negative) }
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return .invalid(.notANumber) }
            guard let seconds = Int64(digits), seconds <= largestExactInteger else { return .invalid(.tooLarge) }
            return .seconds(min(seconds, maximum))
        default:
            return .invalid(.notANumber)
        }
    }

    /// The error for an `expires_in` that is not a lifetime: a protocol error of the provider's answer, which
    /// naming the field tells apart from a network failure (docs/decisions.md §18: exit status 5 in `tether`).
    static func invalidExpiresIn(_ problem: ExpiresInProblem, in answer: String, endpoint: URL) -> OAuthError {
        OAuthError.invalidExpiresIn.with(
            message: "The \(answer) of \(redacted(endpoint)) has an invalid expires_in (\(problem.rawValue)); "
                + "RFC 6749 asks for a lifetime in whole seconds"
        )
    }
}
