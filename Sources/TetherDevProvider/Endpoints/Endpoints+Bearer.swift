import Foundation
import HTTPTypes
import Hummingbird

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension Endpoints {
    /// The bearer token from `Authorization: Bearer …` (RFC 6750 §2.1).
    static func bearerToken(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            return nil
        }
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// Validates the bearer token or throws the RFC 6750 §3 challenge.
    func authenticatedUser(
        _ request: Request
    ) async throws -> (user: DevProvider.User?, username: String, scopes: [String]) {
        guard let token = Self.bearerToken(request) else {
            throw OAuthErrorResponse.bearer(error: nil)
        }
        switch await self.state.validateAccessToken(token) {
        case .valid(let user, let username, let scopes):
            return (user, username, scopes)
        case .expired:
            throw OAuthErrorResponse.bearer(error: "invalid_token", description: "The access token expired")
        case .invalid:
            throw OAuthErrorResponse.bearer(error: "invalid_token", description: "The access token is not valid")
        }
    }

    /// `GET /userinfo` (OIDC Core §5.3).
    func userinfo(_ request: Request) async throws -> Response {
        guard self.configuration.interoperability.supportsOpenIDConnect else {
            throw HTTPError(.notFound)
        }
        let (user, username, scopes) = try await self.authenticatedUser(request)
        if self.configuration.interoperability.userinfoRequiresOpenIDScope, !scopes.contains("openid") {
            throw OAuthErrorResponse.bearer(
                error: "invalid_token",
                description: "The access token provided is expired, revoked, malformed, or invalid for other reasons."
            )
        }
        guard let user else {
            return HTTPResponses.json(["sub": .string(username)])
        }
        return HTTPResponses.json([
            "sub": .string(user.subject),
            "email": .string(user.email),
            "email_verified": true,
            "name": .string(user.name),
            "preferred_username": .string(user.username),
        ])
    }

    /// `GET /resource` and `GET /resource/admin`: a protected resource for client tests. A refused token is
    /// answered in the configured ``DevProvider/ResourceErrorStyle``; an injected claims challenge comes before
    /// the scope check.
    func resource(_ request: Request, requiredScope: String?) async throws -> Response {
        let (user, username, scopes) = try await self.resourceCaller(request)
        if let challenge = await self.state.takeClaimsChallenge() {
            throw self.claimsChallenge(challenge)
        }
        if let requiredScope, !scopes.contains(requiredScope) {
            throw OAuthErrorResponse.bearer(error: "insufficient_scope", scope: requiredScope)
        }
        return HTTPResponses.json([
            "sub": .string(user?.subject ?? username),
            "scope": .string(scopes.joined(separator: " ")),
        ])
    }
}
