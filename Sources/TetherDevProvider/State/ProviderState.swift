import Foundation

/// All of the provider's mutable state: grants, tokens, codes, device authorizations, pending
/// sign-ins, signing keys, faults and counters. One actor, so every protocol step is atomic.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
actor ProviderState {
    typealias Configuration = DevProvider.Configuration

    let configuration: Configuration
    private(set) var issuerURL: URL
    var keys: SigningKeySet
    var faults: DevProvider.Faults
    /// Draws the random faults; seeded from ``DevProvider/Faults/random`` whenever that changes.
    var faultRandom = SeededRandom(seed: 0)
    var counters = DevProvider.Counters()
    var disabledUsers: Set<String> = []
    var grants: [String: Grant] = [:]
    var refreshTokens: [String: RefreshTokenRecord] = [:]
    var accessTokens: [String: AccessTokenRecord] = [:]
    var codes: [String: AuthorizationCodeRecord] = [:]
    var deviceAuthorizations: [String: DeviceAuthorizationRecord] = [:]
    var userCodes: [String: String] = [:]
    var pending: [String: PendingAuthorization] = [:]
    var calendarStore: CalendarStore

    init(configuration: Configuration) {
        self.configuration = configuration
        self.issuerURL = configuration.issuer ?? Self.issuer(host: configuration.host, port: configuration.port)
        self.keys = SigningKeySet(current: .processWide)
        self.faults = configuration.faults
        self.faultRandom = SeededRandom(seed: configuration.faults.random?.seed ?? 0)
        self.calendarStore = CalendarStore(users: configuration.users, now: configuration.now())
    }

    // MARK: Basics

    var dialect: DevProvider.Dialect { self.configuration.dialect }
    var issuer: String { self.issuerURL.absoluteString }
    var now: Date { self.configuration.now() }
    /// The time stamped into issued JWTs, shifted by the clock-skew fault.
    var stampNow: Date { self.now.addingTimeInterval(self.faults.clockSkew.timeInterval) }

    static func issuer(host: String, port: Int) -> URL {
        let formattedHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return URL(string: "http://\(formattedHost):\(port)")!
    }

    func adoptIssuer(host: String, port: Int) {
        self.issuerURL = Self.issuer(host: host, port: port)
    }

    func client(id: String?) -> DevProvider.ClientRegistration? {
        guard let id else { return nil }
        return self.configuration.clients.first { $0.id == id }
    }

    func user(named username: String) -> DevProvider.User? {
        self.configuration.users.first { $0.username == username }
    }

    func isDisabled(_ username: String) -> Bool {
        self.disabledUsers.contains(username)
    }

    /// Checks a login; `nil` means success, otherwise a message for the form.
    func loginFailure(username: String, password: String) -> String? {
        guard let user = self.user(named: username), user.password == password else {
            self.count(.loginFailures)
            return "Wrong username or password."
        }
        if self.isDisabled(username) {
            self.count(.loginFailures)
            return "This account is disabled."
        }
        return nil
    }

    // MARK: Counters

    func count(_ event: DevProvider.Counters.Event) {
        self.counters.events[event.rawValue, default: 0] += 1
    }

    func recordOutcome(_ endpoint: DevProvider.Endpoint, status: Int) {
        self.counters.outcomes["\(endpoint.rawValue) \(status)", default: 0] += 1
    }

    // MARK: Pending sign-ins

    func createPending(_ authorization: PendingAuthorization) -> String {
        let id = RandomToken.make(byteCount: 16)
        self.pending[id] = authorization
        return id
    }

    func pendingAuthorization(id: String?) -> PendingAuthorization? {
        guard let id, let authorization = self.pending[id] else { return nil }
        guard authorization.expiresAt > self.now else {
            self.pending[id] = nil
            return nil
        }
        return authorization
    }

    func removePending(id: String) {
        self.pending[id] = nil
    }

    // MARK: Issuing tokens

    func makeGrant(clientID: String, username: String, scopes: [String], nonce: String?, authTime: Date) -> Grant {
        let grant = Grant(
            id: RandomToken.make(byteCount: 16),
            clientID: clientID,
            username: username,
            // A consent page where the person unticked some scopes grants fewer than were asked for.
            scopes: self.configuration.interoperability.grantableScopes.map { grantable in
                scopes.filter { grantable.contains($0) }
            } ?? scopes,
            nonce: nonce,
            authTime: authTime
        )
        self.grants[grant.id] = grant
        return grant
    }

    func issuesRefreshToken(for scopes: [String], client: DevProvider.ClientRegistration) -> Bool {
        client.grantTypes.contains(.refreshToken)
            && (self.configuration.refreshTokenIssuance.isUnconditional || scopes.contains("offline_access"))
    }

    /// Issues an access token, optionally a refresh token, and an ID token when `openid` was granted.
    func issue(
        grant: Grant,
        refreshToken: String?,
        isRefresh: Bool,
        scopes: [String]? = nil,
        isDeviceGrant: Bool = false
    ) throws -> TokenIssue {
        let scopes = scopes ?? grant.scopes
        let lifetime = self.configuration.accessTokenLifetime
        let accessToken = try self.makeAccessToken(grant: grant, scopes: scopes)
        self.accessTokens[accessToken] = AccessTokenRecord(
            grantID: grant.id,
            clientID: grant.clientID,
            username: grant.username,
            scopes: scopes,
            expiresAt: self.now.addingTimeInterval(lifetime.timeInterval)
        )
        let interoperability = self.configuration.interoperability
        let wantsIDToken =
            (grant.scopes.contains("openid") || self.dialect == .firebase)
            && interoperability.supportsOpenIDConnect && self.dialect != .github
            && !(isDeviceGrant && !interoperability.issuesIDTokenForDeviceGrant)
        let idToken = wantsIDToken ? try self.makeIDToken(grant: grant) : nil
        return TokenIssue(
            accessToken: accessToken,
            expiresIn: lifetime.wholeSeconds,
            refreshToken: refreshToken,
            idToken: idToken,
            scopes: scopes,
            username: grant.username,
            isRefresh: isRefresh
        )
    }

    func newRefreshToken(for grant: Grant) -> String {
        let token = RandomToken.make()
        self.refreshTokens[token] = RefreshTokenRecord(
            grantID: grant.id,
            clientID: grant.clientID,
            issuedAt: self.now,
            status: .active
        )
        return token
    }

    private func makeAccessToken(grant: Grant, scopes: [String]) throws -> String {
        guard self.configuration.accessTokenFormat == .jwt else {
            return RandomToken.make()
        }
        let user = self.user(named: grant.username)
        let iat = Int(self.stampNow.timeIntervalSince1970)
        let claims: JSONOutput = [
            "iss": .string(self.issuer),
            "sub": .string(user?.subject ?? grant.username),
            "aud": .string(self.issuer + "/resource"),
            "client_id": .string(grant.clientID),
            "iat": .int(iat),
            "exp": .int(iat + self.configuration.accessTokenLifetime.wholeSeconds),
            "auth_time": .int(
                Int(grant.authTime.addingTimeInterval(self.faults.clockSkew.timeInterval).timeIntervalSince1970)
            ),
            "jti": .string(RandomToken.make(byteCount: 16)),
            "scope": .string(scopes.joined(separator: " ")),
        ]
        return try self.keys.current.sign(claims, type: "at+jwt")
    }

    private func makeIDToken(grant: Grant) throws -> String {
        let user = self.user(named: grant.username)
        let iat = Int(self.stampNow.timeIntervalSince1970)
        let audience = self.dialect == .firebase ? self.configuration.firebaseProjectID : grant.clientID
        var claims: [String: JSONOutput] = [
            "iss": .string(self.issuer),
            "sub": .string(user?.subject ?? grant.username),
            "aud": .string(audience),
            "azp": .string(grant.clientID),
            "iat": .int(iat),
            "exp": .int(iat + self.configuration.idTokenLifetime.wholeSeconds),
            "auth_time": .int(
                Int(grant.authTime.addingTimeInterval(self.faults.clockSkew.timeInterval).timeIntervalSince1970)
            ),
        ]
        if let nonce = grant.nonce {
            claims["nonce"] = .string(nonce)
        }
        if let user {
            claims["email"] = .string(user.email)
            claims["email_verified"] = true
            claims["name"] = .string(user.name)
        }
        if self.dialect == .firebase {
            claims["user_id"] = .string(user?.subject ?? grant.username)
        }
        return try self.keys.current.sign(.object(claims), type: "JWT")
    }

    // MARK: Revoking grants

    /// Marks a grant revoked; its refresh and access tokens stop working.
    func revokeGrant(id: String?) {
        guard let id, var grant = self.grants[id], !grant.isRevoked else { return }
        grant.isRevoked = true
        self.grants[id] = grant
        self.count(.grantsRevoked)
    }

    func grant(id: String) -> Grant? {
        self.grants[id]
    }
}
