public import Foundation
public import Tether

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A token issuer for tests, demos and previews: it signs users in, refreshes with rotation and reuse detection,
/// revokes, and counts what it did.
///
/// It behaves like a strict provider (RFC 9700 §4.14.2): every refresh rotates the refresh token, and presenting
/// a refresh token that was already used revokes the whole grant and fails with a permanent `invalid_grant`.
/// With a `stateFile` its state lives in a file under an exclusive lock, so that several processes share one
/// issuer — the setting in which a client that refreshes twice with one token is caught.
public final class TestIssuer: TokenRefresher, TokenRevoker, Sendable {
    /// What the issuer did; read it to assert "exactly one refresh".
    public struct Counters: Sendable, Hashable, Codable {
        /// Successful refreshes.
        public var refreshes = 0
        /// Refresh attempts with an already-used refresh token (each revoked its grant).
        public var reuseDetections = 0
        /// Refresh attempts that failed for any reason, faults included.
        public var failedRefreshes = 0
        /// Revocation requests.
        public var revocations = 0
        /// Sign-ins.
        public var signIns = 0

        /// All zero.
        public init() {}
    }

    private struct Grant: Codable {
        var subject: String
        var currentRefreshToken: String
        var isRevoked = false
    }

    private struct State: Codable {
        var grants: [String: Grant] = [:]
        /// Every refresh token ever issued, current or spent, to its grant.
        var refreshTokens: [String: String] = [:]
        /// Live access tokens and their expiry (seconds since 1970).
        var accessTokens: [String: TimeInterval] = [:]
        var counters = Counters()
        var serial = 0
    }

    private let lifetime: Duration
    private let rotates: Bool
    private let dateSource: DateSource
    private let stateFile: URL?
    private let memory = LockedState(State())
    private let faults = LockedState<[RefreshError]>([])
    private let gate = LockedState<SharedFlight<Void>?>(nil)

    /// Creates an issuer.
    /// - Parameters:
    ///   - lifetime: How long access tokens live.
    ///   - rotatesRefreshTokens: Whether every refresh issues a new refresh token (and spends the old one).
    ///   - dateSource: The wall clock for expiry.
    ///   - stateFile: A file to keep the state in, shared between processes; `nil` keeps it in memory.
    public init(
        lifetime: Duration = .seconds(3600),
        rotatesRefreshTokens: Bool = true,
        dateSource: DateSource = .system,
        stateFile: URL? = nil
    ) {
        self.lifetime = lifetime
        self.rotates = rotatesRefreshTokens
        self.dateSource = dateSource
        self.stateFile = stateFile
    }

    // MARK: Grants

    /// Signs a user in and returns the first tokens of a new grant.
    /// - Parameter subject: The user's identifier.
    /// - Returns: The token response of the code exchange.
    public func signIn(subject: String) throws -> TokenResponse {
        try mutate { state in
            state.counters.signIns += 1
            let grantID = "grant-\(state.serial)"
            let refreshToken = Self.mint("rt", &state)
            state.grants[grantID] = Grant(subject: subject, currentRefreshToken: refreshToken)
            state.refreshTokens[refreshToken] = grantID
            return issueAccessToken(refreshToken: refreshToken, &state)
        }
    }

    /// Signs a user in and returns the tokens anchored at the issuer's clock.
    /// - Parameter subject: The user's identifier.
    /// - Returns: A token set to store.
    public func signInTokens(subject: String) throws -> TokenSet {
        TokenSet(try signIn(subject: subject), receivedAt: dateSource.now)
    }

