/// An OAuth 2.0 error code (RFC 6749 §5.2, §4.1.2.1; RFC 8628 §3.5; RFC 7009 §2.2.1), kept open so that codes
/// Tether does not know are preserved.
public struct OAuthErrorCode: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The code as the provider sent it.
    public let rawValue: String

    /// Wraps a code.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// Wraps a literal code.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The code.
    public var description: String { rawValue }

    /// Decodes the code.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the code.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// `invalid_request`.
    public static let invalidRequest: OAuthErrorCode = "invalid_request"
    /// `invalid_client`.
    public static let invalidClient: OAuthErrorCode = "invalid_client"
    /// `invalid_grant`: the code or refresh token is invalid, expired, revoked or reused.
    public static let invalidGrant: OAuthErrorCode = "invalid_grant"
    /// `unauthorized_client`.
    public static let unauthorizedClient: OAuthErrorCode = "unauthorized_client"
    /// `unsupported_grant_type`.
    public static let unsupportedGrantType: OAuthErrorCode = "unsupported_grant_type"
    /// `invalid_scope`.
    public static let invalidScope: OAuthErrorCode = "invalid_scope"
    /// `access_denied`.
    public static let accessDenied: OAuthErrorCode = "access_denied"
    /// `unsupported_response_type`.
    public static let unsupportedResponseType: OAuthErrorCode = "unsupported_response_type"
    /// `server_error`.
    public static let serverError: OAuthErrorCode = "server_error"
    /// `temporarily_unavailable`.
    public static let temporarilyUnavailable: OAuthErrorCode = "temporarily_unavailable"
    /// `interaction_required` (OIDC; Microsoft at the token endpoint).
    public static let interactionRequired: OAuthErrorCode = "interaction_required"
    /// `consent_required` (OIDC).
    public static let consentRequired: OAuthErrorCode = "consent_required"
    /// `login_required` (OIDC).
    public static let loginRequired: OAuthErrorCode = "login_required"
    /// `authorization_pending` (RFC 8628).
    public static let authorizationPending: OAuthErrorCode = "authorization_pending"
    /// `slow_down` (RFC 8628).
    public static let slowDown: OAuthErrorCode = "slow_down"
    /// `expired_token` (RFC 8628).
    public static let expiredToken: OAuthErrorCode = "expired_token"
    /// `authorization_declined` (Microsoft's `access_denied` in the device flow).
    public static let authorizationDeclined: OAuthErrorCode = "authorization_declined"
    /// `invalid_token` (RFC 6750; Google's revocation endpoint).
    public static let invalidToken: OAuthErrorCode = "invalid_token"
    /// `unsupported_token_type` (RFC 7009).
    public static let unsupportedTokenType: OAuthErrorCode = "unsupported_token_type"
}
