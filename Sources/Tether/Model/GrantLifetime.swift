public import Foundation

/// A provider's rules for how long a grant (its refresh token) lives, beyond what a token response says.
///
/// Two kinds of rule end a grant on a schedule:
/// - **Inactivity**: the grant ends when it has not been used for ``inactivityLimit`` (Microsoft: 90 days; Google:
///   6 months). What counts as use is a refresh: the provider sees the refresh token only then. A refresh pushes
///   the deadline back, so a grant kept in use (or kept alive, see ``Session/keepAlive(margin:)``) never meets it.
/// - **Absolute**: the refresh token ends ``maximumAge`` after it was issued (Google: 7 days for an app whose
///   consent screen is in Testing), or when the provider's `refresh_token_expires_in` says (GitHub Apps: 6 months).
///   Nothing but a new sign-in extends it; a refresh that returns no new refresh token does not.
///
/// The presets of `TetherOAuth` (`GrantLifetime.microsoft`, `.google`, `.googleTesting`, `.gitHub`) cite the
/// provider's documentation for each number. A ``Session`` reads its rules from
/// ``Session/Configuration/grantLifetime`` and reports the result as ``Session/grantEnd``.
public struct GrantLifetime: Sendable, Hashable {
    /// Who sets the rules, as messages name it: `Microsoft`, `Google`.
    public var provider: String
    /// The grant ends when unused this long; `nil` when no such rule is known.
    public var inactivityLimit: Duration?
    /// The refresh token ends this long after it was issued, when the provider's answer does not say
    /// (`refresh_token_expires_in` takes precedence); `nil` when no such rule is known.
    public var maximumAge: Duration?
    /// Why the refresh token has an absolute end, for messages: "GitHub user tokens last 6 months". `nil` gives a
    /// sentence built from ``provider`` and the lifetime.
    public var absoluteNote: String?

    /// Creates rules.
    /// - Parameters:
    ///   - provider: Who sets the rules, for messages.
    ///   - inactivityLimit: How long the grant may stay unused.
    ///   - maximumAge: How long a refresh token lives after it was issued, when the provider does not say.
    ///   - absoluteNote: Why the refresh token has an absolute end, in a few words.
    public init(
        provider: String,
        inactivityLimit: Duration? = nil,
        maximumAge: Duration? = nil,
        absoluteNote: String? = nil
    ) {
        self.provider = provider
        self.inactivityLimit = inactivityLimit
        self.maximumAge = maximumAge
        self.absoluteNote = absoluteNote
    }

    /// No rule beyond what the provider's answers say (`refresh_token_expires_in`).
    /// - Parameter provider: Who issues the tokens, for messages.
    /// - Returns: Rules without an inactivity limit or a maximum age.
    public static func answersOnly(provider: String) -> GrantLifetime { GrantLifetime(provider: provider) }

    /// When the grant of `tokens` ends and why, or `nil` when nothing says it ends (no refresh token, or no rule
    /// and no `refresh_token_expires_in`). When both kinds apply, the earlier end is reported.
    /// - Parameters:
    ///   - tokens: The stored tokens.
    ///   - rules: The provider's rules, or `nil` for only what the provider's answers say.
    ///   - now: The wall time.
    ///   - threshold: How close an end counts as ``GrantEnd/isSoon``.
    /// - Returns: The end, or `nil`.
    public static func end(
        of tokens: TokenSet,
        rules: GrantLifetime?,
        now: Date,
        threshold: Duration
    ) -> GrantEnd? {
        guard tokens.hasRefreshToken else { return nil }
        let issuedAt = tokens.refreshTokenIssuedAt ?? tokens.receivedAt
        let provider = rules?.provider ?? "The provider"
        var ends: [GrantEnd] = []
        if let stated = tokens.refreshTokenExpiresAt {
            let note =
                rules?.absoluteNote
                ?? "\(provider) gave the refresh token \(Self.days(stated.timeIntervalSince(issuedAt))) days"
            ends.append(GrantEnd(kind: .absolute, date: stated, lastUsed: tokens.lastUsed, note: note))
        } else if let maximumAge = rules?.maximumAge {
            let note =
                rules?.absoluteNote
                ?? "\(provider) ends refresh tokens \(Self.days(maximumAge.timeInterval)) days after sign-in"
            let date = issuedAt.addingTimeInterval(maximumAge.timeInterval)
            ends.append(GrantEnd(kind: .absolute, date: date, lastUsed: tokens.lastUsed, note: note))
        }
        if let limit = rules?.inactivityLimit {
            let date = tokens.lastUsed.addingTimeInterval(limit.timeInterval)
            let idle = Self.days(max(0, now.timeIntervalSince(tokens.lastUsed)), rounding: .down)
            let note =
                "unused for \(idle) \(idle == 1 ? "day" : "days"): \(provider) ends it after "
                + "\(Self.days(limit.timeInterval))"
            ends.append(GrantEnd(kind: .inactivity, date: date, lastUsed: tokens.lastUsed, note: note))
        }
        guard var first = ends.min(by: { $0.date < $1.date }) else { return nil }
        first.isSoon = first.date.timeIntervalSince(now) <= threshold.timeInterval
        first.absoluteEnd = ends.first { $0.kind == .absolute }?.date
        return first
    }

    /// Whole days in `seconds`, rounded to the nearest by default.
    static func days(_ seconds: TimeInterval, rounding: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int {
        let days = (seconds / 86_400).rounded(rounding)
        return days.isFinite ? Int(max(-1e9, min(1e9, days))) : 0
    }
}
