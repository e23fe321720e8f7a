import Foundation

/// Server-side state behind the login form's hidden `request_id`; the form never carries
/// client or redirect data itself.
struct PendingAuthorization: Sendable {
    enum Kind: Sendable {
        case authorizationCode(
            redirectURI: String,
            state: String?,
            nonce: String?,
            codeChallenge: String?
        )
        case device(deviceCode: String)
    }

    let clientID: String
    let scopes: [String]
    let loginHint: String?
    let kind: Kind
    let expiresAt: Date
}
