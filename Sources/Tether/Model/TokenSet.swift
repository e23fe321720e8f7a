public import Foundation

/// The tokens of one connection, with an expiry anchored at the moment the response arrived.
///
/// `expires_in` (RFC 6749 §5.1) is relative, so Tether turns it into an absolute ``expiresAt`` as soon as the
/// token response is received and persists that instant; it never re-derives the expiry from a later clock
/// reading. A response without `expires_in` gives a token set whose ``expiresAt`` is `nil`: the provider did not
/// say how long the token lives, and a ``Session`` keeps using it until a resource server rejects it (see
/// ``Session/forceRefresh()``).
public struct TokenSet: Sendable, Hashable, Codable {
    /// The access token; `nil` when a record holds only a refresh token (it is then refreshed before use).
    public var accessToken: AccessToken?
    /// The refresh token, if the provider issued one and it is in hand. `nil` as well when the store keeps it locked
    /// behind the user's presence: then ``lockedRefreshToken`` names it (see ``hasRefreshToken``).
    public var refreshToken: RefreshToken?
    /// The fingerprint of a refresh token that the store keeps locked behind the user's presence (Face ID, Touch ID
    /// or the passcode), set instead of ``refreshToken``; a ``Session`` asks the store to unlock it only when it
    /// refreshes. `nil` when the refresh token is in hand or there is none.
    public package(set) var lockedRefreshToken: RefreshTokenFingerprint?
    /// The OpenID Connect ID token, if any.
    public var idToken: IDToken?
    /// The token type, as the provider spelled it (`Bearer` in practice).
    public var tokenType: String
    /// The scopes granted, or `nil` when the provider did not list them (RFC 6749 §5.1: then they equal the
    /// requested scopes).
    public var scopes: [String]?
    /// When the token response was received — or, for an answer to a refresh retried after an attempt that got no
    /// answer, when that attempt was sent: a provider may answer the retry with the tokens it issued then (a grace
    /// replay), and ``expiresAt`` must not be later than the provider's.
    public var receivedAt: Date
    /// When the access token expires, or `nil` when the provider did not say.
    public var expiresAt: Date?
    /// When the refresh token itself ends, as the provider said (`refresh_token_expires_in`, sent by GitHub Apps and
    /// by Google for time-limited access), anchored at the moment the response arrived; `nil` when it did not say.
    /// A refresh answer without a new refresh token keeps the old token and this, its old end. Records written
    /// before Tether kept it decode with `nil`.
    public var refreshTokenExpiresAt: Date?
    /// When the current refresh token was first received; `nil` in records written before Tether kept it (then
    /// ``receivedAt`` stands in). A refresh that returns no new refresh token keeps it.
    public var refreshTokenIssuedAt: Date?

    /// Creates a token set from values already anchored in time.
    /// - Parameters:
    ///   - accessToken: The access token.
    ///   - refreshToken: The refresh token.
    ///   - idToken: The ID token.
    ///   - tokenType: The token type; `Bearer` by default.
    ///   - scopes: The granted scopes, if listed.
    ///   - receivedAt: When the response arrived.
    ///   - expiresAt: When the access token expires, if known.
    public init(
        accessToken: AccessToken?,
        refreshToken: RefreshToken? = nil,
        idToken: IDToken? = nil,
        tokenType: String = "Bearer",
        scopes: [String]? = nil,
        receivedAt: Date,
        expiresAt: Date?
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.tokenType = tokenType
        self.scopes = scopes
        self.receivedAt = receivedAt
        self.expiresAt = expiresAt
    }

    /// Anchors a token response at the moment it was received.
    /// - Parameters:
    ///   - response: The token endpoint's answer.
    ///   - receivedAt: When the response arrived, read from the injected wall clock.
    public init(_ response: TokenResponse, receivedAt: Date) {
        self.init(
            accessToken: response.accessToken,
            refreshToken: response.refreshToken,
            idToken: response.idToken,
            tokenType: response.tokenType,
            scopes: response.scopes,
            receivedAt: receivedAt,
            expiresAt: response.expiresIn.map { receivedAt.addingTimeInterval(max(0, $0.timeInterval)) }
        )
        if response.refreshToken != nil {
            refreshTokenIssuedAt = receivedAt
            refreshTokenExpiresAt = response.refreshTokenExpiresIn.map {
                receivedAt.addingTimeInterval(max(0, $0.timeInterval))
            }
        }
    }

    /// When the grant was last used: the last token response, that is the last refresh (or the sign-in). The
    /// inactivity rules of Microsoft and Google count the use of the refresh token, and a refresh is the only use
    /// of it; reading the access token is not. See ``GrantLifetime``.
    public var lastUsed: Date { receivedAt }

    /// How long the access token was issued for, or `nil` when unknown.
    public var lifetime: Duration? {
        guard let expiresAt else { return nil }
        return .seconds(max(0, expiresAt.timeIntervalSince(receivedAt)))
    }

