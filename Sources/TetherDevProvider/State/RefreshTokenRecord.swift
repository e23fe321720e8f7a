import Foundation

/// A refresh token and whether it is still usable.
struct RefreshTokenRecord: Sendable {
    enum Status: Sendable {
        case active
        /// Rotated away; `replay` is what the rotation returned, served again within the grace period.
        case spent(at: Date, replay: TokenIssue)
    }

    let grantID: String
    let clientID: String
    let issuedAt: Date
    var status: Status
    /// When the token was last presented in a successful refresh; `nil` before its first use.
    var lastUsedAt: Date? = nil

    /// When the token was last used, or issued if it has not been used yet: what an inactivity limit counts from.
    var lastActivity: Date { lastUsedAt ?? issuedAt }
}
