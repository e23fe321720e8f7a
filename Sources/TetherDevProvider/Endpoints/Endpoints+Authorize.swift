import Foundation
import Hummingbird
import Logging

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension Endpoints {
    /// How long a rendered login form stays valid.
    static let pendingLifetime: Double = 600

    /// `GET /authorize`: validates client and redirect URI (errors there are shown, never
    /// redirected — RFC 6749 §4.1.2.1), then renders login + consent.
    func authorizationPage(_ request: Request) async -> Response {
        let query = FormData(request.uri.query)
        guard let client = await self.state.client(id: query["client_id"]) else {
            self.logger.debug("Authorization request for an unknown client")
            return HTTPResponses.html(
                HTMLPages.error(title: "Unknown client", message: "The client_id is missing or not registered."),
                status: .badRequest
            )
        }
        guard let redirectURI = query["redirect_uri"],
            RedirectURIMatcher.matches(redirectURI, registered: client.redirectURIs)
        else {
            self.logger.debug(
                "Authorization request with an unregistered redirect URI",
                metadata: ["oauth.client_id": "\(client.id)"]
            )
            return HTTPResponses.html(
                HTMLPages.error(
                    title: "Invalid redirect URI",
                    message: "The redirect_uri is missing or not registered for this client."
                ),
                status: .badRequest
            )
        }
        let state = query["state"]
        let issuer = await self.state.issuer
        func redirectError(_ code: String, _ description: String) -> Response {
            HTTPResponses.redirect(
                to: FormData.append(
                    [("error", code), ("error_description", description), ("state", state), ("iss", issuer)],
                    to: redirectURI
                )
            )
        }
        guard query["response_type"] == "code" else {
            return redirectError("unsupported_response_type", "Only response_type=code is supported.")
        }
        guard client.grantTypes.contains(.authorizationCode) else {
            return redirectError("unauthorized_client", "The client may not use the authorization code grant.")
        }
        let challenge = query["code_challenge"]
        let method = query["code_challenge_method"] ?? "plain"
        if client.requiresPKCE && challenge == nil {
            return redirectError(
                "invalid_request",
                "PKCE is required: send code_challenge with code_challenge_method=S256."
            )
        }
        if challenge != nil && method != "S256" {
            return redirectError("invalid_request", "Only code_challenge_method=S256 is supported.")
        }
        if query["prompt"] == "none" {
            return redirectError("login_required", "The dev provider has no browser session; the user must sign in.")
        }
        let scopes = Self.scopes(query["scope"])
        let pending = PendingAuthorization(
            clientID: client.id,
            scopes: scopes,
            loginHint: query["login_hint"],
            kind: .authorizationCode(
                redirectURI: redirectURI,
                state: state,
                nonce: query["nonce"],
                codeChallenge: challenge
            ),
            expiresAt: self.configuration.now().addingTimeInterval(Self.pendingLifetime)
        )
        let requestID = await self.state.createPending(pending)
        return HTTPResponses.html(
            HTMLPages.login(
                clientID: client.id,
                scopes: scopes,
                username: pending.loginHint,
                requestID: requestID,
                error: nil
            )
        )
    }

    /// `POST /authorize` and `POST /device`: the login + consent form.
    func submitLogin(_ request: Request) async throws -> Response {
        let form = try await self.form(request)
        guard let requestID = form["request_id"],
            let pending = await self.state.pendingAuthorization(id: requestID)
        else {
            return HTTPResponses.html(
                HTMLPages.error(
                    title: "Request expired",
                    message: "This sign-in request has expired or is unknown. Start again from the app."
                ),
                status: .badRequest
            )
        }
        let issuer = await self.state.issuer
        if form["decision"] == "deny" {
            await self.state.removePending(id: requestID)
            await self.state.count(.denials)
            switch pending.kind {
            case .authorizationCode(let redirectURI, let state, _, _):
                return HTTPResponses.redirect(
                    to: FormData.append(
                        [
                            ("error", "access_denied"),
                            ("error_description", "The user denied the request."),
                            ("state", state),
                            ("iss", issuer),
                        ],
                        to: redirectURI
                    )
                )
            case .device(let deviceCode):
                await self.state.denyDevice(deviceCode)
                return HTTPResponses.html(
                    HTMLPages.message(title: "Access denied", message: "The device was not connected.")
                )
            }
        }
        let username = form["username"] ?? ""
        if let failure = await self.state.loginFailure(username: username, password: form["password"] ?? "") {
            self.logger.debug("Login failed", metadata: ["oauth.client_id": "\(pending.clientID)"])
            return HTTPResponses.html(
                HTMLPages.login(
                    clientID: pending.clientID,
                    scopes: pending.scopes,
                    username: username,
                    requestID: requestID,
                    error: failure
                )
            )
        }
        await self.state.removePending(id: requestID)
        switch pending.kind {
        case .authorizationCode(let redirectURI, let state, _, _):
            guard let code = await self.state.issueCode(for: pending, username: username) else {
                return HTTPResponses.html(
                    HTMLPages.error(title: "Error", message: "The request could not be completed."),
                    status: .badRequest
                )
            }
            self.logger.debug("Authorization code issued", metadata: ["oauth.client_id": "\(pending.clientID)"])
            return HTTPResponses.redirect(
                to: FormData.append([("code", code), ("state", state), ("iss", issuer)], to: redirectURI)
            )
        case .device(let deviceCode):
            await self.state.approveDevice(deviceCode, username: username)
            return HTTPResponses.html(
                HTMLPages.message(title: "Device connected", message: "You can return to your device.")
            )
        }
    }
}
