public import Foundation
import HTTPTypes
public import Tether

extension ProviderConfiguration {
    /// Builds a configuration from the issuer's published metadata: OpenID Connect Discovery
    /// (`{issuer}/.well-known/openid-configuration`), falling back to RFC 8414
    /// (`/.well-known/oauth-authorization-server` inserted before the issuer's path).
    ///
    /// The document's `issuer` must equal the issuer asked for (RFC 8414 §3.3); Microsoft's multi-tenant
    /// template `…/{tenantid}/v2.0` is accepted for its own host and resolved per ID token.
    /// - Parameters:
    ///   - issuer: The issuer identifier, such as `https://accounts.google.com`.
    ///   - clientID: The client id.
    ///   - clientSecret: The client secret, for confidential clients.
    ///   - scopes: The scopes to request; by default `openid email profile` plus `offline_access` when the
    ///     provider lists it — `openid` and its companions only from an OpenID Connect provider (its discovery
    ///     document, or RFC 8414 metadata listing `openid` with a `userinfo_endpoint` or `jwks_uri`).
    ///   - redirectURI: The redirect URI.
    ///   - providerID: A short name; by default the issuer.
    ///   - transport: How the metadata is fetched.
    ///   - clientAuthentication: How a confidential client authenticates; by default the first of
    ///     `client_secret_basic` and `client_secret_post` in the provider's `token_endpoint_auth_methods_supported`
    ///     (`client_secret_basic` when it lists neither, RFC 8414 §2).
    /// - Returns: The validated configuration.
    /// - Throws: ``OAuthError/discoveryFailed`` (unreachable, malformed, another issuer — classified transient
    ///   when the network failed; ``OAuthError/httpStatus`` 404 when no metadata is published at all), or a
    ///   ``ProviderConfigurationError`` from validation.
    public static func discover(
        issuer: String,
        clientID: String,
        clientSecret: ClientSecret? = nil,
        scopes: [String]? = nil,
        redirectURI: URL? = nil,
        providerID: String? = nil,
        transport: any HTTPTransport,
        clientAuthentication: ClientAuthentication? = nil
    ) async throws -> ProviderConfiguration {
        guard let issuerURL = URL(string: issuer), issuerURL.host != nil else {
            throw ProviderConfigurationError.invalidEndpoint.with(message: "issuer '\(issuer)' is not a URL")
        }
        try validateEndpoint(issuerURL, name: "issuer")
        let trimmed = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        var candidates = [URL(string: trimmed + "/.well-known/openid-configuration")]
        if var components = URLComponents(url: issuerURL, resolvingAgainstBaseURL: false) {
            let path = components.path == "/" ? "" : components.path
            components.path = "/.well-known/oauth-authorization-server" + path
            candidates.append(components.url)
        }
        var lastError: OAuthError?
        for (index, url) in candidates.enumerated() {
            guard let url else { continue }
            do {
                guard var document = try await fetchMetadata(url, transport: transport) else { continue }
                let isOpenID = index == 0
                try checkIssuer(of: document, issuer: issuer)
                if isOpenID, let rfc8414 = candidates.last ?? nil,
                    Self.mergedEndpoints.contains(where: { document[$0] == nil })
                {
                    // OpenID Connect Discovery does not list every endpoint RFC 8414 defines (django-oauth-toolkit
                    // leaves revocation and introspection out of it): take the missing ones from the RFC 8414
                    // document of the same issuer, the OpenID document winning where both speak.
                    if let extra = try? await fetchMetadata(rfc8414, transport: transport),
                        (try? checkIssuer(of: extra, issuer: issuer)) != nil
                    {
                        document.merge(extra) { openID, _ in openID }
                    }
                }
                return try configuration(
                    from: document,
                    isOpenID: isOpenID,
                    issuer: issuer,
                    clientID: clientID,
                    clientSecret: clientSecret,
                    clientAuthentication: clientAuthentication,
                    scopes: scopes,
                    redirectURI: redirectURI,
                    providerID: providerID
                )
            } catch let error as OAuthError {
                lastError = error
                if error.classification == .transient { throw error }
            }
        }
        // Every location answered 404: the server has no metadata, which callers may treat apart from a failure.
        throw lastError
            ?? OAuthError.discoveryFailed.with(
                message: "\(issuer) publishes no OpenID Connect or RFC 8414 metadata",
                httpStatus: 404
            )
    }

    /// Fetches a metadata document; `nil` on 404 (try the next location).
    private static func fetchMetadata(_ url: URL, transport: any HTTPTransport) async throws -> [String: JSONValue]? {
        var request = HTTPRequest(method: .get, url: url)
        request.headerFields[.accept] = "application/json"
        let response: HTTPResponse
        let body: Data
        do {
            (response, body) = try await transport.send(request, body: nil)
        } catch let error as TransportError {
            throw OAuthError.discoveryFailed.with(
                message: "Could not fetch \(url.absoluteString): \(error.message)",
                classification: RefreshError.Kind(FailureClassifier.classify(error)),
                cause: error
            )
        }
        let status = response.status.code
        if status == 404 { return nil }
        guard response.status.kind == .successful else {
            throw OAuthError.discoveryFailed.with(
                message: "\(url.absoluteString) answered HTTP \(status)",
                classification: RefreshError.Kind(FailureClassifier.classify(response, body: body)),
                httpStatus: status
            )
        }
        return try document(metadata: body, from: url)
    }

