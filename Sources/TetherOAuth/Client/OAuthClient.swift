public import Foundation
import HTTPTypes
public import Logging
public import Tether

/// The OAuth 2.0 / OpenID Connect protocol client: builds authorization requests, exchanges codes, refreshes,
/// revokes, runs the device flow and reads userinfo. It knows the protocol and nothing about storage.
///
/// It conforms to ``Tether/TokenRefresher`` and ``Tether/TokenRevoker``, so a ``Tether/Session`` refreshes and
/// signs out through it:
///
/// ```swift
/// let client = try OAuthClient(configuration: .google(clientID: id, redirectURI: redirect), transport: transport)
/// let result = try await client.signIn(using: LoopbackPresenter())
/// let session = Session(id: "google", store: store, refresher: client, revoker: client)
/// try await session.signIn(account: result.account, tokens: result.tokens)
/// ```
///
/// Every failure is an ``OAuthError`` whose ``OAuthError/classification`` tells transient from permanent from
/// configuration problems. Secrets never reach its log lines or errors.
public struct OAuthClient: TokenRefresher, TokenRevoker {
    /// The provider and client this client talks to.
    public let configuration: ProviderConfiguration

    let transport: any HTTPTransport
    let idTokenValidator: (any IDTokenValidating)?
    let clientSecretProvider: (@Sendable () throws -> ClientSecret)?
    let clock: any Clock<Duration>
    let dateSource: DateSource
    let logger: Logger

    /// Creates a client after validating the configuration.
    /// - Parameters:
    ///   - configuration: The provider and client.
    ///   - transport: How requests are sent (`URLSessionTransport`, an AsyncHTTPClient transport, …).
    ///   - idTokenValidator: Verifies ID token signatures (`JWKSIDTokenValidator` from `TetherJWT`). Without one,
    ///     the claims (`iss`, `aud`, `exp`, `nonce`) of ID tokens received straight from the token endpoint are
    ///     still checked, and the TLS connection stands in for the signature (OIDC Core §3.1.3.7, step 6).
    ///   - clientSecretProvider: Produces the client secret for each request, for providers whose secret is a
    ///     short-lived JWT (Sign in with Apple); overrides ``ProviderConfiguration/clientSecret``.
    ///   - clock: The monotonic clock for device-flow polling.
    ///   - dateSource: The wall clock that token expiry is anchored to.
    ///   - logger: Where the client logs, without secrets.
    /// - Throws: ``ProviderConfigurationError`` when the configuration is invalid; nothing is sent then.
    public init(
        configuration: ProviderConfiguration,
        transport: any HTTPTransport,
        idTokenValidator: (any IDTokenValidating)? = nil,
        clientSecretProvider: (@Sendable () throws -> ClientSecret)? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        dateSource: DateSource = .system,
        logger: Logger = .current
    ) throws {
        try configuration.validate()
        self.configuration = configuration
        self.transport = transport
        self.idTokenValidator = idTokenValidator
        self.clientSecretProvider = clientSecretProvider
        self.clock = clock
        self.dateSource = dateSource
        var logger = logger
        logger[metadataKey: "oauth.provider"] = "\(configuration.providerID)"
        self.logger = logger
    }

    // MARK: - Authorization code

