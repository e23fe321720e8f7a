public import Foundation
public import Tether

/// Everything Tether needs to talk to one OAuth 2.0 / OpenID Connect provider for one client.
///
/// Build one in code, load it from a JSON file (``load(contentsOf:)``), discover it from the issuer's metadata
/// (``discover(issuer:clientID:transport:)``), or start from a preset (``google(clientID:redirectURI:scopes:)``,
/// ``microsoft(tenant:clientID:redirectURI:scopes:)``, …). ``validate()`` says exactly what is wrong before any
/// network call; ``OAuthClient`` calls it when it is created.
public struct ProviderConfiguration: Sendable, Hashable {
    /// A short name for the provider, used in account records and logs (`google`, `microsoft`, an issuer URL).
    public var providerID: String
    /// The issuer identifier (OIDC `iss`, RFC 8414 `issuer`), compared exactly; `nil` for plain OAuth 2.0.
    public var issuer: String?
    /// Other spellings of the issuer that ID tokens may carry (Google's legacy `accounts.google.com`).
    public var alternativeIssuers: [String]
    /// The authorization endpoint (RFC 6749 §3.1); needed for the authorization-code flow.
    public var authorizationEndpoint: URL?
    /// The token endpoint (RFC 6749 §3.2).
    public var tokenEndpoint: URL
    /// The revocation endpoint (RFC 7009), if any.
    public var revocationEndpoint: URL?
    /// The device authorization endpoint (RFC 8628), if any.
    public var deviceAuthorizationEndpoint: URL?
    /// The OIDC userinfo endpoint, if any.
    public var userinfoEndpoint: URL?
    /// The JWKS endpoint that ID tokens are verified with, if any.
    public var jwksURI: URL?
    /// The client identifier.
    public var clientID: String
    /// The client secret, for confidential clients. Native and browser apps have none.
    public var clientSecret: ClientSecret?
    /// How the client authenticates at the token endpoint.
    public var clientAuthentication: ClientAuthentication
    /// The scopes to request.
    public var scopes: [String]
    /// The redirect URI registered for the client; a loopback presenter picks its own port.
    public var redirectURI: URL?
    /// Extra parameters for the authorization request (`access_type`, `prompt`, …).
    public var additionalAuthorizationParameters: [String: String]
    /// Extra parameters for token requests.
    public var additionalTokenParameters: [String: String]
    /// Whether the provider adds `iss` to authorization responses (RFC 9207); a response without it is then
    /// rejected.
    public var issuerInAuthorizationResponse: Bool
    /// Whether the ID token is the bearer token (Firebase: its secure-token API returns an ID token that backends
    /// accept as the credential); used when a token response has no `access_token`.
    public var idTokenIsAccessToken: Bool
    /// Where the account comes from when no ID token names it: OpenID Connect userinfo (the default) or GitHub's
    /// `GET /user`, read at ``userinfoEndpoint``.
    public var accountLookup: AccountLookup
    /// How ``revocationEndpoint`` revokes: RFC 7009 (the default) or GitHub's application API.
    public var revocationMethod: RevocationMethod

    /// How a client proves who it is at the token endpoint (RFC 6749 §2.3).
    public struct ClientAuthentication: Sendable, Hashable, Codable, CustomStringConvertible {
        let rawValue: String

        /// A public client: `client_id` in the body, no secret.
        public static let none = ClientAuthentication(rawValue: "none")
        /// `client_id` and `client_secret` in the form body.
        public static let secretPost = ClientAuthentication(rawValue: "client_secret_post")
        /// HTTP Basic with the client id and secret.
        public static let secretBasic = ClientAuthentication(rawValue: "client_secret_basic")
        /// The client is named by an API key in the endpoint URL (Firebase); the body carries no `client_id`,
        /// which Google's APIs would reject as an unknown field.
        public static let apiKey = ClientAuthentication(rawValue: "api_key")

        /// The RFC 8414 name, such as `client_secret_post`.
        public var description: String { rawValue }

        /// Decodes an RFC 8414 method name; unknown names are a configuration error.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            let name = try container.decode(String.self)
            guard ["none", "client_secret_post", "client_secret_basic", "api_key"].contains(name) else {
                throw ProviderConfigurationError.invalidValue.with(
                    message: "client_authentication '\(name)' is not one of none, client_secret_post, "
                        + "client_secret_basic, api_key"
                )
            }
            self.rawValue = name
        }

