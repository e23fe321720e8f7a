import Foundation

/// An issued access token.
struct AccessTokenRecord: Sendable {
    let grantID: String
    let clientID: String
    let username: String
    let scopes: [String]
    var expiresAt: Date
}
