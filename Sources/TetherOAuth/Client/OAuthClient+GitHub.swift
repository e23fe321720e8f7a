import Foundation
import HTTPTypes
import Logging
import Tether

extension OAuthClient {
    /// Headers GitHub's REST API asks for: its media type, a pinned API version, and a `User-Agent`, without which
    /// it refuses requests ("Getting started with the REST API",
    /// <https://docs.github.com/en/rest/using-the-rest-api/getting-started-with-the-rest-api>).
    static func gitHubAPIHeaders(_ request: inout HTTPRequest) {
        request.headerFields[.accept] = "application/vnd.github+json"
        request.headerFields[HTTPField.Name("X-GitHub-Api-Version")!] = "2022-11-28"
        request.headerFields[.userAgent] = "Tether"
    }

    /// `GET /user` ("Get the authenticated user",
    /// <https://docs.github.com/en/rest/users/users#get-the-authenticated-user>): the numeric `id` is the subject
    /// (a `login` can be renamed), `login` the preferred username, `email` the public or granted address.
    func gitHubUser(accessToken: AccessToken, endpoint: URL) async throws -> UserInfo {
        var request = HTTPRequest(method: .get, url: endpoint)
        request.headerFields[.authorization] = "Bearer \(accessToken.revealedValue)"
        Self.gitHubAPIHeaders(&request)
        let (response, body) = try await send(request, body: nil, endpoint: endpoint)
        guard response.status.kind == .successful else { throw errorResponse(response, body, endpoint: endpoint) }
        let object = JSONValue.object(from: body)
        let id: String? =
            switch object?["id"] {
            case .number(let number)?
            where number.isFinite && number >= 0 && number.rounded() == number
                && number < 9e15:
                String(Int64(number))
            case .string(let text)? where !text.isEmpty: text
            default: nil
            }
        guard let id else {
            throw OAuthError.malformedResponse.with(
                message: "The user response of \(Self.redacted(endpoint)) has no id"
            )
        }
        return UserInfo(
            subject: UntrustedText.sanitized(id),
            email: object?["email"]?.string.map { UntrustedText.sanitized($0) },
            emailVerified: nil,
            name: object?["name"]?.string.map { UntrustedText.sanitized($0) },
            preferredUsername: object?["login"]?.string.map { UntrustedText.sanitized($0) }
        )
    }

    /// Ends the grant with GitHub's "Delete an app authorization"
    /// (<https://docs.github.com/en/rest/apps/oauth-applications#delete-an-app-authorization>): `DELETE
    /// /applications/{client_id}/grant` with the access token in a JSON body and HTTP Basic authentication as the
    /// client id and secret; `204` on success. Anything else is reported, never taken for done.
    func revokeGitHubGrant(_ tokens: TokenSet) async throws {
        guard let secret = try clientSecretProvider?() ?? configuration.clientSecret else {
            throw ProviderConfigurationError.revocationUnsupported.with(
                message: "GitHub revokes only through its application API, which needs the app's client secret; "
                    + "without one, revoke the app at https://github.com/settings/applications"
            )
        }
        guard let endpoint = configuration.revocationEndpoint else {
            throw ProviderConfigurationError.missingEndpoint.with(
                message: "\(configuration.providerID) has no revocation_endpoint"
            )
        }
        guard let accessToken = tokens.accessToken else {
            throw ProviderConfigurationError.revocationUnsupported.with(
                message: "GitHub's application API names the grant by an access token, and the connection has none"
            )
        }
        var request = HTTPRequest(method: .delete, url: endpoint)
        Self.gitHubAPIHeaders(&request)
        request.headerFields[.contentType] = "application/json"
        // Plain HTTP Basic (RFC 7617), as GitHub's API documents it; GitHub's client ids and secrets are hexadecimal
        // and the same whether form-encoded first (RFC 6749 §2.3.1) or not.
        let credentials = "\(configuration.clientID):\(secret.revealedValue)"
        request.headerFields[.authorization] = "Basic \(Data(credentials.utf8).base64EncodedString())"
        let body = try JSONEncoder().encode(["access_token": accessToken.revealedValue])
        let (response, data) = try await send(request, body: body, endpoint: endpoint)
        guard response.status.kind == .successful else { throw errorResponse(response, data, endpoint: endpoint) }
        logger.debug("Revoked the GitHub grant", metadata: ["http.status": "\(response.status.code)"])
    }
}