    /// Builds an authorization request with PKCE (S256), a one-time `state` and, for OpenID Connect, a `nonce`.
    /// - Parameters:
    ///   - redirectURI: The redirect URI; by default the configured one.
    ///   - scopes: The scopes; by default the configured ones.
    ///   - loginHint: The account to preselect (`login_hint`), such as a session's account hint.
    ///   - additionalParameters: Extra parameters, added after the configured ones.
    /// - Returns: The request; keep it until the callback arrives.
    /// - Throws: ``ProviderConfigurationError`` when there is no authorization endpoint or redirect URI.
    public func makeAuthorizationRequest(
        redirectURI: URL? = nil,
        scopes: [String]? = nil,
        loginHint: String? = nil,
        additionalParameters: [String: String] = [:]
    ) throws -> AuthorizationRequest {
        guard let endpoint = configuration.authorizationEndpoint else {
            throw ProviderConfigurationError.missingEndpoint.with(
                message:
                    "\(configuration.providerID) has no authorization_endpoint; the authorization-code flow needs one"
            )
        }
        guard let redirect = redirectURI ?? configuration.redirectURI else {
            throw ProviderConfigurationError.malformedRedirectURI.with(
                message: "No redirect_uri: configure one or use a presenter that provides it"
            )
        }
        try ProviderConfiguration.validateRedirectURI(redirect)
        let scopes = scopes ?? configuration.scopes
        var random = SystemRandomNumberGenerator()
        let verifier = PKCE.makeVerifier(using: &random)
        let state = PKCE.randomToken(bytes: 32, using: &random)
        let nonce = scopes.contains("openid") ? PKCE.randomToken(bytes: 32, using: &random) : nil
        var items: [URLQueryItem] = [
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "client_id", value: configuration.clientID),
            URLQueryItem(name: "redirect_uri", value: redirect.absoluteString),
            URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "code_challenge", value: PKCE.challenge(for: verifier)),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        if !scopes.isEmpty { items.append(URLQueryItem(name: "scope", value: scopes.joined(separator: " "))) }
        if let nonce { items.append(URLQueryItem(name: "nonce", value: nonce)) }
        if let loginHint { items.append(URLQueryItem(name: "login_hint", value: loginHint)) }
        let reserved = Set(items.map(\.name))
        let extra = configuration.additionalAuthorizationParameters.merging(additionalParameters) { _, new in new }
        for (name, value) in extra.sorted(by: { $0.key < $1.key }) where !reserved.contains(name) {
            items.append(URLQueryItem(name: name, value: value))
        }
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
            throw ProviderConfigurationError.invalidEndpoint.with(message: "Cannot build the authorization URL")
        }
        components.queryItems = (components.queryItems ?? []) + items
        // `+` in a query means a space to form decoders: encode it.
        let query = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        components.percentEncodedQuery = query
        guard let url = components.url else {
            throw ProviderConfigurationError.invalidEndpoint.with(message: "Cannot build the authorization URL")
        }
        logger.debug(
            "Built authorization request",
            metadata: [
                "oauth.endpoint": "\(Self.redacted(endpoint))", "oauth.scopes": "\(scopes.joined(separator: " "))",
            ]
        )
        return AuthorizationRequest(
            url: url,
            redirectURI: redirect,
            issuer: configuration.issuer,
            scopes: scopes,
            state: state,
            nonce: nonce,
            codeVerifier: verifier
        )
    }

    /// Checks a callback URL against its request and exchanges the code for tokens.
    /// - Parameters:
    ///   - callbackURL: The URL the browser was redirected to.
    ///   - request: The request the callback answers.
    /// - Returns: The account and tokens.
    /// - Throws: ``OAuthError`` (callback problems, then token endpoint problems), ``IDTokenError`` through
    ///   ``OAuthError/idTokenRejected``.
    public func completeSignIn(callbackURL: URL, for request: AuthorizationRequest) async throws -> SignInResult {
        let callback = try request.callback(
            from: callbackURL,
            requiringIssuer: configuration.issuerInAuthorizationResponse
        )
        return try await exchange(callback.code, for: request)
    }

    /// Exchanges an authorization code (RFC 6749 §4.1.3 with the PKCE verifier, RFC 7636 §4.5).
    /// - Parameters:
    ///   - code: The code from the callback.
    ///   - request: The request the code answers.
    /// - Returns: The account and tokens, with expiry anchored at the moment the response arrived.
    /// - Throws: ``OAuthError``.
    public func exchange(_ code: AuthorizationCode, for request: AuthorizationRequest) async throws -> SignInResult {
        var form = [
            ("grant_type", "authorization_code"),
            ("code", code.revealedValue),
            ("redirect_uri", request.redirectURI.absoluteString),
            ("code_verifier", request.codeVerifier.revealedValue),
        ]
        form += configuration.additionalTokenParameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let (response, receivedAt) = try await tokenRequest(form, grantType: "authorization_code")
        let tokens = TokenSet(response, receivedAt: receivedAt)
        let claims = try await verifiedClaims(
            of: response.idToken,
            nonce: request.nonce,
            required: request.scopes.contains("openid") && configuration.issuer != nil
        )
        let account = await account(claims: claims, tokens: tokens, requestedScopes: request.scopes)
        logger.debug("Exchanged authorization code", metadata: ["oauth.grant_type": "authorization_code"])
        return SignInResult(
            account: account,
            tokens: tokens,
            idTokenClaims: claims,
            missingScopes: missingScopes(
                requested: request.scopes,
                granted: response.scopes,
                grantType: "authorization_code"
            )
        )
    }

    /// Runs the whole authorization-code flow through a presenter: prepares the redirect, opens the page,
    /// checks the callback and exchanges the code.
    /// - Parameters:
    ///   - presenter: Shows the authorization page (`LoopbackPresenter`, `WebAuthenticationPresenter`, …).
    ///   - scopes: The scopes; by default the configured ones.
    ///   - loginHint: The account to preselect, such as the hint of a session that needs sign-in.
    /// - Returns: The account and tokens.
    /// - Throws: ``AuthorizationPresentationError``, ``OAuthError``.
    public func signIn(
        using presenter: any AuthorizationPresenter,
        scopes: [String]? = nil,
        loginHint: String? = nil
    ) async throws -> SignInResult {
        let presentation = try await presenter.begin(redirectURI: configuration.redirectURI)
        do {
            let request = try makeAuthorizationRequest(
                redirectURI: presentation.redirectURI,
                scopes: scopes,
                loginHint: loginHint
            )
            let callbackURL = try await presentation.present(request.url)
            await presentation.cancel()
            return try await completeSignIn(callbackURL: callbackURL, for: request)
        } catch {
            await presentation.cancel()
            throw error
        }
    }

    // MARK: - Refresh

    /// Refreshes tokens (RFC 6749 §6). A response without a refresh token means "keep the old one"; the session
    /// does that. A request with ``Tether/RefreshRequest/claims`` (a resource's claims challenge) sends them as the
    /// `claims` parameter, as Microsoft Entra asks for continuous access evaluation
    /// (https://learn.microsoft.com/entra/identity-platform/claims-challenge).
    ///
    /// The answer's tokens are kept whenever the provider may have rotated the refresh token: an invalid `expires_in`
    /// leaves their lifetime unknown (or cut to a year, when too large), and an ID token whose signature cannot be
    /// checked over a connection without TLS is dropped (the connection keeps its previous ID token and account).
    /// - Parameter request: The refresh token and the record it belongs to.
    /// - Returns: The provider's response.
    /// - Throws: ``OAuthError``, classified: `invalid_grant` and its provider variants are permanent; network
    ///   failures, 5xx and 429 transient; `invalid_client` and friends configuration.
    public func refresh(_ request: RefreshRequest) async throws -> TokenResponse {
        var form = [("grant_type", "refresh_token"), ("refresh_token", request.refreshToken.revealedValue)]
        form += configuration.additionalTokenParameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        if let claims = request.claims {
            form.removeAll { $0.0 == "claims" }
            form.append(("claims", claims))
        }
        var (response, _) = try await tokenRequest(form, grantType: "refresh_token")
        _ = missingScopes(requested: request.tokens.scopes ?? [], granted: response.scopes, grantType: "refresh_token")
        if let idToken = response.idToken, idTokenValidator != nil {
            // OIDC Core §12.2: a refreshed ID token must name the same user; it carries no nonce.
            let check = try await checkedIDToken(idToken, nonce: nil, isRefresh: true)
            switch check {
            case .verified(let claims), .unauthenticated(let claims, _):
                if !request.account.isUnknown, claims.subject != request.account.subject {
                    throw OAuthError.idTokenRejected.with(message: "The refreshed ID token names another user")
                }
            case .unchecked:
                break
            }
            if case .unauthenticated = check {
                // Nothing vouches for it, but the provider may have rotated the refresh token already: refusing the
                // answer would make the next refresh a reuse that ends the grant (docs/decisions.md §32, §35). The
                // tokens are kept; the ID token is dropped, so the connection keeps its previous one and its account.
                response.idToken = nil
            }
        }
        return response
    }

    // MARK: - Revocation

    /// Revokes a connection's grant (RFC 7009): the refresh token if there is one (which ends the grant), else
    /// the access token. A token the provider already considers invalid counts as revoked. With
    /// ``ProviderConfiguration/RevocationMethod/gitHubApplicationGrant``, GitHub's application API ends the grant.
    /// - Parameters:
    ///   - tokens: The tokens.
    ///   - account: Whose tokens they are.
    /// - Throws: ``OAuthError`` when the provider could not be reached or refused; ``ProviderConfigurationError``
    ///   when there is no revocation endpoint (`missingEndpoint`) or the provider offers this client no way to
    ///   revoke (`revocationUnsupported`: GitHub without a client secret).
    public func revoke(_ tokens: TokenSet, account: Account) async throws {
        if configuration.revocationMethod == .gitHubApplicationGrant {
            try await revokeGitHubGrant(tokens)
            return
        }
        if let refreshToken = tokens.refreshToken {
            try await revoke(token: refreshToken.revealedValue, hint: "refresh_token")
        } else if let accessToken = tokens.accessToken {
            try await revoke(token: accessToken.revealedValue, hint: "access_token")
        }
    }

    func revoke(token: String, hint: String) async throws {
        guard let endpoint = configuration.revocationEndpoint else {
            throw ProviderConfigurationError.missingEndpoint.with(
                message: "\(configuration.providerID) has no revocation_endpoint"
            )
        }
        let (response, body) = try await post(endpoint, form: [("token", token), ("token_type_hint", hint)])
        let status = response.status.code
        if response.status.kind == .successful { return }
        if let error = ProviderErrorBody.parse(body), status == 400,
            error.code == .invalidToken || error.code == .invalidGrant
        {
            // Already invalid: what revocation wanted (Google answers 400 here, RFC 7009 §2.2 says 200).
            return
        }
        throw errorResponse(response, body, endpoint: endpoint)
    }

    // MARK: - Userinfo

    /// Reads the OIDC userinfo endpoint, or GitHub's `GET /user` for ``ProviderConfiguration/AccountLookup/gitHubUser``
    /// (`id` as the subject, `login` as the preferred username).
    /// - Parameter accessToken: A valid access token.
    /// - Returns: The claims the provider returns.
    /// - Throws: ``OAuthError``; ``ProviderConfigurationError`` without a userinfo endpoint.
    public func userInfo(accessToken: AccessToken) async throws -> UserInfo {
        guard let endpoint = configuration.userinfoEndpoint else {
            throw ProviderConfigurationError.missingEndpoint.with(
                message: "\(configuration.providerID) has no userinfo_endpoint"
            )
        }
        if configuration.accountLookup == .gitHubUser {
            return try await gitHubUser(accessToken: accessToken, endpoint: endpoint)
        }
        var request = HTTPRequest(method: .get, url: endpoint)
        request.headerFields[.authorization] = "Bearer \(accessToken.revealedValue)"
        request.headerFields[.accept] = "application/json"
        let (response, body) = try await send(request, body: nil, endpoint: endpoint)
        guard response.status.kind == .successful else { throw errorResponse(response, body, endpoint: endpoint) }
        guard let object = JSONValue.object(from: body), let subject = object["sub"]?.string, !subject.isEmpty else {
            throw OAuthError.malformedResponse.with(
                message: "The userinfo response of \(Self.redacted(endpoint)) has no sub"
            )
        }
        return UserInfo(
            subject: subject,
            email: object["email"]?.string,
            emailVerified: object["email_verified"]?.bool,
            name: object["name"]?.string,
            preferredUsername: object["preferred_username"]?.string
        )
    }
}

