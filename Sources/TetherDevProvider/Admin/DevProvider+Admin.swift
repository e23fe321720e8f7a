public import Foundation

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider {
    /// Fault injection, state manipulation and counters in Swift, mirroring the `/admin/...` HTTP API.
    public struct Admin: Sendable {
        let state: ProviderState

        /// Current request and event counters.
        public func counters() async -> Counters {
            await self.state.counters
        }

        /// The faults currently in effect.
        public func faults() async -> Faults {
            await self.state.faults
        }

        /// Replaces all faults at once.
        public func setFaults(_ faults: Faults) async {
            await self.state.setFaults(faults)
        }

        /// Adds a delay to every request to an endpoint (`.zero` removes it).
        public func setLatency(_ latency: Duration, for endpoint: Endpoint) async {
            await self.state.updateFaults { $0.latency[endpoint] = latency == .zero ? nil : latency }
        }

        /// Makes the next `count` requests to an endpoint answer a server error.
        ///
        /// - Parameters:
        ///   - count: How many requests fail.
        ///   - endpoint: The endpoint.
        ///   - status: The 5xx status. Defaults to 503.
        public func failNext(_ count: Int, requestsTo endpoint: Endpoint, status: Int = 503) async {
            await self.state.updateFaults {
                $0.serverErrors[endpoint] = count
                $0.serverErrorStatus = status
            }
        }

        /// Makes the next `count` requests to an endpoint answer a rate limit: 429 with `Retry-After`
        /// by default.
        ///
        /// - Parameters:
        ///   - count: How many requests are refused.
        ///   - endpoint: The endpoint.
        ///   - retryAfterSeconds: The `Retry-After` value. Defaults to 1.
        ///   - status: 429 (the default), or 403 as the Google Calendar API also answers.
        ///   - reason: The Google Calendar API `errors[].reason`: `rateLimitExceeded` (the default)
        ///     or `userRateLimitExceeded`.
        public func rateLimitNext(
            _ count: Int,
            requestsTo endpoint: Endpoint,
            retryAfterSeconds: Int = 1,
            status: Int = 429,
            reason: String = "rateLimitExceeded"
        ) async {
            await self.state.updateFaults {
                $0.rateLimits[endpoint] = count
                $0.retryAfterSeconds = retryAfterSeconds
                $0.rateLimitStatus = status
                $0.rateLimitReason = reason
            }
        }

        /// Closes the next `count` connections to an endpoint without writing a response.
        public func dropNext(_ count: Int, connectionsTo endpoint: Endpoint) async {
            await self.state.updateFaults { $0.droppedConnections[endpoint] = count }
        }

        /// Processes the next `count` requests to an endpoint — a refresh rotates its refresh token — and then
        /// closes their connections without the answer.
        public func dropNextAnswers(_ count: Int, from endpoint: Endpoint) async {
            await self.state.updateFaults { $0.droppedAnswers[endpoint] = count }
        }

        /// Injects faults into a random share of the requests (`nil` stops them). The generator is seeded again
        /// whenever the random faults change.
        public func setRandomFaults(_ random: RandomFaults?) async {
            await self.state.updateFaults { $0.random = random }
        }

        /// Stamps issued JWTs (`iat`, `exp`, `auth_time`) with the current time plus `skew`.
        public func setClockSkew(_ skew: Duration) async {
            await self.state.updateFaults { $0.clockSkew = skew }
        }

        /// Makes the next `count` refreshes fail with "interaction required"
        /// (Microsoft: `interaction_required`, `AADSTS50076`; other dialects: `invalid_grant`).
        public func requireInteractionOnNextRefreshes(_ count: Int = 1) async {
            await self.state.updateFaults { $0.interactionRequiredRefreshes = count }
        }

        /// Refuses the next `count` refreshes with `refusal`, in the configured dialect's words.
        public func refuseNextRefreshes(_ count: Int = 1, with refusal: RefreshRefusal) async {
            await self.state.updateFaults { $0.refreshRefusals = Array(repeating: refusal, count: count) }
        }

        /// Makes the next `count` requests to the protected resource with a valid token answer a claims challenge
        /// (see ``Faults/claimsChallenges``).
        /// - Parameters:
        ///   - count: How many requests are challenged.
        ///   - claims: The claims request (JSON) the challenge carries, base64-encoded as Microsoft Entra does.
        public func challengeNextResourceRequests(
            _ count: Int = 1,
            claims: String = #"{"access_token":{"nbf":{"essential":true,"value":"1700000000"}}}"#
        ) async {
            await self.state.updateFaults {
                $0.claimsChallenges = count
                $0.claimsChallenge = claims
            }
        }

        /// Revokes every grant: all refresh and access tokens stop working.
        ///
        /// - Returns: The number of grants revoked.
        @discardableResult
        public func revokeAllGrants() async -> Int {
            await self.state.revokeGrants(username: nil)
        }

        /// Revokes every grant of one user.
        ///
        /// - Returns: The number of grants revoked.
        @discardableResult
        public func revokeGrants(ofUser username: String) async -> Int {
            await self.state.revokeGrants(username: username)
        }

        /// Disables a user: sign-in fails and refreshes answer the dialect's user-disabled error.
        public func disableUser(_ username: String) async {
            await self.state.setUser(username, disabled: true)
        }

        /// Re-enables a disabled user.
        public func enableUser(_ username: String) async {
            await self.state.setUser(username, disabled: false)
        }

        /// Makes every access token issued so far expire now.
        public func expireAccessTokens() async {
            await self.state.expireAccessTokens()
        }

        /// When the provider holds an access token it issued to expire, on its own clock; `nil` for a token it
        /// did not issue.
        public func expiry(ofAccessToken token: String) async -> Date? {
            await self.state.accessTokens[token]?.expiresAt
        }

        /// Generates a new signing key; the previous one stays in the JWKS.
        ///
        /// - Returns: The `kid` of the new key.
        @discardableResult
        public func rotateSigningKeys() async throws -> String {
            try await self.state.rotateSigningKeys()
        }

        /// The `kid` of the key currently signing tokens.
        public func currentKeyID() async -> String {
            await self.state.keys.current.kid
        }

        /// Clears faults, counters, grants, tokens, codes, device codes and disabled users, and
        /// restores the seeded calendars (invalidating sync tokens and delta links). Signing keys are kept.
        public func reset() async {
            await self.state.reset()
        }

        /// Mints tokens for a user without going through the browser flow.
        ///
        /// - Parameters:
        ///   - username: A configured user.
        ///   - clientID: The client the grant belongs to. Defaults to `tether-dev-client`.
        ///   - scopes: The granted scopes. Defaults to `openid email profile offline_access`.
        /// - Returns: The tokens, as the token endpoint would have issued them.
        /// - Throws: If the user or client is unknown.
        public func issueTokens(
            username: String,
            clientID: String = ClientRegistration.defaultClient.id,
            scopes: [String] = ["openid", "email", "profile", "offline_access"]
        ) async throws -> IssuedTokens {
            try await self.state.mintTokens(username: username, clientID: clientID, scopes: scopes)
        }
    }
}
