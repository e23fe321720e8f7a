import Foundation

/// What the fault middleware must do with one request.
enum FaultDecision: Sendable {
    case proceed
    case serverError(status: Int, retryAfterSeconds: Int)
    case rateLimit(retryAfterSeconds: Int, status: Int, reason: String)
    case drop
    /// Process the request, then close the connection without the answer.
    case dropAnswer
    /// Process the request after an extra delay.
    case delay(Duration)
}

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension ProviderState {
    // MARK: Faults

    /// Counts a request to an endpoint and consumes one pending fault for it.
    func takeFault(for endpoint: DevProvider.Endpoint) -> (latency: Duration?, decision: FaultDecision) {
        self.counters.requests[endpoint.rawValue, default: 0] += 1
        let latency = self.faults.latency[endpoint]
        if let remaining = self.faults.droppedConnections[endpoint], remaining > 0 {
            self.faults.droppedConnections[endpoint] = remaining - 1
            self.count(.droppedConnections)
            return (latency, .drop)
        }
        if let remaining = self.faults.droppedAnswers[endpoint], remaining > 0 {
            self.faults.droppedAnswers[endpoint] = remaining - 1
            self.count(.droppedAnswers)
            return (latency, .dropAnswer)
        }
        if let remaining = self.faults.serverErrors[endpoint], remaining > 0 {
            self.faults.serverErrors[endpoint] = remaining - 1
            self.count(.injectedServerErrors)
            return (
                latency,
                .serverError(status: self.faults.serverErrorStatus, retryAfterSeconds: self.faults.retryAfterSeconds)
            )
        }
        if let remaining = self.faults.rateLimits[endpoint], remaining > 0 {
            self.faults.rateLimits[endpoint] = remaining - 1
            self.count(.injectedRateLimits)
            return (
                latency,
                .rateLimit(
                    retryAfterSeconds: self.faults.retryAfterSeconds,
                    status: self.faults.rateLimitStatus,
                    reason: self.faults.rateLimitReason
                )
            )
        }
        return (latency, self.randomFault(for: endpoint))
    }

    /// Draws a random fault for a request, if ``DevProvider/Faults/random`` covers the endpoint.
    private func randomFault(for endpoint: DevProvider.Endpoint) -> FaultDecision {
        guard let random = self.faults.random, random.endpoints.contains(endpoint), !random.kinds.isEmpty,
            Double.random(in: 0..<1, using: &self.faultRandom) < random.rate
        else { return .proceed }
        let kind = random.kinds[Int.random(in: 0..<random.kinds.count, using: &self.faultRandom)]
        switch kind {
        case .serverError:
            self.count(.injectedServerErrors)
            let status = [500, 502, 503, 504][Int.random(in: 0..<4, using: &self.faultRandom)]
            return .serverError(status: status, retryAfterSeconds: self.faults.retryAfterSeconds)
        case .rateLimit:
            self.count(.injectedRateLimits)
            return .rateLimit(
                retryAfterSeconds: self.faults.retryAfterSeconds,
                status: 429,
                reason: "rateLimitExceeded"
            )
        case .droppedConnection:
            self.count(.droppedConnections)
            return .drop
        case .droppedAnswer:
            self.count(.droppedAnswers)
            return .dropAnswer
        default:
            self.count(.injectedLatencies)
            let nanoseconds =
                random.maximumLatency.components.seconds * 1_000_000_000
                + random.maximumLatency.components.attoseconds / 1_000_000_000
            return .delay(.nanoseconds(Int64.random(in: 0...max(nanoseconds, 0), using: &self.faultRandom)))
        }
    }

    func setFaults(_ faults: DevProvider.Faults) {
        if faults.random != self.faults.random {
            self.faultRandom = SeededRandom(seed: faults.random?.seed ?? 0)
        }
        self.faults = faults
    }

    func updateFaults(_ body: @Sendable (inout DevProvider.Faults) -> Void) {
        var faults = self.faults
        body(&faults)
        self.setFaults(faults)
    }

    /// Consumes one injected claims challenge, returning its claims request.
    func takeClaimsChallenge() -> String? {
        guard self.faults.claimsChallenges > 0 else { return nil }
        self.faults.claimsChallenges -= 1
        return self.faults.claimsChallenge
    }

    // MARK: Grants and users

    /// Revokes all grants, or those of one user; returns how many were revoked.
    func revokeGrants(username: String?) -> Int {
        let ids = self.grants.values.filter { !$0.isRevoked && (username == nil || $0.username == username) }
            .map(\.id)
        for id in ids {
            self.revokeGrant(id: id)
        }
        return ids.count
    }

    func setUser(_ username: String, disabled: Bool) {
        if disabled {
            self.disabledUsers.insert(username)
        } else {
            self.disabledUsers.remove(username)
        }
    }

    func expireAccessTokens() {
        let now = self.now
        for token in self.accessTokens.keys {
            self.accessTokens[token]?.expiresAt = now
        }
    }

    // MARK: Keys

    func rotateSigningKeys() throws -> String {
        let key = try SigningKey.generate()
        self.keys.rotate(to: key)
        self.count(.keyRotations)
        return key.kid
    }

    // MARK: Reset and minting

    func reset() {
        self.setFaults(DevProvider.Faults())
        self.counters = DevProvider.Counters()
        self.disabledUsers = []
        self.grants = [:]
        self.refreshTokens = [:]
        self.accessTokens = [:]
        self.codes = [:]
        self.deviceAuthorizations = [:]
        self.userCodes = [:]
        self.pending = [:]
        self.calendarStore.reset(users: self.configuration.users, now: self.now, epoch: self.calendarStore.epoch)
    }

    struct MintingError: Error, CustomStringConvertible {
        let description: String
    }

    func mintTokens(username: String, clientID: String, scopes: [String]) throws -> DevProvider.IssuedTokens {
        guard self.user(named: username) != nil else {
            throw MintingError(description: "Unknown user \(username).")
        }
        guard let client = self.client(id: clientID) else {
            throw MintingError(description: "Unknown client \(clientID).")
        }
        let grant = self.makeGrant(
            clientID: clientID,
            username: username,
            scopes: scopes,
            nonce: nil,
            authTime: self.now
        )
        let refreshToken = self.issuesRefreshToken(for: scopes, client: client) ? self.newRefreshToken(for: grant) : nil
        let issue = try self.issue(grant: grant, refreshToken: refreshToken, isRefresh: false)
        return DevProvider.IssuedTokens(
            accessToken: issue.accessToken,
            refreshToken: issue.refreshToken,
            idToken: issue.idToken,
            expiresIn: issue.expiresIn,
            scopes: issue.scopes
        )
    }
}