    /// A fetched metadata document as a JSON object.
    private static func document(metadata body: Data, from url: URL) throws -> [String: JSONValue] {
        guard let document = JSONValue.object(from: body) else {
            throw OAuthError.discoveryFailed.with(message: "\(url.absoluteString) is not a JSON object")
        }
        return document
    }

    /// Reads and checks one fetched metadata document as `discover` does (the JSON object, the issuer, the
    /// configuration), without merging a second document; `package` for the fuzz targets (Fuzz/TetherFuzz), which
    /// run it on hostile documents.
    package static func configuration(
        metadata body: Data,
        from url: URL,
        issuer: String,
        clientID: String,
        clientSecret: ClientSecret?,
        scopes: [String]?,
        redirectURI: URL?,
        providerID: String?
    ) throws -> ProviderConfiguration {
        let document = try document(metadata: body, from: url)
        try checkIssuer(of: document, issuer: issuer)
        return try configuration(
            from: document,
            isOpenID: url.path.hasSuffix("/.well-known/openid-configuration"),
            issuer: issuer,
            clientID: clientID,
            clientSecret: clientSecret,
            clientAuthentication: nil,
            scopes: scopes,
            redirectURI: redirectURI,
            providerID: providerID
        )
    }

    /// The endpoints an OpenID discovery document may leave out that an RFC 8414 document can supply.
    static let mergedEndpoints = ["revocation_endpoint", "introspection_endpoint", "device_authorization_endpoint"]

    /// Checks that a document names the issuer asked for (RFC 8414 §3.3, OpenID Connect Discovery 1.0 §4.3).
    private static func checkIssuer(of document: [String: JSONValue], issuer: String) throws {
        guard let published = document["issuer"]?.string else {
            throw OAuthError.discoveryFailed.with(message: "The metadata of \(issuer) has no issuer")
        }
        let sameHost = URL(string: published)?.host == URL(string: issuer)?.host
        guard published == issuer || (published.contains("{tenantid}") && sameHost) else {
            throw OAuthError.discoveryFailed.with(
                message: "The metadata names issuer '\(UntrustedText.sanitized(published))', not '\(issuer)' "
                    + "(RFC 8414 §3.3); refusing it"
            )
        }
    }

    private static func configuration(
        from document: [String: JSONValue],
        isOpenID: Bool,
        issuer: String,
        clientID: String,
        clientSecret: ClientSecret?,
        clientAuthentication: ClientAuthentication?,
        scopes: [String]?,
        redirectURI: URL?,
        providerID: String?
    ) throws -> ProviderConfiguration {
        let published = document["issuer"]?.string ?? issuer
        func url(_ key: String) -> URL? { document[key]?.string.flatMap(URL.init(string:)) }
        guard let tokenEndpoint = url("token_endpoint") else {
            throw OAuthError.discoveryFailed.with(message: "The metadata of \(issuer) has no token_endpoint")
        }
        let supported = document["scopes_supported"]?.array?.compactMap(\.string) ?? []
        // A plain OAuth 2.0 server may accept `openid` and ignore it: ask for it only where OpenID Connect is spoken.
        let speaksOpenID =
            isOpenID || (supported.contains("openid") && (url("userinfo_endpoint") != nil || url("jwks_uri") != nil))
        let defaultScopes =
            (speaksOpenID ? ["openid", "email", "profile"] : [])
            + (supported.contains("offline_access") ? ["offline_access"] : [])
        let methods = document["token_endpoint_auth_methods_supported"]?.array?.compactMap(\.string) ?? []
        // The provider's order is its preference; Tether speaks the two secret methods.
        let listed = methods.first { $0 == "client_secret_basic" || $0 == "client_secret_post" }
        let authentication: ClientAuthentication? =
            clientSecret == nil
            ? ClientAuthentication.none
            : clientAuthentication ?? (listed == "client_secret_post" ? .secretPost : .secretBasic)
        let configuration = ProviderConfiguration(
            providerID: providerID ?? issuer,
            issuer: published.contains("{tenantid}") ? published : issuer,
            authorizationEndpoint: url("authorization_endpoint"),
            tokenEndpoint: tokenEndpoint,
            revocationEndpoint: url("revocation_endpoint"),
            deviceAuthorizationEndpoint: url("device_authorization_endpoint"),
            userinfoEndpoint: url("userinfo_endpoint"),
            jwksURI: url("jwks_uri"),
            clientID: clientID,
            clientSecret: clientSecret,
            clientAuthentication: authentication,
            scopes: scopes ?? defaultScopes,
            redirectURI: redirectURI,
            issuerInAuthorizationResponse: document["authorization_response_iss_parameter_supported"]?.bool ?? false
        )
        try configuration.validate()
        return configuration
    }
}
