/// Why a protocol request failed, before it is rendered in a dialect's error shape.
enum OAuthProblem: Error, Sendable, Equatable {
    case invalidRequest(String)
    case invalidClient(String, usedBasicAuthentication: Bool)
    case unauthorizedClient(String)
    case unsupportedGrantType(String)
    case invalidScope(String)
    case invalidCode(String)
    case codeReused
    case pkceMismatch
    case refreshTokenUnknown
    case refreshTokenRevoked
    case refreshTokenReused
    case refreshTokenExpired
    case userDisabled
    case interactionRequired
    /// A refresh refused for one of the reasons real providers give.
    /// `aadsts` is Microsoft's number, `message` its description (see `DevProvider.RefreshRefusal`).
    case refused(aadsts: Int, message: String)
    case authorizationPending
    case slowDown
    case expiredToken
    case accessDenied
    case deviceCodeUnknown

    /// The RFC 6749 §5.2 / RFC 8628 §3.5 `error` code.
    var code: String {
        switch self {
        case .invalidRequest: "invalid_request"
        case .invalidClient: "invalid_client"
        case .unauthorizedClient: "unauthorized_client"
        case .unsupportedGrantType: "unsupported_grant_type"
        case .invalidScope: "invalid_scope"
        case .invalidCode, .codeReused, .pkceMismatch, .refreshTokenUnknown, .refreshTokenRevoked,
            .refreshTokenReused, .refreshTokenExpired, .userDisabled, .interactionRequired, .deviceCodeUnknown,
            .refused:
            "invalid_grant"
        case .authorizationPending: "authorization_pending"
        case .slowDown: "slow_down"
        case .expiredToken: "expired_token"
        case .accessDenied: "access_denied"
        }
    }

    /// A human-readable `error_description`.
    var description: String {
        switch self {
        case .invalidRequest(let message), .invalidClient(let message, _), .unauthorizedClient(let message),
            .unsupportedGrantType(let message), .invalidScope(let message), .invalidCode(let message):
            message
        case .codeReused: "The authorization code has already been used."
        case .pkceMismatch: "The code_verifier does not match the code_challenge."
        case .refreshTokenUnknown: "The refresh token is invalid."
        case .refreshTokenRevoked: "The refresh token has been revoked."
        case .refreshTokenReused: "The refresh token was already used; the grant has been revoked."
        case .refreshTokenExpired: "The refresh token has expired."
        case .userDisabled: "The user account is disabled."
        case .interactionRequired: "The user must sign in again."
        case .refused(_, let message): message
        case .authorizationPending: "The user has not yet completed the authorization."
        case .slowDown: "Polling too fast; the interval has been increased by 5 seconds."
        case .expiredToken: "The device code has expired."
        case .accessDenied: "The user denied the authorization request."
        case .deviceCodeUnknown: "The device code is invalid."
        }
    }

    /// Whether the problem concerns a refresh token being unusable.
    var isRefreshTokenProblem: Bool {
        switch self {
        case .refreshTokenUnknown, .refreshTokenRevoked, .refreshTokenReused, .refreshTokenExpired, .refused: true
        default: false
        }
    }
}
