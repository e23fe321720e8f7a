package import Foundation
package import HTTPTypes
import Logging
package import Tether

extension OAuthClient {
    /// Posts a token request and parses the answer into a response anchored at its arrival.
    func tokenRequest(_ form: [(String, String)], grantType: String) async throws -> (TokenResponse, Date) {
        let endpoint = configuration.tokenEndpoint
        let (response, body) = try await post(endpoint, form: form)
        let receivedAt = dateSource.now
        guard response.status.kind == .successful else {
            let error = errorResponse(response, body, endpoint: endpoint)
            logger.debug(
                "Token request failed",
                metadata: [
                    "oauth.grant_type": "\(grantType)", "http.status": "\(response.status.code)",
                    "oauth.error": "\(error.errorCode?.rawValue ?? "-")",
                ]
            )
            throw error
        }
        return (try parseTokenResponse(response, body, endpoint: endpoint), receivedAt)
    }

    /// RFC 6749 §5.1, with the deviations real providers have (Firebase's string `expires_in`). `package` for the
    /// fuzz targets (Fuzz/TetherFuzz), which run this same code on hostile bodies.
    package func parseTokenResponse(_ response: HTTPResponse, _ body: Data, endpoint: URL) throws -> TokenResponse {
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
        let expiresIn = try Self.expiresIn(object["expires_in"], endpoint: endpoint)
        let scopes = object["scope"]?.string.map { $0.split(separator: " ").map(String.init) }
        let refreshToken = object["refresh_token"]?.string.flatMap { $0.isEmpty ? nil : RefreshToken($0) }
        return TokenResponse(
            accessToken: AccessToken(access),
            refreshToken: refreshToken,
            idToken: idToken,
            tokenType: "Bearer",
            scopes: scopes,
            expiresIn: expiresIn
        )
    }

    /// The longest lifetime taken from `expires_in`: one year. A longer one is cut to it, so that no date or duration
    /// computed from it can overflow; real providers grant hours, and a token that outlives a year is refreshed
    /// once a year.
    static let maximumExpiresIn: Duration = .seconds(365 * 86_400)

    /// `expires_in` as a JSON number or (Firebase) a numeric string; absent is `nil`; negative, fractional or
    /// non-numeric values are an error; values above ``maximumExpiresIn`` are cut to it.
    static func expiresIn(_ value: JSONValue?, endpoint: URL) throws -> Duration? {
        let maximum = maximumExpiresIn.components.seconds
        let seconds: Int64?
        switch value {
        case nil, .null?: return nil
        case .number(let number)?:
            seconds =
                number.isFinite && number >= 0 && number.rounded(.towardZero) == number
                ? Int64(min(number, Double(maximum))) : nil
        case .string(let text)?:
            let digits = text.trimmingCharacters(in: .whitespaces)
            // Only plain decimal digits; a string too long for Int64 is still a (huge) number of seconds.
            seconds =
                !digits.isEmpty && digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
                ? min(Int64(digits) ?? maximum, maximum) : nil
        default: seconds = nil
        }
        guard let seconds else {
            throw OAuthError.invalidExpiresIn.with(
                message: "The token response of \(redacted(endpoint)) has an invalid expires_in"
            )
        }
        return .seconds(seconds)
    }
}
