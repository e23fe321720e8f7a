import Foundation
import Hummingbird
import Logging

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension Endpoints {
    /// `POST /device_authorization` (RFC 8628 §3.1–3.2).
    func deviceAuthorization(_ request: Request) async throws -> Response {
        let form = try await self.form(request)
        do {
            let credentials = try ClientAuthenticator.credentials(request: request, form: form)
            if self.configuration.interoperability.deviceAuthorizationRequiresClientIDInForm, form["client_id"] == nil {
                throw OAuthProblem.invalidRequest("Missing client_id parameter.")
            }
            let client = try await ClientAuthenticator(state: self.state).authenticate(credentials)
            guard client.grantTypes.contains(.deviceCode) else {
                throw OAuthProblem.unauthorizedClient("The client may not use the device authorization grant.")
            }
            let start = await self.state.startDeviceAuthorization(client: client, scopes: Self.scopes(form["scope"]))
            let verification = await self.state.issuer + "/device"
            self.logger.debug("Device code issued", metadata: ["oauth.client_id": "\(client.id)"])
            return HTTPResponses.json(
                [
                    "device_code": .string(start.deviceCode),
                    "user_code": .string(start.userCode),
                    "verification_uri": .string(verification),
                    "verification_uri_complete": .string(
                        FormData.append([("user_code", start.userCode)], to: verification)
                    ),
                    "expires_in": .int(start.expiresIn),
                    "interval": .int(start.interval),
                ],
                noStore: true
            )
        } catch let problem as OAuthProblem {
            throw self.error(problem)
        }
    }

    /// `GET /device`: the code-entry page, or login + consent once a valid `user_code` is given.
    func devicePage(_ request: Request) async -> Response {
        let query = FormData(request.uri.query)
        guard let userCode = query["user_code"] else {
            return HTTPResponses.html(HTMLPages.deviceEntry(error: nil))
        }
        guard let found = await self.state.pendingDevice(userCode: userCode) else {
            return HTTPResponses.html(HTMLPages.deviceEntry(error: "That code is invalid or has expired."))
        }
        let (deviceCode, record) = (found.deviceCode, found.record)
        let pending = PendingAuthorization(
            clientID: record.clientID,
            scopes: record.scopes,
            loginHint: nil,
            kind: .device(deviceCode: deviceCode),
            expiresAt: record.expiresAt
        )
        let requestID = await self.state.createPending(pending)
        return HTTPResponses.html(
            HTMLPages.login(
                clientID: record.clientID,
                scopes: record.scopes,
                username: nil,
                requestID: requestID,
                error: nil
            )
        )
    }
}