    /// Refreshes (RFC 6749 §6) with rotation and reuse detection.
    public func refresh(_ request: RefreshRequest) async throws -> TokenResponse {
        if let gate = gate.withLock({ $0 }) { try await gate.value() }
        if let fault = faults.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            try mutate { $0.counters.failedRefreshes += 1 }
            throw fault
        }
        let presented = request.refreshToken.revealedValue
        let outcome: Result<TokenResponse, RefreshError> = try mutate { state in
            guard let grantID = state.refreshTokens[presented], var grant = state.grants[grantID] else {
                state.counters.failedRefreshes += 1
                return .failure(.permanent(.grantRevoked, "invalid_grant: unknown refresh token"))
            }
            guard !grant.isRevoked else {
                state.counters.failedRefreshes += 1
                return .failure(.permanent(.grantRevoked, "invalid_grant: the grant was revoked"))
            }
            guard grant.currentRefreshToken == presented else {
                grant.isRevoked = true
                state.grants[grantID] = grant
                state.counters.reuseDetections += 1
                state.counters.failedRefreshes += 1
                return .failure(.permanent(.grantRevoked, "invalid_grant: refresh token reused; grant revoked"))
            }
            state.counters.refreshes += 1
            if rotates {
                let next = Self.mint("rt", &state)
                grant.currentRefreshToken = next
                state.grants[grantID] = grant
                state.refreshTokens[next] = grantID
                return .success(issueAccessToken(refreshToken: next, &state))
            }
            var response = issueAccessToken(refreshToken: presented, &state)
            response.refreshToken = nil
            return .success(response)
        }
        return try outcome.get()
    }

    /// Revokes the grant a refresh token belongs to (RFC 7009), and the access token.
    ///
    /// A refresh token that was already spent by a rotation is no longer valid, and revoking an invalid token does
    /// nothing (RFC 7009 §2.2): the grant, and the refresh token that replaced it, stay live.
    public func revoke(_ tokens: TokenSet, account: Account) async throws {
        try mutate { state in
            state.counters.revocations += 1
            if let token = tokens.refreshToken?.revealedValue, let grantID = state.refreshTokens[token],
                state.grants[grantID]?.currentRefreshToken == token
            {
                state.grants[grantID]?.isRevoked = true
            }
            if let token = tokens.accessToken?.revealedValue { state.accessTokens[token] = nil }
        }
    }

    /// Revokes every grant, as an administrator or a password change would.
    public func revokeAllGrants() throws {
        try mutate { state in
            for key in state.grants.keys { state.grants[key]?.isRevoked = true }
            state.accessTokens.removeAll()
        }
    }

    /// Whether a resource server would accept `token` now.
    /// - Parameter token: A bearer token.
    /// - Returns: `true` when the token was issued, is not expired and its grant is not revoked.
    public func accepts(_ token: AccessToken) throws -> Bool {
        let now = dateSource.now.timeIntervalSince1970
        return try mutate { state in (state.accessTokens[token.revealedValue]).map { $0 > now } ?? false }
    }

    /// Whether the issuer issued `token`, whether or not it has expired since.
    /// - Parameter token: An access token.
    /// - Returns: `true` when the token is one of the issuer's.
    public func issued(_ token: AccessToken) throws -> Bool {
        try mutate { state in state.accessTokens[token.revealedValue] != nil }
    }

    /// How many refresh tokens the issuer would still accept: one for each grant that is not revoked.
    /// - Returns: The number of live refresh tokens.
    public func liveRefreshTokens() throws -> Int {
        try mutate { state in state.grants.values.count { !$0.isRevoked } }
    }

    /// What the issuer did so far.
    public func counters() throws -> Counters { try mutate { $0.counters } }

    // MARK: Faults

    /// Makes the next refreshes fail with `errors`, one each, before anything else happens.
    /// - Parameter errors: The failures, in order.
    public func failNextRefreshes(with errors: [RefreshError]) {
        faults.withLock { $0.append(contentsOf: errors) }
    }

    /// Holds every refresh until ``releaseRefreshes()``.
    public func holdRefreshes() {
        gate.withLock { gate in if gate == nil { gate = SharedFlight<Void>() } }
    }

    /// Lets held refreshes go on.
    public func releaseRefreshes() {
        let held = gate.withLock { gate in
            defer { gate = nil }
            return gate
        }
        held?.resolve(.success(()))
    }

    // MARK: State

    private func issueAccessToken(refreshToken: String, _ state: inout State) -> TokenResponse {
        let accessToken = Self.mint("at", &state)
        state.accessTokens[accessToken] =
            dateSource.now.addingTimeInterval(Double(lifetime.components.seconds))
            .timeIntervalSince1970
        return TokenResponse(
            accessToken: AccessToken(accessToken),
            refreshToken: RefreshToken(refreshToken),
            tokenType: "Bearer",
            expiresIn: lifetime
        )
    }

    private static func mint(_ prefix: String, _ state: inout State) -> String {
        state.serial += 1
        var random = SystemRandomNumberGenerator()
        let suffix = (0..<4).map { _ in String(random.next() as UInt64, radix: 36) }.joined()
        return "\(prefix)_\(state.serial)_\(suffix)"
    }

    private func mutate<T>(_ body: (inout State) throws -> T) throws -> T {
        guard let stateFile else { return try memory.withLock(body) }
        return try Self.withFileLock(stateFile) { data in
            var state = data.isEmpty ? State() : try JSONDecoder().decode(State.self, from: data)
            let result = try body(&state)
            return (result, try JSONEncoder().encode(state))
        }
    }

    /// Reads, changes and rewrites a file under an exclusive `flock`.
    private static func withFileLock<T>(_ url: URL, _ body: (Data) throws -> (T, Data)) throws -> T {
        let fd = open(url.path, O_RDWR | O_CREAT, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else { throw CocoaError(.fileLocking) }
        defer { flock(fd, LOCK_UN) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
        try handle.seek(toOffset: 0)
        let data = try handle.readToEnd() ?? Data()
        let (result, updated) = try body(data)
        try handle.seek(toOffset: 0)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: updated)
        try handle.synchronize()
        return result
    }
}
