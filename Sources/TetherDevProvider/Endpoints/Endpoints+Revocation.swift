import Hummingbird
import Logging

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension Endpoints {
    /// `POST /revoke` (RFC 7009): 200 for known and unknown tokens alike, except in the Google
    /// dialect, which answers 400 `invalid_token` for unknown ones.
    func revoke(_ request: Request) async throws -> Response {
        let form = try await self.form(request)
        do {
            let credentials = try ClientAuthenticator.credentials(request: request, form: form)
            // Google's revocation endpoint takes just the token; accept that shape everywhere.
            var clientID: String?
            if credentials.clientID != nil || self.dialect == .apple {
                clientID = try await ClientAuthenticator(state: self.state).authenticate(credentials).id
            }
            guard let token = form["token"] else {
                throw OAuthProblem.invalidRequest("The token parameter is required.")
            }
            let wasKnown = await self.state.revoke(token, clientID: clientID)
            self.logger.debug("Revocation handled", metadata: ["oauth.token_known": "\(wasKnown)"])
            if !wasKnown && self.dialect == .google {
                return HTTPResponses.json(["error": "invalid_token"], status: .badRequest, noStore: true)
            }
            return HTTPResponses.json([:], noStore: true)
        } catch let problem as OAuthProblem {
            throw self.error(problem)
        }
    }
}
