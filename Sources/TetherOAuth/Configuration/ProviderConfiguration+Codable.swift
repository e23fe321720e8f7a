public import Foundation
import Tether

extension ProviderConfiguration: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case providerID = "provider_id"
        case issuer
        case alternativeIssuers = "alternative_issuers"
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case jwksURI = "jwks_uri"
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case clientAuthentication = "client_authentication"
        case scopes
        case redirectURI = "redirect_uri"
        case additionalAuthorizationParameters = "authorization_parameters"
        case additionalTokenParameters = "token_parameters"
        case issuerInAuthorizationResponse = "authorization_response_iss_parameter_supported"
        case idTokenIsAccessToken = "id_token_is_access_token"
        case accountLookup = "account_lookup"
        case revocationMethod = "revocation_method"
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes a configuration file (snake_case keys as in RFC 8414). Unknown keys are rejected, because they are
    /// almost always typos (`client_secert`).
    public init(from decoder: any Decoder) throws {
        let all = try decoder.container(keyedBy: AnyKey.self)
        let known = Set(CodingKeys.allCases.map(\.rawValue))
        if let unknown = all.allKeys.map(\.stringValue).sorted().first(where: { !known.contains($0) }) {
            throw ProviderConfigurationError.unknownParameter.with(
                message: "Unknown parameter '\(unknown)' in the provider configuration; known: "
                    + known.sorted().joined(separator: ", ")
            )
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func url(_ key: CodingKeys) throws -> URL? {
            guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
            guard let url = URL(string: text), url.scheme != nil else {
                throw ProviderConfigurationError.invalidValue.with(message: "\(key.rawValue) '\(text)' is not a URL")
            }
            return url
        }
        guard let tokenEndpoint = try url(.tokenEndpoint) else {
            throw ProviderConfigurationError.missingEndpoint.with(message: "token_endpoint is missing")
        }
        let scopes: [String]
        if let list = try? container.decodeIfPresent([String].self, forKey: .scopes) {
            scopes = list
        } else if let text = try container.decodeIfPresent(String.self, forKey: .scopes) {
            scopes = text.split(separator: " ").map(String.init)
        } else {
            scopes = []
        }
        let clientID = try container.decodeIfPresent(String.self, forKey: .clientID) ?? ""
        self.init(
            providerID: try container.decodeIfPresent(String.self, forKey: .providerID)
                ?? container.decodeIfPresent(String.self, forKey: .issuer) ?? tokenEndpoint.host ?? "oauth",
            issuer: try container.decodeIfPresent(String.self, forKey: .issuer),
            authorizationEndpoint: try url(.authorizationEndpoint),
            tokenEndpoint: tokenEndpoint,
            revocationEndpoint: try url(.revocationEndpoint),
            deviceAuthorizationEndpoint: try url(.deviceAuthorizationEndpoint),
            userinfoEndpoint: try url(.userinfoEndpoint),
            jwksURI: try url(.jwksURI),
            clientID: clientID,
            clientSecret: try container.decodeIfPresent(ClientSecret.self, forKey: .clientSecret),
            clientAuthentication: try container.decodeIfPresent(
                ClientAuthentication.self,
                forKey: .clientAuthentication
            ),
            scopes: scopes,
            redirectURI: try url(.redirectURI),
            additionalAuthorizationParameters: try container.decodeIfPresent(
                [String: String].self,
                forKey: .additionalAuthorizationParameters
            ) ?? [:],
            additionalTokenParameters: try container.decodeIfPresent(
                [String: String].self,
                forKey: .additionalTokenParameters
            ) ?? [:],
            issuerInAuthorizationResponse: try container.decodeIfPresent(
                Bool.self,
                forKey: .issuerInAuthorizationResponse
            ) ?? false,
            alternativeIssuers: try container.decodeIfPresent([String].self, forKey: .alternativeIssuers) ?? [],
            idTokenIsAccessToken: try container.decodeIfPresent(Bool.self, forKey: .idTokenIsAccessToken) ?? false,
            accountLookup: try container.decodeIfPresent(AccountLookup.self, forKey: .accountLookup)
                ?? .openIDUserinfo,
            revocationMethod: try container.decodeIfPresent(RevocationMethod.self, forKey: .revocationMethod)
                ?? .rfc7009
        )
    }

    /// Encodes the configuration as a file would hold it; the client secret is redacted unless the encoder's
    /// `userInfo` reveals secrets.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(providerID, forKey: .providerID)
        try container.encodeIfPresent(issuer, forKey: .issuer)
        if !alternativeIssuers.isEmpty { try container.encode(alternativeIssuers, forKey: .alternativeIssuers) }
        try container.encodeIfPresent(authorizationEndpoint?.absoluteString, forKey: .authorizationEndpoint)
        try container.encode(tokenEndpoint.absoluteString, forKey: .tokenEndpoint)
        try container.encodeIfPresent(revocationEndpoint?.absoluteString, forKey: .revocationEndpoint)
        try container.encodeIfPresent(deviceAuthorizationEndpoint?.absoluteString, forKey: .deviceAuthorizationEndpoint)
        try container.encodeIfPresent(userinfoEndpoint?.absoluteString, forKey: .userinfoEndpoint)
        try container.encodeIfPresent(jwksURI?.absoluteString, forKey: .jwksURI)
        try container.encode(clientID, forKey: .clientID)
        try container.encodeIfPresent(clientSecret, forKey: .clientSecret)
        try container.encode(clientAuthentication, forKey: .clientAuthentication)
        try container.encode(scopes, forKey: .scopes)
        try container.encodeIfPresent(redirectURI?.absoluteString, forKey: .redirectURI)
        if !additionalAuthorizationParameters.isEmpty {
            try container.encode(additionalAuthorizationParameters, forKey: .additionalAuthorizationParameters)
        }
        if !additionalTokenParameters.isEmpty {
            try container.encode(additionalTokenParameters, forKey: .additionalTokenParameters)
        }
        if issuerInAuthorizationResponse {
            try container.encode(true, forKey: .issuerInAuthorizationResponse)
        }
        if idTokenIsAccessToken { try container.encode(true, forKey: .idTokenIsAccessToken) }
        if accountLookup != .openIDUserinfo { try container.encode(accountLookup, forKey: .accountLookup) }
        if revocationMethod != .rfc7009 { try container.encode(revocationMethod, forKey: .revocationMethod) }
    }

    /// Loads and validates a configuration from a JSON file.
    /// - Parameter url: The file.
    /// - Returns: The validated configuration.
    /// - Throws: ``ProviderConfigurationError`` — `unreadable` (with the parser's complaint), `unknownParameter`,
    ///   or any validation error.
    public static func load(contentsOf url: URL) throws -> ProviderConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ProviderConfigurationError.unreadable.with(
                message: "Cannot read '\(url.path)': \(error.localizedDescription)"
            )
        }
        return try decode(data, source: url.lastPathComponent)
    }

    /// Decodes and validates a configuration from JSON bytes.
    /// - Parameters:
    ///   - data: The JSON.
    ///   - source: A name for the source, used in error messages.
    /// - Returns: The validated configuration.
    /// - Throws: ``ProviderConfigurationError``.
    public static func decode(_ data: Data, source: String = "configuration") throws -> ProviderConfiguration {
        let configuration: ProviderConfiguration
        do {
            configuration = try JSONDecoder().decode(ProviderConfiguration.self, from: data)
        } catch let error as ProviderConfigurationError {
            throw error
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw ProviderConfigurationError.invalidValue.with(message: "\(source): '\(path)' has the wrong type")
        } catch let DecodingError.dataCorrupted(context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            if let underlying = context.underlyingError as? ProviderConfigurationError { throw underlying }
            throw ProviderConfigurationError.unreadable.with(
                message: "\(source) is not valid JSON\(path.isEmpty ? "" : " at '\(path)'")"
            )
        } catch {
            throw ProviderConfigurationError.unreadable.with(message: "\(source) could not be decoded")
        }
        try configuration.validate()
        return configuration
    }
}
