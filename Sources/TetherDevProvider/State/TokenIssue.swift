import Foundation

/// The tokens one token-endpoint success returned, before dialect-specific rendering.
struct TokenIssue: Sendable {
    let accessToken: String
    let expiresIn: Int
    let refreshToken: String?
    let idToken: String?
    let scopes: [String]
    let username: String
    let isRefresh: Bool
}
