import Foundation
import Hummingbird
import Logging

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension Endpoints {
    /// `POST /token`: authorization_code (PKCE S256), refresh_token, device_code.
    func token(_ request: Request) async throws -> Response {
        let form = try await self.form(request)
        let interoperability = self.configuration.interoperability
        do {
            let issue = try await self.issueTokens(request, form: form)
            if interoperability.formEncodedTokenResponses {
                return HTTPResponses.form(self.tokenResponse(issue))
            }
            return HTTPResponses.json(self.tokenResponse(issue), noStore: true)
        } catch let problem as OAuthProblem {
            let rendered = self.error(problem)
            var status = rendered.status
            var headers = rendered.headers
            if case .invalidClient = problem, interoperability.invalidClientAnswers400 {
                status = .badRequest
                headers[.wwwAuthenticate] = nil
            }
            if interoperability.tokenErrorsWithHTTP200 { status = .ok }
            if interoperability.formEncodedTokenResponses, let body = rendered.body {
                var response = HTTPResponses.form(body, status: status)
                response.headers[.wwwAuthenticate] = headers[.wwwAuthenticate]
                return response
            }
            guard status != rendered.status || headers != rendered.headers else { throw rendered }
            throw OAuthErrorResponse(status: status, body: rendered.body, headers: headers)
        }
    }

    /// Authenticates the client and runs the grant of a token request; throws ``OAuthProblem`` for the dialect
    /// to render.
    func issueTokens(_ request: Request, form: FormData) async throws -> TokenIssue {
        let grantType = form["grant_type"]
        do {
            let credentials = try ClientAuthenticator.credentials(request: request, form: form)
            let client = try await ClientAuthenticator(state: self.state).authenticate(credentials)
            guard let grantType else {
                throw OAuthProblem.invalidRequest("The grant_type parameter is required.")
            }
            let issue: TokenIssue
            switch grantType {
            case DevProvider.GrantType.authorizationCode.rawValue:
                try Self.require(.authorizationCode, for: client)
                guard let code = form["code"] else {
                    throw OAuthProblem.invalidRequest("The code parameter is required.")
                }
                issue = try await self.state.exchangeCode(
                    code,
                    client: client,
                    redirectURI: form["redirect_uri"],
                    verifier: form["code_verifier"]
                )
            case DevProvider.GrantType.refreshToken.rawValue:
                try Self.require(.refreshToken, for: client)
                guard let refreshToken = form["refresh_token"] else {
                    throw OAuthProblem.invalidRequest("The refresh_token parameter is required.")
                }
                let scopes = form["scope"].map { Self.scopes($0) }
                if let claims = form["claims"] {
                    // OpenID Connect Core 1.0 §5.5: the claims request is a JSON object.
                    guard (try? JSONSerialization.jsonObject(with: Data(claims.utf8))) is [String: Any] else {
                        throw OAuthProblem.invalidRequest("The claims parameter is not a JSON object.")
                    }
                    await self.state.count(.claimsRefreshes)
                }
                issue = try await self.state.refresh(refreshToken, client: client, scopes: scopes)
            case DevProvider.GrantType.deviceCode.rawValue:
                try Self.require(.deviceCode, for: client)
                guard let deviceCode = form["device_code"] else {
                    throw OAuthProblem.invalidRequest("The device_code parameter is required.")
                }
                issue = try await self.state.pollDevice(deviceCode, client: client)
            default:
                throw OAuthProblem.unsupportedGrantType("The grant_type is not supported.")
            }
            self.logger.debug(
                "Token request succeeded",
                metadata: ["oauth.grant_type": "\(grantType)", "oauth.client_id": "\(client.id)"]
            )
            return issue
        } catch let problem as OAuthProblem {
            self.logger.debug(
                "Token request failed",
                metadata: ["oauth.grant_type": "\(grantType ?? "-")", "oauth.error": "\(problem.code)"]
            )
            throw problem
        }
    }

    private static func require(
        _ grantType: DevProvider.GrantType,
        for client: DevProvider.ClientRegistration
    ) throws(OAuthProblem) {
        guard client.grantTypes.contains(grantType) else {
            throw .unauthorizedClient("The client may not use the \(grantType.rawValue) grant.")
        }
    }

    /// The RFC 6749 §5.1 token response in the dialect's shape.
    func tokenResponse(_ issue: TokenIssue) -> JSONOutput {
        let interoperability = self.configuration.interoperability
        var body: [String: JSONOutput] = [
            "access_token": .string(issue.accessToken),
            "token_type": .string(interoperability.tokenType),
            "expires_in": interoperability.expiresInAsString ? .string(String(issue.expiresIn)) : .int(issue.expiresIn),
        ]
        if let refreshToken = issue.refreshToken {
            body["refresh_token"] = .string(refreshToken)
            if self.configuration.announcesRefreshTokenLifetime, let lifetime = self.configuration.refreshTokenLifetime
            {
                body["refresh_token_expires_in"] = .int(lifetime.wholeSeconds)
            }
        }
        if let idToken = issue.idToken {
            body["id_token"] = .string(idToken)
        }
        if self.dialect != .apple, !interoperability.omitsScopeInTokenResponse {
            body["scope"] = .string(issue.scopes.joined(separator: " "))
        }
        if self.dialect == .microsoft {
            body["ext_expires_in"] = .int(issue.expiresIn)
        }
        return .object(body)
    }

    /// `POST /v1/token?key=…`: the Firebase secure-token refresh.
    func firebaseToken(_ request: Request) async throws -> Response {
        let query = FormData(request.uri.query)
        guard query["key"] == self.configuration.firebaseAPIKey else {
            throw OAuthErrorResponse.firebase("API key not valid. Please pass a valid API key.")
        }
        let form = try await self.form(request)
        guard form["grant_type"] == DevProvider.GrantType.refreshToken.rawValue else {
            throw OAuthErrorResponse.firebase("INVALID_GRANT_TYPE")
        }
        guard let refreshToken = form["refresh_token"] else {
            throw OAuthErrorResponse.firebase("MISSING_REFRESH_TOKEN")
        }
        guard let clientID = await self.state.refreshTokens[refreshToken]?.clientID,
            let client = await self.state.client(id: clientID)
        else {
            throw OAuthErrorResponse.firebase("INVALID_REFRESH_TOKEN")
        }
        do {
            let issue = try await self.state.refresh(refreshToken, client: client, scopes: nil)
            let user = await self.state.user(named: issue.username)
            let body: JSONOutput = [
                "access_token": .string(issue.accessToken),
                "expires_in": .string(String(issue.expiresIn)),
                "token_type": "Bearer",
                "refresh_token": .string(issue.refreshToken ?? refreshToken),
                "id_token": .string(issue.idToken ?? issue.accessToken),
                "user_id": .string(user?.subject ?? issue.username),
                "project_id": .string(self.configuration.firebaseProjectID),
            ]
            return HTTPResponses.json(body, noStore: true)
        } catch {
            throw OAuthErrorResponse.firebase(error)
        }
    }
}