/// What a sign-in produced.
public struct SignInResult: Sendable {
    /// Who signed in: from the verified ID token, else from userinfo when `openid` was granted; `nil` when neither
    /// said (a plain OAuth 2.0 provider, a userinfo failure): store the connection with
    /// ``Tether/Account/unknown(providerID:)`` then, or let the app name the account.
    public let account: Account?
    /// The tokens, with expiry anchored at the moment the response arrived.
    public let tokens: TokenSet
    /// The verified ID token claims, for OpenID Connect.
    public let idTokenClaims: IDTokenClaims?
    /// The requested scopes the provider did not grant, when its response named the granted ones (RFC 6749 §5.1):
    /// the person may have unticked some on the consent page, or the client may not be allowed them. Empty when
    /// everything was granted or the response did not say. The tokens are valid for what was granted
    /// (``Tether/TokenSet/scopes``); ask again with ``OAuthClient/signIn(using:scopes:loginHint:)`` if a missing
    /// scope is needed.
    public let missingScopes: [String]
}

/// The OIDC userinfo claims Tether reads.
public struct UserInfo: Sendable, Hashable {
    /// `sub`.
    public let subject: String
    /// `email`.
    public let email: String?
    /// `email_verified`.
    public let emailVerified: Bool?
    /// `name`.
    public let name: String?
    /// `preferred_username`.
    public let preferredUsername: String?
}
