import Foundation
import HTTPTypes
import Hummingbird

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension Endpoints {
    /// The caller of the protected resource, or the refusal in the configured style.
    func resourceCaller(
        _ request: Request
    ) async throws -> (user: DevProvider.User?, username: String, scopes: [String]) {
        let style = self.configuration.resourceErrors
        let now = self.configuration.now()
        let issuer = await self.state.issuer
        let token = Self.bearerToken(request)
        var validation: BearerValidation?
        if let token {
            validation = await self.state.validateAccessToken(token)
        }
        if case .valid(let user, let username, let scopes) = validation {
            return (user, username, scopes)
        }
        let graphMessage =
            switch validation {
            case nil: "Access token is empty."
            case .expired: "Lifetime validation failed, the token is expired."
            default: "Access token validation failure."
            }
        switch style.kind {
        case .standard:
            return try await self.authenticatedUser(request)
        case .microsoftGraph:
            throw CalendarAPIError.graphUnauthorized(
                message: graphMessage,
                authorizationURI: issuer + "/authorize",
                now: now
            )
        case .googleAPI:
            throw CalendarAPIError.googleUnauthorized(missing: token == nil, realm: issuer + "/")
        case .github:
            // GitHub's REST API: no challenge, a message and a link.
            throw CalendarAPIError(
                status: .unauthorized,
                body: [
                    "message": "Bad credentials",
                    "documentation_url": "https://docs.github.com/rest",
                    "status": "401",
                ]
            )
        }
    }

    /// A claims challenge as Microsoft Entra resources send it: `401`, the challenge with the claims request
    /// base64-encoded (with padding, as Microsoft's examples show), and Graph's error body
    /// (https://learn.microsoft.com/entra/identity-platform/claims-challenge).
    func claimsChallenge(_ claims: String) -> CalendarAPIError {
        let encoded = Data(claims.utf8).base64EncodedString()
        var headers = HTTPFields()
        headers[.wwwAuthenticate] =
            #"Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", "#
            + #"error="insufficient_claims", claims="\#(encoded)""#
        return CalendarAPIError.graph(
            401,
            code: "InvalidAuthenticationToken",
            message: "Continuous access evaluation resulted in challenge with result: InteractionRequired and code: "
                + "TokenIssuedBeforeRevocationTimestamp",
            now: self.configuration.now(),
            headers: headers
        )
    }
}
