import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// GitHub's paths and wire format, served in the GitHub dialect. GitHub's behaviour is taken from "Authorizing
/// OAuth apps" (<https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps>),
/// "Troubleshooting OAuth app access token request errors"
/// (<https://docs.github.com/en/apps/oauth-apps/maintaining-oauth-apps/troubleshooting-oauth-app-access-token-request-errors>),
/// "Refreshing user access tokens"
/// (<https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/refreshing-user-access-tokens>)
/// and the REST API reference for `GET /user` and `DELETE /applications/{client_id}/grant`.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension Endpoints {
    func registerGitHub(on router: Router<DevRequestContext>) {
        router.get("/login/oauth/authorize") { request, _ in await self.authorizationPage(request) }
        router.post("/login/oauth/authorize") { request, _ in try await self.submitLogin(request) }
        router.post("/login/oauth/access_token") { request, _ in try await self.gitHubToken(request) }
        router.post("/login/device/code") { request, _ in try await self.gitHubDeviceCode(request) }
        router.get("/login/device") { request, _ in await self.devicePage(request) }
        router.post("/login/device") { request, _ in try await self.submitLogin(request) }
        // github.com serves the API at api.github.com; a GitHub Enterprise Server under /api/v3.
        for prefix in ["", "/api/v3"] {
            router.get(RouterPath(prefix + "/user")) { request, _ in try await self.gitHubUser(request) }
            router.delete(RouterPath(prefix + "/applications/:client_id/grant")) { request, context in
                try await self.gitHubDeleteGrant(request, clientID: context.parameters.get("client_id") ?? "")
            }
        }
    }

    /// `POST /login/oauth/access_token`: the token endpoint. Successes and errors alike answer HTTP 200, as a form
    /// unless the request accepts JSON; `token_type` is `bearer` and `scope` comma-separated; tokens without a
    /// refresh token (an OAuth app's) carry no `expires_in`.
    func gitHubToken(_ request: Request) async throws -> Response {
        let form = try await self.form(request)
        do {
            let issue = try await self.issueTokens(request, form: form)
            var fields: [(String, JSONOutput)] = [
                ("access_token", .string(issue.accessToken)),
                ("token_type", "bearer"),
                ("scope", .string(issue.scopes.joined(separator: ","))),
            ]
            if let refreshToken = issue.refreshToken {
                fields += [
                    ("expires_in", .int(issue.expiresIn)),
                    ("refresh_token", .string(refreshToken)),
                    (
                        "refresh_token_expires_in",
                        .int(self.configuration.refreshTokenLifetime?.wholeSeconds ?? 15_897_600)
                    ),
                ]
            }
            return self.gitHubAnswer(fields, to: request)
        } catch let problem as OAuthProblem {
            var fields: [(String, JSONOutput)] = [
                ("error", .string(Self.gitHubCode(problem))),
                ("error_description", .string(problem.description)),
                (
                    "error_uri",
                    "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors"
                ),
            ]
            if problem == .slowDown, let code = form["device_code"],
                let interval = await self.state.deviceAuthorizations[code]?.interval
            {
                fields.append(("interval", .int(Int(interval))))
            }
            return self.gitHubAnswer(fields, to: request)
        }
    }

    /// `POST /login/device/code`: a device authorization, in GitHub's shape (form unless JSON is accepted).
    func gitHubDeviceCode(_ request: Request) async throws -> Response {
        let form = try await self.form(request)
        do {
            let credentials = try ClientAuthenticator.credentials(request: request, form: form)
            let client = try await ClientAuthenticator(state: self.state).authenticate(credentials)
            guard client.grantTypes.contains(.deviceCode) else {
                throw OAuthProblem.unauthorizedClient("Device flow is not enabled for this app.")
            }
            let start = await self.state.startDeviceAuthorization(
                client: client,
                scopes: Self.gitHubScopes(form["scope"])
            )
            return self.gitHubAnswer(
                [
                    ("device_code", .string(start.deviceCode)),
                    ("user_code", .string(start.userCode)),
                    ("verification_uri", .string(await self.state.issuer + "/login/device")),
                    ("expires_in", .int(start.expiresIn)),
                    ("interval", .int(start.interval)),
                ],
                to: request
            )
        } catch let problem as OAuthProblem {
            return self.gitHubAnswer(
                [("error", .string(Self.gitHubCode(problem))), ("error_description", .string(problem.description))],
                to: request
            )
        }
    }

    /// `GET /user`: the authenticated user; `401 {"message":"Bad credentials"}` without a valid token, as GitHub's
    /// REST API answers (no `WWW-Authenticate` challenge). `email` only with `user:email` or `user` granted.
    func gitHubUser(_ request: Request) async throws -> Response {
        guard let token = Self.bearerToken(request) ?? Self.gitHubTokenHeader(request),
            case .valid(let user, let username, let scopes) = await self.state.validateAccessToken(token)
        else {
            return HTTPResponses.json(
                [
                    "message": "Bad credentials",
                    "documentation_url": "https://docs.github.com/rest",
                    "status": "401",
                ],
                status: .unauthorized
            )
        }
        let users = self.configuration.users
        let index = users.firstIndex { $0.username == username } ?? users.count
        let subject = user?.subject ?? username
        let digits = subject.filter(\.isNumber)
        let id = Int(digits.suffix(15)) ?? 1000 + index
        let emailGranted = scopes.contains("user:email") || scopes.contains("user")
        return HTTPResponses.json([
            "login": .string(username),
            "id": .int(id),
            "name": user.map { .string($0.name) } ?? .null,
            "email": emailGranted ? user.map { .string($0.email) } ?? .null : .null,
            "type": "User",
        ])
    }

    /// `DELETE /applications/{client_id}/grant`: ends the grant of `{"access_token": …}` for the app, which
    /// authenticates with HTTP Basic; `204` when done, `404` for another client's or an unknown token, `401` for bad
    /// client credentials, `422` without a token.
    func gitHubDeleteGrant(_ request: Request, clientID: String) async throws -> Response {
        let body = try await self.jsonBody([String: String].self, from: request)
        let credentials: ClientAuthenticator.Credentials
        do {
            credentials = try ClientAuthenticator.credentials(request: request, form: FormData(""))
            guard credentials.usedBasicAuthentication, credentials.clientID == clientID else {
                throw OAuthProblem.invalidClient("Requires authentication", usedBasicAuthentication: false)
            }
            _ = try await ClientAuthenticator(state: self.state).authenticate(credentials)
        } catch {
            return HTTPResponses.json(["message": "Requires authentication"], status: .unauthorized)
        }
        guard let token = body["access_token"], !token.isEmpty else {
            return HTTPResponses.json(["message": "Validation Failed"], status: .unprocessableContent)
        }
        guard let record = await self.state.accessTokens[token], record.clientID == clientID else {
            return HTTPResponses.json(["message": "Not Found"], status: .notFound)
        }
        await self.state.revokeGrant(id: record.grantID)
        await self.state.count(.revocations)
        self.logger.debug("GitHub grant deleted", metadata: ["oauth.client_id": "\(clientID)"])
        return Response(status: .noContent)
    }

    /// GitHub's error code for a problem: its own names where it has them.
    static func gitHubCode(_ problem: OAuthProblem) -> String {
        switch problem {
        case .invalidClient: "incorrect_client_credentials"
        case .invalidCode, .codeReused, .pkceMismatch: "bad_verification_code"
        case .refreshTokenUnknown, .refreshTokenRevoked, .refreshTokenReused, .refreshTokenExpired, .userDisabled,
            .interactionRequired:
            "bad_refresh_token"
        case .deviceCodeUnknown: "incorrect_device_code"
        case .unauthorizedClient: "device_flow_disabled"
        default: problem.code
        }
    }

    /// Scopes as GitHub takes them: separated by spaces or commas.
    static func gitHubScopes(_ value: String?) -> [String] {
        (value ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
    }

    /// `Authorization: token …`, the older scheme GitHub's API also accepts.
    static func gitHubTokenHeader(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("token ") else { return nil }
        return header.dropFirst(6).trimmingCharacters(in: .whitespaces)
    }

    /// An answer of GitHub's OAuth endpoints: HTTP 200, JSON when the request accepts `application/json` (unless
    /// ``DevProvider/Interoperability/formEncodedTokenResponses``), else `application/x-www-form-urlencoded`.
    func gitHubAnswer(_ fields: [(String, JSONOutput)], to request: Request) -> Response {
        let acceptsJSON = request.headers[.accept]?.lowercased().contains("application/json") ?? false
        if acceptsJSON, !self.configuration.interoperability.formEncodedTokenResponses {
            return HTTPResponses.json(
                .object(Dictionary(fields, uniquingKeysWith: { first, _ in first })),
                noStore: true
            )
        }
        let text = fields.map { name, value -> String in
            let plain: String =
                switch value {
                case .string(let string): string
                case .int(let number): String(number)
                default: ""
                }
            return "\(FormData.encode(name))=\(FormData.encode(plain))"
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/x-www-form-urlencoded; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(
            status: .ok,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: text.joined(separator: "&")))
        )
    }
}
