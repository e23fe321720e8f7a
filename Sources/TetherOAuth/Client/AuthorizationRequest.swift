public import Foundation
public import Tether

/// One authorization-code request (RFC 6749 §4.1.1 with PKCE, `state` and, for OpenID Connect, `nonce`), kept
/// until its callback arrives.
///
/// Its `description` shows only the endpoint: the state, nonce and verifier are secrets of this transaction.
public struct AuthorizationRequest: Sendable, CustomStringConvertible {
    /// The URL to open in the browser.
    public let url: URL
    /// The redirect URI the request carries; the callback must come back to it and the code exchange repeats it.
    public let redirectURI: URL
    /// The issuer the request went to, checked against the callback's `iss` (RFC 9207).
    public let issuer: String?
    /// The scopes requested.
    public let scopes: [String]
    let state: String
    let nonce: String?
    let codeVerifier: CodeVerifier

    /// Creates a request; ``OAuthClient`` makes them (random `state`, `nonce` and verifier), the fuzz targets make
    /// one with a known `state`.
    package init(
        url: URL,
        redirectURI: URL,
        issuer: String?,
        scopes: [String],
        state: String,
        nonce: String?,
        codeVerifier: CodeVerifier
    ) {
        self.url = url
        self.redirectURI = redirectURI
        self.issuer = issuer
        self.scopes = scopes
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
    }

    /// `AuthorizationRequest(https://provider/authorize)`, without the query.
    public var description: String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        return "AuthorizationRequest(\(components?.string ?? "?"))"
    }
}

/// What the authorization endpoint sent back through the redirect (RFC 6749 §4.1.2).
public struct AuthorizationCallback: Sendable {
    /// The authorization code.
    public let code: AuthorizationCode
    /// The `iss` parameter, if present (RFC 9207).
    public let issuer: String?
}

extension AuthorizationRequest {
    /// Checks a callback URL against this request and extracts the code.
    ///
    /// Order matters: the redirect target is checked first, then `state` (in constant time), then `iss`, then
    /// `error`, then `code` — so that an error response from another provider or another transaction is never
    /// taken for this one's (RFC 9207 §2.4).
    /// - Parameters:
    ///   - callbackURL: The URL the browser was redirected to.
    ///   - requiringIssuer: Whether a missing `iss` is an error (the provider advertises RFC 9207 support).
    /// - Returns: The code and issuer.
    /// - Throws: ``OAuthError`` — `callbackMismatch`, `stateMismatch`, `issuerMismatch`, `missingIssuer`, a
    ///   `provider` error carrying the callback's `error` (such as `access_denied`), or `missingCode`.
    public func callback(from callbackURL: URL, requiringIssuer: Bool = false) throws -> AuthorizationCallback {
        guard let components = URLComponents(url: callbackURL, resolvingAgainstBaseURL: false),
            let expected = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false),
            components.scheme?.lowercased() == expected.scheme?.lowercased(),
            components.host?.lowercased() == expected.host?.lowercased(),
            components.port == expected.port,
            components.path == expected.path
        else {
            throw OAuthError.callbackMismatch
        }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] where parameters[item.name] == nil {
            parameters[item.name] = item.value ?? ""
        }
        guard let returnedState = parameters["state"], IDTokenClaims.constantTimeEqual(returnedState, state) else {
            throw OAuthError.stateMismatch
        }
        let returnedIssuer = parameters["iss"]
        // A multi-tenant template issuer (Microsoft `{tenantid}`) is checked on the ID token instead.
        if let returnedIssuer, let issuer, !issuer.contains("{tenantid}"), returnedIssuer != issuer {
            throw OAuthError.issuerMismatch.with(
                message: "The authorization response comes from '\(UntrustedText.sanitized(returnedIssuer))', not "
                    + "'\(issuer)'"
            )
        }
        if returnedIssuer == nil, requiringIssuer {
            throw OAuthError.missingIssuer
        }
        if let error = parameters["error"] {
            if error == OAuthErrorCode.accessDenied.rawValue {
                throw OAuthError.accessDenied
            }
            let body = ProviderErrorBody(
                code: error,
                description: parameters["error_description"],
                uri: parameters["error_uri"],
                detail: nil
            )
            throw OAuthError(
                .provider,
                "The authorization failed: \(body.code)",
                classification: body.classification(.permanent),
                errorCode: body.code,
                errorDescription: body.description,
                errorURI: body.uri
            )
        }
        guard let code = parameters["code"], !code.isEmpty else { throw OAuthError.missingCode }
        return AuthorizationCallback(code: AuthorizationCode(code), issuer: returnedIssuer)
    }
}