    /// Applies a refresh response (RFC 6749 §6): new values replace old ones, and a response without a refresh
    /// token or ID token keeps the previous one. A kept refresh token keeps its own end
    /// (``refreshTokenExpiresAt``) and issue time: a refresh answer that does not renew the refresh token does
    /// not move its end, whatever `refresh_token_expires_in` it carries. The same refresh token sent back keeps its
    /// issue time, and takes the end the provider gives now, if any. A kept refresh token of a record that has no
    /// issue time (written before it was kept) counts as issued when that record was received.
    /// - Parameters:
    ///   - response: The refresh response.
    ///   - receivedAt: When it arrived.
    /// - Returns: The merged token set.
    public func applying(_ response: TokenResponse, receivedAt: Date) -> TokenSet {
        var next = TokenSet(response, receivedAt: receivedAt)
        if next.refreshToken == nil {
            next.refreshToken = refreshToken
            next.lockedRefreshToken = lockedRefreshToken
            next.refreshTokenExpiresAt = refreshTokenExpiresAt
            // A record written before the issue time was kept: the token is at least as old as that record.
            next.refreshTokenIssuedAt = refreshTokenIssuedAt ?? self.receivedAt
        } else if next.refreshTokenFingerprint == refreshTokenFingerprint {
            next.refreshTokenIssuedAt = refreshTokenIssuedAt ?? self.receivedAt
            next.refreshTokenExpiresAt = next.refreshTokenExpiresAt ?? refreshTokenExpiresAt
        }
        if next.idToken == nil { next.idToken = idToken }
        if next.scopes == nil { next.scopes = scopes }
        return next
    }

    /// Whether the refresh token differs from the one in `other` (the provider rotated it).
    public func rotatesRefreshToken(of other: TokenSet) -> Bool {
        refreshToken != nil && refreshTokenFingerprint != other.refreshTokenFingerprint
    }

    /// Whether there is a refresh token, in hand or locked in the store.
    public var hasRefreshToken: Bool { refreshToken != nil || lockedRefreshToken != nil }

    /// The fingerprint of the refresh token, in hand or locked; `nil` when there is none. Two token sets hold the
    /// same refresh token when their fingerprints are equal.
    public var refreshTokenFingerprint: RefreshTokenFingerprint? {
        refreshToken.map(RefreshTokenFingerprint.init(of:)) ?? lockedRefreshToken
    }

    /// The same tokens with the refresh token replaced by its fingerprint, for a store that keeps it locked.
    package func lockingRefreshToken() -> TokenSet {
        var locked = self
        if let refreshToken {
            locked.lockedRefreshToken = RefreshTokenFingerprint(of: refreshToken)
            locked.refreshToken = nil
        }
        return locked
    }

    /// The same tokens with a locked refresh token replaced by the token itself.
    /// - Parameter token: The unlocked refresh token; its fingerprint must be ``lockedRefreshToken``.
    package func unlocking(with token: RefreshToken) -> TokenSet {
        var unlocked = self
        unlocked.refreshToken = token
        unlocked.lockedRefreshToken = nil
        return unlocked
    }
}

extension TokenSet {
    /// Equal when every value is, the refresh token compared by fingerprint: a token set whose refresh token is
    /// locked in the store equals the same tokens with the refresh token in hand.
    public static func == (lhs: TokenSet, rhs: TokenSet) -> Bool {
        lhs.accessToken == rhs.accessToken && lhs.refreshTokenFingerprint == rhs.refreshTokenFingerprint
            && lhs.idToken == rhs.idToken && lhs.tokenType == rhs.tokenType && lhs.scopes == rhs.scopes
            && lhs.receivedAt == rhs.receivedAt && lhs.expiresAt == rhs.expiresAt
            && lhs.refreshTokenExpiresAt == rhs.refreshTokenExpiresAt
            && lhs.refreshTokenIssuedAt == rhs.refreshTokenIssuedAt
    }

    /// Hashes what ``==`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(accessToken)
        hasher.combine(refreshTokenFingerprint)
        hasher.combine(idToken)
        hasher.combine(tokenType)
        hasher.combine(scopes)
        hasher.combine(receivedAt)
        hasher.combine(expiresAt)
        hasher.combine(refreshTokenExpiresAt)
        hasher.combine(refreshTokenIssuedAt)
    }
}

/// A token endpoint's successful answer (RFC 6749 §5.1), before it is anchored in time.
///
/// A ``TokenRefresher`` returns one; the ``Session`` stamps it with the moment it arrived.
public struct TokenResponse: Sendable, Hashable {
    /// The access token.
    public var accessToken: AccessToken
    /// The refresh token; `nil` keeps the previous one.
    public var refreshToken: RefreshToken?
    /// The ID token, if any.
    public var idToken: IDToken?
    /// The token type; `Bearer` in practice.
    public var tokenType: String
    /// The granted scopes, if listed.
    public var scopes: [String]?
    /// The lifetime the provider gave (`expires_in`), or `nil` when it gave none.
    public var expiresIn: Duration?
    /// The lifetime of the refresh token the provider gave (`refresh_token_expires_in`: GitHub Apps' user tokens,
    /// Google's time-limited access), or `nil` when it gave none or gave no refresh token.
    public var refreshTokenExpiresIn: Duration?

    /// Creates a token response.
    /// - Parameters:
    ///   - accessToken: The access token.
    ///   - refreshToken: The refresh token, if the provider sent one.
    ///   - idToken: The ID token, if any.
    ///   - tokenType: The token type; `Bearer` by default.
    ///   - scopes: The granted scopes, if listed.
    ///   - expiresIn: The lifetime the provider gave, if any.
    public init(
        accessToken: AccessToken,
        refreshToken: RefreshToken? = nil,
        idToken: IDToken? = nil,
        tokenType: String = "Bearer",
        scopes: [String]? = nil,
        expiresIn: Duration?
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.tokenType = tokenType
        self.scopes = scopes
        self.expiresIn = expiresIn
    }
}
