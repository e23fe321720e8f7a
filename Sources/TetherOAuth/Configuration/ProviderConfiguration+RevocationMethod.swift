import Tether

extension ProviderConfiguration {
    /// How a grant is revoked at ``ProviderConfiguration/revocationEndpoint``.
    public struct RevocationMethod: Sendable, Hashable, Codable, CustomStringConvertible {
        let rawValue: String

        /// RFC 7009 §2.1: `POST` of the form `token` and `token_type_hint`, with client authentication as at the
        /// token endpoint.
        public static let rfc7009 = RevocationMethod(rawValue: "rfc7009")
        /// GitHub's "Delete an app authorization"
        /// (<https://docs.github.com/en/rest/apps/oauth-applications#delete-an-app-authorization>): `DELETE` of
        /// `{"access_token": …}` to `/applications/{client_id}/grant`, authenticated with HTTP Basic as the client
        /// id and secret. It ends the whole grant (every token of the app for that user). Without a client secret
        /// there is no way to revoke, and revocation fails with
        /// ``ProviderConfigurationError/revocationUnsupported``.
        public static let gitHubApplicationGrant = RevocationMethod(rawValue: "github_application_grant")

        /// The configuration-file name (`rfc7009`, `github_application_grant`).
        public var description: String { rawValue }

        /// Decodes a configuration-file name; unknown names are a configuration error.
        public init(from decoder: any Decoder) throws {
            let name = try decoder.singleValueContainer().decode(String.self)
            guard [Self.rfc7009.rawValue, Self.gitHubApplicationGrant.rawValue].contains(name) else {
                throw ProviderConfigurationError.invalidValue.with(
                    message: "revocation_method '\(name)' is not one of rfc7009, github_application_grant"
                )
            }
            self.rawValue = name
        }

        /// Encodes the configuration-file name.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        init(rawValue: String) { self.rawValue = rawValue }
    }
}
