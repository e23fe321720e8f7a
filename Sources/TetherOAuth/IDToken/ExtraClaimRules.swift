/// Checks beyond OpenID Connect Core §3.1.3.7 that some issuers require.
///
/// Combine them like any option set; ``firebase`` holds the rules of Firebase's backend verification.
public struct ExtraClaimRules: OptionSet, Sendable, Hashable {
    /// The bits of the set.
    public let rawValue: UInt32

    /// Creates a set from its bits.
    /// - Parameter rawValue: The bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `sub` must not be empty; otherwise ``TetherOAuth/IDTokenError/malformed``.
    public static let nonEmptySubject = ExtraClaimRules(rawValue: 1 << 0)

    /// `auth_time` must be present and not in the future (beyond the skew); otherwise
    /// ``TetherOAuth/IDTokenError/malformed`` (absent) or ``TetherOAuth/IDTokenError/notYetValid``.
    public static let authTimeInPast = ExtraClaimRules(rawValue: 1 << 1)

    /// The rules Firebase documents for verifying its ID tokens: ``nonEmptySubject`` and ``authTimeInPast``.
    public static let firebase: ExtraClaimRules = [.nonEmptySubject, .authTimeInPast]
}
