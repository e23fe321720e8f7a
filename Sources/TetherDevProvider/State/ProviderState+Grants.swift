import Foundation

/// The outcome of checking a bearer token at `/userinfo` or `/resource`.
enum BearerValidation: Sendable {
    case valid(user: DevProvider.User?, username: String, scopes: [String])
    case expired
    case invalid
}

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension ProviderState {
    // MARK: Authorization code

    /// Creates a code after the user allowed a pending authorization request.
    func issueCode(for authorization: PendingAuthorization, username: String) -> String? {
        guard
            case .authorizationCode(let redirectURI, _, let nonce, let codeChallenge) = authorization.kind
        else { return nil }
        let code = RandomToken.make()
        self.codes[code] = AuthorizationCodeRecord(
            clientID: authorization.clientID,
            redirectURI: redirectURI,
            codeChallenge: codeChallenge,
            username: username,
            scopes: authorization.scopes,
            nonce: nonce,
            authTime: self.now,
            expiresAt: self.now.addingTimeInterval(self.configuration.authorizationCodeLifetime.timeInterval)
        )
        self.count(.codesIssued)
        return code
    }

    /// Exchanges a code (RFC 6749 §4.1.3, RFC 7636 §4.6). A replayed code revokes the grant it created.
    func exchangeCode(
        _ code: String,
        client: DevProvider.ClientRegistration,
        redirectURI: String?,
        verifier: String?
    ) throws(OAuthProblem) -> TokenIssue {
        guard var record = self.codes[code] else {
            throw .invalidCode("The authorization code is invalid.")
        }
        guard !record.isUsed else {
            self.revokeGrant(id: record.grantID)
            self.count(.codeReuses)
            throw .codeReused
        }
        guard record.expiresAt > self.now else {
            throw .invalidCode("The authorization code has expired.")
        }
        guard record.clientID == client.id else {
            throw .invalidCode("The authorization code was issued to another client.")
        }
        guard redirectURI == record.redirectURI else {
            throw .invalidCode("The redirect_uri does not match the authorization request.")
        }
        if let challenge = record.codeChallenge {
            guard let verifier else {
                throw .invalidRequest("The code_verifier parameter is required.")
            }
            guard PKCE.isWellFormed(verifier: verifier), PKCE.challenge(for: verifier) == challenge else {
                throw .pkceMismatch
            }
        } else if verifier != nil {
            // RFC 9700 §2.1.1: a verifier without a challenge is a PKCE downgrade attempt.
            throw .invalidCode("A code_verifier was sent but the authorization request had no code_challenge.")
        }
        if self.isDisabled(record.username) {
            throw .userDisabled
        }
        let grant = self.makeGrant(
            clientID: client.id,
            username: record.username,
            scopes: record.scopes,
            nonce: record.nonce,
            authTime: record.authTime
        )
        record.isUsed = true
        record.grantID = grant.id
        self.codes[code] = record
        self.count(.codesExchanged)
        return try self.issueFirstTokens(grant: grant, client: client)
    }

    /// The tokens of a new grant (a redeemed code or an approved device code): an access token, an ID token when
    /// `openid` was granted, and a refresh token when the client may have one.
    private func issueFirstTokens(
        grant: Grant,
        client: DevProvider.ClientRegistration,
        isDeviceGrant: Bool = false
    ) throws(OAuthProblem) -> TokenIssue {
        let refreshToken =
            self.issuesRefreshToken(for: grant.scopes, client: client) ? self.newRefreshToken(for: grant) : nil
        do {
            return try self.issue(
                grant: grant,
                refreshToken: refreshToken,
                isRefresh: false,
                isDeviceGrant: isDeviceGrant
            )
        } catch {
            throw .invalidRequest("Token signing failed.")
        }
    }

    // MARK: Refresh

    /// Refreshes (RFC 6749 §6) with rotation, reuse detection and grace replays (RFC 9700 §4.14.2).
    func refresh(
        _ token: String,
        client: DevProvider.ClientRegistration,
        scopes requested: [String]?
    ) throws(OAuthProblem) -> TokenIssue {
        do {
            let issue = try self.performRefresh(token, client: client, scopes: requested)
            self.count(.refreshes)
            return issue
        } catch {
            self.count(.refreshFailures)
            throw error
        }
    }

    private func performRefresh(
        _ token: String,
        client: DevProvider.ClientRegistration,
        scopes requested: [String]?
    ) throws(OAuthProblem) -> TokenIssue {
        guard var record = self.refreshTokens[token], record.clientID == client.id,
            let grant = self.grants[record.grantID]
        else {
            throw .refreshTokenUnknown
        }
        guard !grant.isRevoked else {
            throw .refreshTokenRevoked
        }
        if case .spent(let spentAt, let replay) = record.status {
            let grace = self.configuration.reuseGracePeriod.timeInterval
            if grace > 0, self.now.timeIntervalSince(spentAt) <= grace {
                self.count(.graceReplays)
                return replay
            }
            if self.configuration.reuseDetection {
                self.revokeGrant(id: grant.id)
                self.count(.reuseDetections)
                throw .refreshTokenReused
            }
            throw .refreshTokenRevoked
        }
        if let lifetime = self.configuration.refreshTokenLifetime,
            self.now.timeIntervalSince(record.issuedAt) >= lifetime.timeInterval
        {
            throw .refreshTokenExpired
        }
        if let limit = self.configuration.refreshTokenInactivityLimit,
            self.now.timeIntervalSince(record.lastActivity) >= limit.timeInterval
        {
            throw .refreshTokenExpired
        }
        if self.isDisabled(grant.username) {
            throw .userDisabled
        }
        if self.faults.interactionRequiredRefreshes > 0 {
            self.faults.interactionRequiredRefreshes -= 1
            throw .interactionRequired
        }
        if !self.faults.refreshRefusals.isEmpty {
            let refusal = self.faults.refreshRefusals.removeFirst()
            throw .refused(aadsts: refusal.aadsts, message: refusal.message)
        }
        var scopes = grant.scopes
        if let requested, !requested.isEmpty {
            guard Set(requested).isSubset(of: Set(grant.scopes)) else {
                throw .invalidScope("The requested scope exceeds the scope granted by the resource owner.")
            }
            scopes = requested
        }
        let rotates = self.configuration.refreshTokenRotation && self.dialect.rotatesRefreshTokens
        // Without rotation Firebase echoes the refresh token; the other dialects omit it.
        let returnedRefreshToken: String? =
            rotates ? self.newRefreshToken(for: grant) : (self.dialect == .firebase ? token : nil)
        let issue: TokenIssue
        do {
            issue = try self.issue(grant: grant, refreshToken: returnedRefreshToken, isRefresh: true, scopes: scopes)
        } catch {
            throw .invalidRequest("Token signing failed.")
        }
        if rotates {
            record.status = .spent(at: self.now, replay: issue)
            self.count(.rotations)
        } else {
            record.lastUsedAt = self.now
        }
        self.refreshTokens[token] = record
        return issue
    }

    // MARK: Device authorization (RFC 8628)

    struct DeviceStart: Sendable {
        let deviceCode: String
        let userCode: String
        let expiresIn: Int
        let interval: Int
    }

    func startDeviceAuthorization(client: DevProvider.ClientRegistration, scopes: [String]) -> DeviceStart {
        let deviceCode = RandomToken.make()
        var userCode = RandomToken.userCode()
        while self.userCodes[RandomToken.normalizedUserCode(userCode)] != nil {
            userCode = RandomToken.userCode()
        }
        let lifetime = self.configuration.deviceCodeLifetime
        let interval = self.configuration.devicePollingInterval
        self.deviceAuthorizations[deviceCode] = DeviceAuthorizationRecord(
            userCode: userCode,
            clientID: client.id,
            scopes: scopes,
            expiresAt: self.now.addingTimeInterval(lifetime.timeInterval),
            interval: interval.timeInterval
        )
        self.userCodes[RandomToken.normalizedUserCode(userCode)] = deviceCode
        self.count(.deviceCodesIssued)
        return DeviceStart(
            deviceCode: deviceCode,
            userCode: userCode,
            expiresIn: lifetime.wholeSeconds,
            interval: max(1, interval.wholeSeconds)
        )
    }

    /// The device authorization a typed user code refers to, if it is still pending.
    func pendingDevice(userCode: String) -> (deviceCode: String, record: DeviceAuthorizationRecord)? {
        guard let deviceCode = self.userCodes[RandomToken.normalizedUserCode(userCode)],
            let record = self.deviceAuthorizations[deviceCode],
            case .pending = record.status,
            record.expiresAt > self.now
        else { return nil }
        return (deviceCode, record)
    }

    func approveDevice(_ deviceCode: String, username: String) {
        guard var record = self.deviceAuthorizations[deviceCode], case .pending = record.status else { return }
        record.status = .approved(username: username, authTime: self.now)
        self.deviceAuthorizations[deviceCode] = record
        self.count(.deviceApprovals)
    }

    func denyDevice(_ deviceCode: String) {
        guard var record = self.deviceAuthorizations[deviceCode], case .pending = record.status else { return }
        record.status = .denied
        self.deviceAuthorizations[deviceCode] = record
    }

    /// Answers a device-code poll (RFC 8628 §3.4–3.5).
    func pollDevice(_ deviceCode: String, client: DevProvider.ClientRegistration) throws(OAuthProblem) -> TokenIssue {
        guard var record = self.deviceAuthorizations[deviceCode], record.clientID == client.id else {
            throw .deviceCodeUnknown
        }
        let now = self.now
        guard record.expiresAt > now else {
            throw .expiredToken
        }
        switch record.status {
        case .denied:
            throw .accessDenied
        case .consumed:
            throw .deviceCodeUnknown
        case .approved(let username, let authTime):
            if self.isDisabled(username) {
                throw .userDisabled
            }
            record.status = .consumed
            self.deviceAuthorizations[deviceCode] = record
            let grant = self.makeGrant(
                clientID: client.id,
                username: username,
                scopes: record.scopes,
                nonce: nil,
                authTime: authTime
            )
            return try self.issueFirstTokens(grant: grant, client: client, isDeviceGrant: true)
        case .pending:
            defer { self.deviceAuthorizations[deviceCode] = record }
            if let lastPoll = record.lastPoll, now.timeIntervalSince(lastPoll) < record.interval {
                record.interval += 5
                record.lastPoll = now
                self.count(.slowDowns)
                throw .slowDown
            }
            record.lastPoll = now
            self.count(.pendingPolls)
            throw .authorizationPending
        }
    }

    // MARK: Revocation (RFC 7009)

    /// Revokes a token; returns whether it was known. A refresh token revokes its whole grant;
    /// an access token only itself (in the Google dialect its grant too).
    /// `clientID` is `nil` when the request did not identify a client (Google's shape).
    func revoke(_ token: String, clientID: String?) -> Bool {
        self.count(.revocations)
        if let record = self.refreshTokens[token], clientID == nil || record.clientID == clientID {
            self.revokeGrant(id: record.grantID)
            return true
        }
        if let record = self.accessTokens[token], clientID == nil || record.clientID == clientID {
            if self.dialect == .google {
                self.revokeGrant(id: record.grantID)
            }
            self.accessTokens[token] = nil
            return true
        }
        return false
    }

    // MARK: Bearer tokens (RFC 6750)

    func validateAccessToken(_ token: String) -> BearerValidation {
        guard let record = self.accessTokens[token],
            let grant = self.grants[record.grantID],
            !grant.isRevoked,
            !self.isDisabled(record.username)
        else {
            self.count(.bearerRejections)
            return .invalid
        }
        guard record.expiresAt > self.now else {
            self.count(.bearerRejections)
            return .expired
        }
        return .valid(user: self.user(named: record.username), username: record.username, scopes: record.scopes)
    }
}
