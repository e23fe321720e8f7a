import Tether

extension ProviderConfiguration {
    /// Where the account a sign-in is for comes from when no ID token names it, read at
    /// ``ProviderConfiguration/userinfoEndpoint``.
    public struct AccountLookup: Sendable, Hashable, Codable, CustomStringConvertible {
        let rawValue: String

        /// The OpenID Connect userinfo endpoint (OpenID Connect Core 1.0 §5.3), asked only when `openid` was
        /// granted, since servers serve it to such tokens only.
        public static let openIDUserinfo = AccountLookup(rawValue: "openid_userinfo")
        /// GitHub's `GET /user` ("Get the authenticated user",
        /// <https://docs.github.com/en/rest/users/users#get-the-authenticated-user>), which answers any user token:
        /// the subject is the numeric `id`, the account is shown by its `login`, and `email` is read when the user
        /// made it public or granted `user:email`.
        public static let gitHubUser = AccountLookup(rawValue: "github_user")

        /// The configuration-file name (`openid_userinfo`, `github_user`).
        public var description: String { rawValue }

        /// Decodes a configuration-file name; unknown names are a configuration error.
        public init(from decoder: any Decoder) throws {
            let name = try decoder.singleValueContainer().decode(String.self)
            guard [Self.openIDUserinfo.rawValue, Self.gitHubUser.rawValue].contains(name) else {
                throw ProviderConfigurationError.invalidValue.with(
                    message: "account_lookup '\(name)' is not one of openid_userinfo, github_user"
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
