import HTTPTypes
import Hummingbird
import Logging

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension Endpoints {
    private struct FaultRequest: Decodable {
        let endpoint: String
        let latencyMilliseconds: Int?
        let serverErrors: Int?
        let status: Int?
        let rateLimits: Int?
        let retryAfter: Int?
        let rateLimitStatus: Int?
        let rateLimitReason: String?
        let droppedConnections: Int?
        let droppedAnswers: Int?
        let randomPercent: Int?
        let randomSeed: UInt64?
        let randomKinds: [String]?
        let randomMaximumLatencyMilliseconds: Int?

        enum CodingKeys: String, CodingKey {
            case endpoint
            case latencyMilliseconds = "latency_ms"
            case serverErrors = "server_errors"
            case status
            case rateLimits = "rate_limits"
            case retryAfter = "retry_after"
            case rateLimitStatus = "rate_limit_status"
            case rateLimitReason = "rate_limit_reason"
            case droppedConnections = "dropped_connections"
            case droppedAnswers = "dropped_answers"
            case randomPercent = "random_percent"
            case randomSeed = "random_seed"
            case randomKinds = "random_kinds"
            case randomMaximumLatencyMilliseconds = "random_max_latency_ms"
        }

        /// The random faults asked for: `nil` when the request does not mention them, `.some(nil)` to turn them off.
        func random(for endpoint: DevProvider.Endpoint) throws -> DevProvider.RandomFaults?? {
            guard let percent = self.randomPercent else { return nil }
            guard percent > 0 else { return .some(nil) }
            var kinds = DevProvider.RandomFaults.Kind.all
            if let names = self.randomKinds {
                kinds = try names.map { name in
                    guard let kind = DevProvider.RandomFaults.Kind(named: name) else {
                        throw OAuthErrorResponse(
                            status: .badRequest,
                            body: ["error": "invalid_request", "error_description": "Unknown random fault kind."]
                        )
                    }
                    return kind
                }
            }
            return DevProvider.RandomFaults(
                rate: Double(min(percent, 100)) / 100,
                endpoints: [endpoint],
                kinds: kinds,
                maximumLatency: .milliseconds(self.randomMaximumLatencyMilliseconds ?? 1500),
                seed: self.randomSeed ?? 1
            )
        }
    }

    private struct SecondsRequest: Decodable {
        let seconds: Int
    }

    private struct CountRequest: Decodable {
        let count: Int?
    }

    private struct ClaimsChallengeRequest: Decodable {
        let count: Int?
        let claims: String?
    }

    private struct RefusalRequest: Decodable {
        let count: Int?
        let refusal: String
    }

    private struct UserRequest: Decodable {
        let username: String?
    }

    /// The `username` of an admin request's JSON body; a body without one is `invalid_request`.
    private func requiredUsername(_ request: Request) async throws -> String {
        guard let username = try await jsonBody(UserRequest.self, from: request).username else {
            throw OAuthErrorResponse(
                status: .badRequest,
                body: ["error": "invalid_request", "error_description": "username"]
            )
        }
        return username
    }

    private struct MintRequest: Decodable {
        let username: String
        let clientID: String?
        let scope: String?

        enum CodingKeys: String, CodingKey {
            case username
            case clientID = "client_id"
            case scope
        }
    }

    /// `/admin/...`: JSON API guarded by the `X-Tether-Admin` header.
    func registerAdmin(on router: Router<DevRequestContext>) {
        let admin = router.group("admin")
        admin.add(middleware: AdminKeyMiddleware(key: self.configuration.adminKey))
        let api = DevProvider.Admin(state: self.state)
        admin.get("counters") { _, _ in
            HTTPResponses.json(Self.json(await api.counters()))
        }
        admin.get("faults") { _, _ in
            HTTPResponses.json(Self.json(await api.faults()))
        }
        admin.post("faults") { request, _ in
            let body = try await self.jsonBody(FaultRequest.self, from: request)
            let endpoint = DevProvider.Endpoint(body.endpoint)
            guard DevProvider.Endpoint.all.contains(endpoint) else {
                throw OAuthErrorResponse(
                    status: .badRequest,
                    body: ["error": "invalid_request", "error_description": "Unknown endpoint."]
                )
            }
            if let latency = body.latencyMilliseconds {
                await api.setLatency(.milliseconds(latency), for: endpoint)
            }
            if let count = body.serverErrors {
                await api.failNext(count, requestsTo: endpoint, status: body.status ?? 503)
            }
            if let count = body.rateLimits {
                await api.rateLimitNext(
                    count,
                    requestsTo: endpoint,
                    retryAfterSeconds: body.retryAfter ?? 1,
                    status: body.rateLimitStatus ?? 429,
                    reason: body.rateLimitReason ?? "rateLimitExceeded"
                )
            }
            if let retryAfter = body.retryAfter, body.rateLimits == nil {
                // Also the `Retry-After` of calendar server errors (Graph's 503).
                var faults = await api.faults()
                faults.retryAfterSeconds = retryAfter
                await api.setFaults(faults)
            }
            if let count = body.droppedConnections {
                await api.dropNext(count, connectionsTo: endpoint)
            }
            if let count = body.droppedAnswers {
                await api.dropNextAnswers(count, from: endpoint)
            }
            if let random = try body.random(for: endpoint) {
                await api.setRandomFaults(random)
            }
            return HTTPResponses.json(Self.json(await api.faults()))
        }
        admin.post("clock-skew") { request, _ in
            let body = try await self.jsonBody(SecondsRequest.self, from: request)
            await api.setClockSkew(.seconds(body.seconds))
            return HTTPResponses.json(["clock_skew": .int(body.seconds)])
        }
        admin.post("interaction-required") { request, _ in
            let body = try await self.jsonBody(CountRequest.self, from: request)
            await api.requireInteractionOnNextRefreshes(body.count ?? 1)
            return HTTPResponses.json(["interaction_required_refreshes": .int(body.count ?? 1)])
        }
        admin.post("claims-challenge") { request, _ in
            let body = try await self.jsonBody(ClaimsChallengeRequest.self, from: request)
            if let claims = body.claims {
                await api.challengeNextResourceRequests(body.count ?? 1, claims: claims)
            } else {
                await api.challengeNextResourceRequests(body.count ?? 1)
            }
            return HTTPResponses.json(["claims_challenges": .int(body.count ?? 1)])
        }
        admin.post("refuse-refreshes") { request, _ in
            let body = try await self.jsonBody(RefusalRequest.self, from: request)
            guard let refusal = DevProvider.RefreshRefusal.all.first(where: { $0.description == body.refusal }) else {
                throw HTTPError(.badRequest, message: "Unknown refusal \(body.refusal)")
            }
            await api.refuseNextRefreshes(body.count ?? 1, with: refusal)
            return HTTPResponses.json(["refused_refreshes": .int(body.count ?? 1)])
        }
        admin.post("revoke-grants") { request, _ in
            let body = try await self.jsonBody(UserRequest.self, from: request)
            var count = 0
            if let username = body.username {
                count = await api.revokeGrants(ofUser: username)
            } else {
                count = await api.revokeAllGrants()
            }
            return HTTPResponses.json(["revoked": .int(count)])
        }
        admin.post("users/disable") { request, _ in
            let username = try await self.requiredUsername(request)
            await api.disableUser(username)
            return HTTPResponses.json(["disabled": .string(username)])
        }
        admin.post("users/enable") { request, _ in
            let username = try await self.requiredUsername(request)
            await api.enableUser(username)
            return HTTPResponses.json(["enabled": .string(username)])
        }
        admin.post("rotate-keys") { _, _ in
            let kid = try await api.rotateSigningKeys()
            return HTTPResponses.json(["kid": .string(kid)])
        }
        admin.post("expire-access-tokens") { _, _ in
            await api.expireAccessTokens()
            return HTTPResponses.json([:])
        }
        admin.post("reset") { _, _ in
            await api.reset()
            return HTTPResponses.json([:])
        }
        self.registerCalendarAdmin(on: admin, api: api)
        admin.post("tokens") { request, _ in
            let body = try await self.jsonBody(MintRequest.self, from: request)
            do {
                let tokens = try await api.issueTokens(
                    username: body.username,
                    clientID: body.clientID ?? DevProvider.ClientRegistration.defaultClient.id,
                    scopes: body.scope.map { Self.scopes($0) } ?? ["openid", "email", "profile", "offline_access"]
                )
                var json: [String: JSONOutput] = [
                    "access_token": .string(tokens.accessToken),
                    "token_type": "Bearer",
                    "expires_in": .int(tokens.expiresIn),
                    "scope": .string(tokens.scopes.joined(separator: " ")),
                ]
                json["refresh_token"] = tokens.refreshToken.map(JSONOutput.string)
                json["id_token"] = tokens.idToken.map(JSONOutput.string)
                return HTTPResponses.json(.object(json), noStore: true)
            } catch {
                throw OAuthErrorResponse(
                    status: .badRequest,
                    body: ["error": "invalid_request", "error_description": .string("\(error)")]
                )
            }
        }
    }

    static func json(_ counters: DevProvider.Counters) -> JSONOutput {
        [
            "requests": .counts(counters.requests),
            "outcomes": .counts(counters.outcomes),
            "events": .counts(counters.events),
        ]
    }

    static func json(_ faults: DevProvider.Faults) -> JSONOutput {
        func names<V>(_ values: [DevProvider.Endpoint: V], _ transform: (V) -> JSONOutput) -> JSONOutput {
            .object(Dictionary(uniqueKeysWithValues: values.map { ($0.key.rawValue, transform($0.value)) }))
        }
        return [
            "latency_ms": names(faults.latency) { .int(Int($0.timeInterval * 1000)) },
            "server_errors": names(faults.serverErrors) { .int($0) },
            "server_error_status": .int(faults.serverErrorStatus),
            "rate_limits": names(faults.rateLimits) { .int($0) },
            "retry_after": .int(faults.retryAfterSeconds),
            "rate_limit_status": .int(faults.rateLimitStatus),
            "rate_limit_reason": .string(faults.rateLimitReason),
            "dropped_connections": names(faults.droppedConnections) { .int($0) },
            "dropped_answers": names(faults.droppedAnswers) { .int($0) },
            "random": faults.random.map { random -> JSONOutput in
                [
                    "endpoints": .strings(random.endpoints.map(\.rawValue).sorted()),
                    "percent": .int(Int((random.rate * 100).rounded())),
                    "kinds": .strings(random.kinds.map(\.rawValue)),
                    "max_latency_ms": .int(Int(random.maximumLatency.timeInterval * 1000)),
                    "seed": .string(String(random.seed)),
                ]
            } ?? .null,
            "clock_skew": .int(faults.clockSkew.wholeSeconds),
            "interaction_required_refreshes": .int(faults.interactionRequiredRefreshes),
        ]
    }
}

/// Rejects admin requests without the right `X-Tether-Admin` header.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
struct AdminKeyMiddleware: RouterMiddleware {
    typealias Context = DevRequestContext

    let key: String

    func handle(
        _ request: Request,
        context: DevRequestContext,
        next: @concurrent (Request, DevRequestContext) async throws -> Response
    ) async throws -> Response {
        guard request.headers[HTTPResponses.adminKey] == self.key else {
            return HTTPResponses.json(
                ["error": "unauthorized", "error_description": "Missing or wrong X-Tether-Admin header."],
                status: .unauthorized
            )
        }
        return try await next(request, context)
    }
}
