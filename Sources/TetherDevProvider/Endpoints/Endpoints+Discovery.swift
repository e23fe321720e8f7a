import Hummingbird

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension Endpoints {
    /// RFC 8414 / OIDC Discovery metadata; `openID` tells which of the two documents is asked for, which matters
    /// only with ``DevProvider/Interoperability`` options.
    func discovery(openID: Bool) async throws -> Response {
        let interoperability = self.configuration.interoperability
        if openID, !interoperability.supportsOpenIDConnect { throw HTTPError(.notFound) }
        let issuer = await self.state.issuer
        let revocation = self.dialect == .apple ? "/auth/revoke" : "/revoke"
        var document: [String: JSONOutput] = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + "/authorize"),
            "token_endpoint": .string(issuer + "/token"),
            "revocation_endpoint": .string(issuer + revocation),
            "device_authorization_endpoint": .string(issuer + "/device_authorization"),
            "userinfo_endpoint": .string(issuer + "/userinfo"),
            "jwks_uri": .string(issuer + "/jwks"),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": .strings([
                DevProvider.GrantType.authorizationCode.rawValue,
                DevProvider.GrantType.refreshToken.rawValue,
                DevProvider.GrantType.deviceCode.rawValue,
            ]),
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "profile", "email", "offline_access", "admin"],
            "token_endpoint_auth_methods_supported": .strings(interoperability.tokenEndpointAuthMethods),
            "revocation_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "code_challenge_methods_supported": ["S256"],
            "authorization_response_iss_parameter_supported": true,
            "claims_supported": .strings([
                "iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "azp", "email", "email_verified", "name",
            ]),
        ]
        if openID, interoperability.openIDMetadataOmitsEndpoints {
            document["revocation_endpoint"] = nil
            document["device_authorization_endpoint"] = nil
        }
        if !interoperability.supportsOpenIDConnect {
            for key in ["userinfo_endpoint", "jwks_uri", "id_token_signing_alg_values_supported", "claims_supported"] {
                document[key] = nil
            }
        }
        return HTTPResponses.json(.object(document))
    }

    /// The JSON Web Key Set with the current and previous signing keys.
    func jwks() async -> Response {
        HTTPResponses.json(await self.state.keys.jwks)
    }
}
