import Foundation
import HTTPTypes
import Logging
import Tether

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

    /// RFC 6749 §5.1, with the deviations real providers have (Firebase's string `expires_in`).
    func parseTokenResponse(_ response: HTTPResponse, _ body: Data, endpoint: URL) throws -> TokenResponse {
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
                message: "The token type '\(tokenType)' is not supported (only Bearer)"
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

    /// `expires_in` as a JSON number or (Firebase) a numeric string; absent is `nil`; negative or fractional
    /// garbage is an error.
    static func expiresIn(_ value: JSONValue?, endpoint: URL) throws -> Duration? {
        let seconds: Int?
        switch value {
        case nil, .null?: return nil
        case .number(let number)?: seconds = number.rounded() == number && abs(number) < 1e12 ? Int(number) : nil
        case .string(let text)?: seconds = Int(text.trimmingCharacters(in: .whitespaces))
        default: seconds = nil
        }
        guard let seconds, seconds >= 0 else {
            throw OAuthError.invalidExpiresIn.with(
                message: "The token response of \(redacted(endpoint)) has an invalid expires_in"
            )
        }
        return .seconds(seconds)
    }
}
