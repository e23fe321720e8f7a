import Foundation
public import Tether

/// A failure of an OAuth 2.0 / OpenID Connect exchange: an error answer from the provider, or a response or
/// callback that breaks the protocol. It never contains a token, a code, a verifier or a secret.
///
/// ``classification`` tells a ``Tether/Session`` what to do: `transient` keeps the session and retries, `permanent`
/// ends it (sign in again), `configuration` means the client is set up wrongly. It is the session's own
/// ``Tether/RefreshError/Kind``, so the client and the session cannot disagree on what a failure means.
///
/// Match it like an enum: `catch let error as OAuthError where error == .stateMismatch`, or
/// `switch error { case .transport: … }` (see "Errors" in the Tether documentation). The provider's own error code
/// is ``errorCode``.
public struct OAuthError: TetherError, RefreshErrorConvertible {
    enum Code: Sendable, Hashable {
        /// The provider answered with an OAuth error body.
        case provider
        case stateMismatch
        case issuerMismatch
        case missingIssuer
        case missingCode
        case callbackMismatch
        case malformedResponse
        case unexpectedContentType
        case unexpectedStatus
        case redirected
        case missingAccessToken
        case invalidExpiresIn
        case invalidVerificationURI
        case unsupportedTokenType
        case idTokenRejected
        case missingIDToken
        case transport
        case deviceCodeExpired
        case accessDenied
        case discoveryFailed
    }

    let code: Code

    /// The code, the message and the cause.
    public var details: TetherErrorDetails
    /// The provider's error code, when it sent one (RFC 6749 `error`, Firebase `error.message`).
    public let errorCode: OAuthErrorCode?
    /// The provider's `error_description`, if any. Providers do not put tokens here, but treat it as text for
    /// people, never as something to branch on.
    public let errorDescription: String?
    /// The provider's `error_uri`, if any.
    public let errorURI: String?
    /// The HTTP status of the response, if there was one.
    public let httpStatus: Int?
    /// A provider-specific detail: Microsoft's `AADSTS` number, Google's `error_subtype`.
    public let providerDetail: String?
    /// How long the provider asked to wait (`Retry-After`, `slow_down`), if it did.
    public let retryAfter: Duration?
    /// What a session should do about it.
    public let classification: RefreshError.Kind

    init(
        _ code: Code,
        _ message: String,
        classification: RefreshError.Kind,
        errorCode: OAuthErrorCode? = nil,
        errorDescription: String? = nil,
        errorURI: String? = nil,
        httpStatus: Int? = nil,
        providerDetail: String? = nil,
        retryAfter: Duration? = nil,
        cause: (any Error)? = nil
    ) {
        self.code = code
        details = TetherErrorDetails("\(code)", message, cause: cause)
        self.classification = classification
        self.errorCode = errorCode
        self.errorDescription = errorDescription
        self.errorURI = errorURI
        self.httpStatus = httpStatus
        self.providerDetail = providerDetail
        self.retryAfter = retryAfter
    }