        /// Encodes the RFC 8414 name.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        init(rawValue: String) { self.rawValue = rawValue }
    }

    /// Creates a configuration.
    /// - Parameters:
    ///   - providerID: A short name for the provider.
    ///   - issuer: The issuer identifier, for OpenID Connect.
    ///   - authorizationEndpoint: The authorization endpoint.
    ///   - tokenEndpoint: The token endpoint.
    ///   - revocationEndpoint: The revocation endpoint.
    ///   - deviceAuthorizationEndpoint: The device authorization endpoint.
    ///   - userinfoEndpoint: The userinfo endpoint.
    ///   - jwksURI: The JWKS endpoint.
    ///   - clientID: The client identifier.
    ///   - clientSecret: The client secret, for confidential clients.
    ///   - clientAuthentication: How the client authenticates; by default `secretPost` with a secret, else `none`.
    ///   - scopes: The scopes to request.
    ///   - redirectURI: The registered redirect URI.
    ///   - additionalAuthorizationParameters: Extra authorization request parameters.
    ///   - additionalTokenParameters: Extra token request parameters.
    ///   - issuerInAuthorizationResponse: Whether the provider sends `iss` in authorization responses.
    ///   - alternativeIssuers: Other spellings of the issuer.
    ///   - idTokenIsAccessToken: Whether the ID token serves as the bearer token (Firebase).
    ///   - accountLookup: Where the account comes from without an ID token; OpenID Connect userinfo by default.
    ///   - revocationMethod: How the revocation endpoint revokes; RFC 7009 by default.
    public init(
        providerID: String,
        issuer: String? = nil,
        authorizationEndpoint: URL? = nil,
        tokenEndpoint: URL,
        revocationEndpoint: URL? = nil,
        deviceAuthorizationEndpoint: URL? = nil,
        userinfoEndpoint: URL? = nil,
        jwksURI: URL? = nil,
        clientID: String,
        clientSecret: ClientSecret? = nil,
        clientAuthentication: ClientAuthentication? = nil,
        scopes: [String] = [],
        redirectURI: URL? = nil,
        additionalAuthorizationParameters: [String: String] = [:],
        additionalTokenParameters: [String: String] = [:],
        issuerInAuthorizationResponse: Bool = false,
        alternativeIssuers: [String] = [],
        idTokenIsAccessToken: Bool = false,
        accountLookup: AccountLookup = .openIDUserinfo,
        revocationMethod: RevocationMethod = .rfc7009
    ) {
        self.idTokenIsAccessToken = idTokenIsAccessToken
        self.accountLookup = accountLookup
        self.revocationMethod = revocationMethod
        self.providerID = providerID
        self.issuer = issuer
        self.alternativeIssuers = alternativeIssuers
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.jwksURI = jwksURI
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clientAuthentication = clientAuthentication ?? (clientSecret == nil ? .none : .secretPost)
        self.scopes = scopes
        self.redirectURI = redirectURI
        self.additionalAuthorizationParameters = additionalAuthorizationParameters
        self.additionalTokenParameters = additionalTokenParameters
        self.issuerInAuthorizationResponse = issuerInAuthorizationResponse
    }

    /// Whether the configuration is for OpenID Connect (the `openid` scope is requested and an issuer is known).
    public var isOpenIDConnect: Bool { scopes.contains("openid") && issuer != nil }

    // MARK: - Validation

    /// Checks the configuration before any network call.
    /// - Throws: ``ProviderConfigurationError`` naming the first problem: `missingClientID`,
    ///   `malformedRedirectURI`, `insecureEndpoint`, `invalidEndpoint`, `invalidScope`, `missingClientSecret`.
    public func validate() throws {
        guard !clientID.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ProviderConfigurationError.missingClientID.with(
                message: "The client id of '\(providerID)' is missing: set client_id to the id the provider issued"
            )
        }
        try Self.validateEndpoint(tokenEndpoint, name: "token_endpoint")
        let optional: [(URL?, String)] = [
            (authorizationEndpoint, "authorization_endpoint"), (revocationEndpoint, "revocation_endpoint"),
            (deviceAuthorizationEndpoint, "device_authorization_endpoint"), (userinfoEndpoint, "userinfo_endpoint"),
            (jwksURI, "jwks_uri"),
        ]
        for case (let url?, let name) in optional { try Self.validateEndpoint(url, name: name) }
        if let issuer {
            guard let url = URL(string: issuer) else {
                throw ProviderConfigurationError.invalidEndpoint.with(message: "issuer '\(issuer)' is not a URL")
            }
            try Self.validateEndpoint(url, name: "issuer")
        }
        if let redirectURI { try Self.validateRedirectURI(redirectURI) }
        for scope in scopes where scope.isEmpty || scope.contains(where: { $0 == " " || $0 == "\"" || $0 == "\\" }) {
            throw ProviderConfigurationError.invalidScope.with(
                message: "scope '\(scope)' is invalid: scopes are single tokens without spaces (RFC 6749 §3.3)"
            )
        }
        if clientAuthentication == .secretBasic || clientAuthentication == .secretPost, clientSecret == nil {
            throw ProviderConfigurationError.missingClientSecret.with(
                message: "client_authentication is \(clientAuthentication) but no client_secret is set"
            )
        }
    }

    /// HTTPS everywhere; plain HTTP only to loopback hosts.
    static func validateEndpoint(_ url: URL, name: String) throws {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty
        else {
            throw ProviderConfigurationError.invalidEndpoint.with(
                message: "\(name) '\(url.absoluteString)' is not an absolute URL with a host"
            )
        }
        switch scheme {
        case "https": return
        case "http":
            guard LoopbackHost.contains(host) else {
                throw ProviderConfigurationError.insecureEndpoint.with(
                    message: "\(name) uses plain HTTP on '\(host)'; only loopback hosts (127.0.0.1, ::1, localhost) may"
                )
            }
        default:
            throw ProviderConfigurationError.invalidEndpoint.with(
                message: "\(name) '\(url.absoluteString)' must be an https URL"
            )
        }
    }

    /// RFC 8252 redirect URIs: https, loopback http, or a private-use reverse-DNS scheme.
    static func validateRedirectURI(_ url: URL) throws {
        let text = url.absoluteString
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
            throw ProviderConfigurationError.malformedRedirectURI.with(
                message: "redirect_uri '\(text)' has no scheme; expected e.g. com.example.app:/oauth2redirect"
            )
        }
        let scheme = text[..<colon].lowercased()
        let rest = text[text.index(after: colon)...]
        if scheme == "http" || scheme == "https" {
            guard rest.hasPrefix("//") else {
                let fixed = "\(scheme)://" + rest.drop(while: { $0 == "/" })
                throw ProviderConfigurationError.malformedRedirectURI.with(
                    message: "redirect_uri '\(text)' is malformed: did you mean '\(fixed)'?"
                )
            }
            guard let host = URLComponents(string: text)?.host, !host.isEmpty else {
                throw ProviderConfigurationError.malformedRedirectURI.with(
                    message: "redirect_uri '\(text)' has no host"
                )
            }
            if scheme == "http", !LoopbackHost.contains(host) {
                throw ProviderConfigurationError.insecureEndpoint.with(
                    message: "redirect_uri uses plain HTTP on '\(host)'; only loopback redirects may (RFC 8252 §7.3)"
                )
            }
        } else {
            guard scheme.contains(".") else {
                throw ProviderConfigurationError.malformedRedirectURI.with(
                    message: "redirect_uri scheme '\(scheme)' is not a reverse-DNS name you control (RFC 8252 §7.1), "
                        + "e.g. com.example.app:/oauth2redirect"
                )
            }
            guard rest.hasPrefix("/"), rest.count > 1 else {
                throw ProviderConfigurationError.malformedRedirectURI.with(
                    message: "redirect_uri '\(text)' has no path: use \(scheme):/oauth2redirect"
                )
            }
        }
        if URLComponents(string: text)?.fragment != nil {
            throw ProviderConfigurationError.malformedRedirectURI.with(
                message: "redirect_uri '\(text)' must not contain a fragment (RFC 6749 §3.1.2)"
            )
        }
    }
}
