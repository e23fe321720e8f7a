import Foundation

/// One authorization: a user's consent for a client, shared by the refresh-token family and the
/// access tokens issued from it. Revoking the grant kills all of them.
struct Grant: Sendable {
    let id: String
    let clientID: String
    let username: String
    let scopes: [String]
    let nonce: String?
    let authTime: Date
    var isRevoked = false
}
