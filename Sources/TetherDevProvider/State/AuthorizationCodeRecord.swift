import Foundation

/// An authorization code, bound to client, redirect URI and PKCE challenge (RFC 6749 §4.1.2).
struct AuthorizationCodeRecord: Sendable {
    let clientID: String
    let redirectURI: String
    let codeChallenge: String?
    let username: String
    let scopes: [String]
    let nonce: String?
    let authTime: Date
    let expiresAt: Date
    var isUsed = false
    /// The grant created when the code was exchanged; revoked if the code is replayed.
    var grantID: String?
}