    /// The provider answered with an OAuth error; see ``errorCode``.
    public static let provider = OAuthError(.provider, "The provider returned an error", classification: .transient)
    /// The callback's `state` is not the one sent (a CSRF or a mixed-up response); the code was not redeemed.
    public static let stateMismatch = OAuthError(
        .stateMismatch,
        "The authorization response's state does not match the request",
        classification: .configuration
    )
    /// The callback's `iss` is not the provider the request went to (RFC 9207 mix-up defence).
    public static let issuerMismatch = OAuthError(
        .issuerMismatch,
        "The authorization response comes from another issuer",
        classification: .configuration
    )
    /// The provider promises `iss` in authorization responses (RFC 9207) but the callback has none.
    public static let missingIssuer = OAuthError(
        .missingIssuer,
        "The authorization response has no iss parameter",
        classification: .configuration
    )
    /// The callback has neither `code` nor `error`.
    public static let missingCode = OAuthError(
        .missingCode,
        "The authorization response has no code",
        classification: .configuration
    )
    /// The callback URL is not for this request's redirect URI.
    public static let callbackMismatch = OAuthError(
        .callbackMismatch,
        "The callback does not match the redirect URI",
        classification: .configuration
    )
    /// The response body is not the JSON the protocol requires.
    public static let malformedResponse = OAuthError(
        .malformedResponse,
        "The provider's response is malformed",
        classification: .transient
    )
    /// The response is not JSON (an HTML error page from a proxy or a login wall).
    public static let unexpectedContentType = OAuthError(
        .unexpectedContentType,
        "The provider answered with something other than JSON",
        classification: .transient
    )
    /// The response has a status the protocol does not allow here.
    public static let unexpectedStatus = OAuthError(
        .unexpectedStatus,
        "The provider answered with an unexpected status",
        classification: .transient
    )
    /// The token endpoint answered with a redirect, which is never followed (it would replay a secret).
    public static let redirected = OAuthError(
        .redirected,
        "The endpoint answered with a redirect, which Tether does not follow",
        classification: .configuration
    )
    /// A token response without `access_token`.
    public static let missingAccessToken = OAuthError(
        .missingAccessToken,
        "The token response has no access_token",
        classification: .transient
    )
    /// `expires_in` is negative, fractional, not a number (a string of decimal digits counts as one), or too large
    /// to be a count of seconds: the provider's answer breaks RFC 6749 §5.1 (or RFC 8628 §3.2), which trying again
    /// does not mend, so it is a configuration problem, not a transient one. An answer to a refresh keeps its tokens
    /// instead (their lifetime unknown or cut), since the provider may have rotated the refresh token.
    public static let invalidExpiresIn = OAuthError(
        .invalidExpiresIn,
        "The provider's answer has an invalid expires_in",
        classification: .configuration
    )
    /// A device authorization's `verification_uri` is not an `https` URL (nor `http` to a loopback host): the
    /// person would be sent to a page anyone on the path could replace, or to no web page at all (RFC 8628 §5.4).
    public static let invalidVerificationURI = OAuthError(
        .invalidVerificationURI,
        "The device authorization's verification_uri is not an https URL",
        classification: .configuration
    )
    /// `token_type` is not `Bearer` (or another type the client understands, RFC 6749 §7.1).
    public static let unsupportedTokenType = OAuthError(
        .unsupportedTokenType,
        "The token response has a token type Tether does not understand",
        classification: .configuration
    )
    /// The ID token failed verification; the cause is an ``IDTokenError``.
    public static let idTokenRejected = OAuthError(
        .idTokenRejected,
        "The ID token was rejected",
        classification: .configuration
    )
    /// An OpenID Connect code exchange returned no ID token.
    public static let missingIDToken = OAuthError(
        .missingIDToken,
        "The token response has no id_token",
        classification: .configuration
    )
    /// No HTTP response arrived; the cause is a ``Tether/TransportError``.
    public static let transport = OAuthError(
        .transport,
        "The provider could not be reached",
        classification: .transient
    )
    /// The device code expired before the user approved (RFC 8628 `expired_token`).
    public static let deviceCodeExpired = OAuthError(
        .deviceCodeExpired,
        "The device code expired before it was approved",
        classification: .permanent(.sessionExpired)
    )
    /// The user refused (`access_denied`, Microsoft `authorization_declined`).
    public static let accessDenied = OAuthError(
        .accessDenied,
        "The user denied access",
        classification: .permanent(SignInReason(code: "access_denied", message: "The user denied access"))
    )
    /// Discovery failed: the metadata could not be fetched, was malformed, or named another issuer.
    public static let discoveryFailed = OAuthError(
        .discoveryFailed,
        "The provider's metadata could not be used",
        classification: .configuration
    )

    /// The same kind of error with the details of one response.
    func with(
        message: String? = nil,
        classification: RefreshError.Kind? = nil,
        httpStatus: Int? = nil,
        retryAfter: Duration? = nil,
        cause: (any Error)? = nil
    ) -> OAuthError {
        OAuthError(
            code,
            message ?? self.message,
            classification: classification ?? self.classification,
            errorCode: errorCode,
            errorDescription: errorDescription,
            errorURI: errorURI,
            httpStatus: httpStatus ?? self.httpStatus,
            providerDetail: providerDetail,
            retryAfter: retryAfter ?? self.retryAfter,
            cause: cause ?? self.cause
        )
    }

    /// Whether the user must sign in again.
    public var requiresReauthentication: Bool {
        if case .permanent = classification { return true }
        return false
    }

    /// The error as a ``Tether/RefreshError`` for a session.
    public var refreshError: RefreshError {
        switch classification {
        case .transient: .transient(message, retryAfter: retryAfter, isOutcomeUnknown: isOutcomeUnknown)
        case .permanent(let reason): .permanent(reason, message)
        case .configuration: .configuration(message)
        }
    }

    /// Whether the provider may have processed the request although no usable answer came back: the connection was
    /// lost or timed out after the request went out, the server failed (`5xx`), or a `2xx` answer could not be
    /// used. Not when the server could not be reached, or refused the request unprocessed (`408`, `429`, or an OAuth
    /// error such as `temporarily_unavailable` with a `4xx` status).
    var isOutcomeUnknown: Bool {
        guard classification == .transient else { return false }
        if code == .transport {
            guard let transport = cause as? TransportError else { return true }
            return transport != .cannotConnect
        }
        guard let status = httpStatus else { return true }
        return !(400..<500).contains(status)
    }

    /// Errors are equal when their codes are, whatever their messages and causes; two ``provider`` errors are also
    /// compared on ``errorCode`` when both have one.
    public static func == (lhs: OAuthError, rhs: OAuthError) -> Bool {
        lhs.code == rhs.code
            && (lhs.code != .provider || rhs.errorCode == nil || lhs.errorCode == nil || lhs.errorCode == rhs.errorCode)
    }

    /// Lets `switch` and `catch` match on the code: `case .stateMismatch:`.
    public static func ~= (lhs: OAuthError, rhs: any Error) -> Bool {
        guard let other = rhs as? OAuthError else { return false }
        return lhs == other
    }
}
