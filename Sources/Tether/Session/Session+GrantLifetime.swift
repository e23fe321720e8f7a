package import Foundation
import Logging

extension Session {
    /// When the stored grant ends and why, or `nil` when nothing says it ends, or nothing is stored.
    ///
    /// Derived, like ``status``, from the record, the clock and the session's rules
    /// (``Configuration/grantLifetime``): the provider's `refresh_token_expires_in`, a maximum age, and an
    /// inactivity limit counted from the last refresh (``TokenSet/lastUsed``). ``GrantEnd/isSoon`` says whether the
    /// end is within ``Configuration/endingSoonThreshold``: the "expires soon" a settings screen shows beside the
    /// status. It reflects the record as last read; call ``connection()`` or ``restore()`` first.
    public var grantEnd: GrantEnd? {
        guard let tokens = record?.tokens else { return nil }
        return GrantLifetime.end(
            of: tokens,
            rules: configuration.grantLifetime,
            now: dateSource.now,
            threshold: configuration.endingSoonThreshold
        )
    }

    /// Refreshes the grant when its inactivity deadline is within `margin`, so that a grant that only dies of
    /// disuse does not die; otherwise does nothing.
    ///
    /// Only an inactivity deadline (``GrantEnd/Kind/inactivity``) that comes before any absolute end is kept
    /// away: a refresh never extends an absolute lifetime (GitHub's `refresh_token_expires_in`, Google's 7 days
    /// for apps in Testing), so a grant with only such an end is never refreshed here. The refresh is the session's
    /// own: shared with every other caller in the process and, through the store's lease, with other processes;
    /// when another one refreshed meanwhile, its tokens are taken and nothing more is sent.
    /// - Parameter margin: How long before the deadline to refresh. Choose it longer than the time between two
    ///   runs (a daily timer: a few days).
    /// - Returns: Whether the grant was refreshed (by this call or by another caller meanwhile).
    /// - Throws: ``SessionError`` — `notConnected`, `needsSignIn` (the deadline has passed, or the provider refused
    ///   the refresh), `offline`, `storageUnavailable`, `misconfigured` — or `CancellationError`.
    @discardableResult
    public func keepAlive(margin: Duration) async throws -> Bool {
        try await loadIfNeeded()
        await retryUnsavedWrite()
        guard let record else { throw notConnectedError() }
        guard let end = grantEnd, Self.keepsAlive(end, margin: margin, now: dateSource.now) else {
            return false
        }
        logger.debug("Keeping the grant alive", metadata: ["grant.ends": "\(GrantEnd.day(end.date))"])
        let before = record.tokens.receivedAt
        let refreshed = try await refreshed(rejecting: record.tokens.accessToken, allowingUnexpired: false)
        return refreshed.tokens.receivedAt != before
    }

    /// Whether a keep-alive refreshes a grant ending at `end`: an inactivity deadline (before any absolute end)
    /// within `margin` of `now`.
    package static func keepsAlive(_ end: GrantEnd, margin: Duration, now: Date) -> Bool {
        end.kind == .inactivity && end.date.timeIntervalSince(now) <= margin.timeInterval
    }
}
