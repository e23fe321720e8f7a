import Foundation
import HTTPTypes
import Hummingbird

/// Client authentication at the token and revocation endpoints: `client_secret_basic`,
/// `client_secret_post`, public clients (`client_id` only) and Apple client-secret JWTs.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
struct ClientAuthenticator: Sendable {
    let state: ProviderState

    struct Credentials: Sendable {
        var clientID: String?
        var secret: String?
        var usedBasicAuthentication = false
    }

    /// Extracts credentials from the `Authorization: Basic` header and the form.
    static func credentials(request: Request, form: FormData) throws(OAuthProblem) -> Credentials {
        var credentials = Credentials(clientID: form["client_id"], secret: form["client_secret"])
        guard let header = request.headers[.authorization],
            header.lowercased().hasPrefix("basic ")
        else {
            return credentials
        }
        guard let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let decoded = String(data: data, encoding: .utf8),
            let colon = decoded.firstIndex(of: ":")
        else {
            throw .invalidClient("The Basic credentials are malformed.", usedBasicAuthentication: true)
        }
        // RFC 6749 §2.3.1: id and secret are form-encoded before Basic encoding.
        let id = FormData("a=" + String(decoded[..<colon]))["a"] ?? ""
        let secret = FormData("a=" + String(decoded[decoded.index(after: colon)...]))["a"] ?? ""
        if credentials.secret != nil {
            throw .invalidRequest("Use only one client authentication method.")
        }
        if let formID = credentials.clientID, formID != id {
            throw .invalidRequest("The client_id does not match the Basic credentials.")
        }
        credentials = Credentials(clientID: id, secret: secret, usedBasicAuthentication: true)
        return credentials
    }

    /// Authenticates the client.
    ///
    /// - Throws: `invalid_request` without a `client_id`; `invalid_client` for an unknown client
    ///   or wrong secret.
    func authenticate(_ credentials: Credentials) async throws(OAuthProblem) -> DevProvider.ClientRegistration {
        let basic = credentials.usedBasicAuthentication
        guard let clientID = credentials.clientID else {
            throw .invalidRequest("The client_id parameter is required.")
        }
        guard let client = await self.state.client(id: clientID) else {
            throw .invalidClient("Client authentication failed: unknown client.", usedBasicAuthentication: basic)
        }
        if let key = client.appleSignInKey, self.state.configuration.dialect == .apple {
            guard let secret = credentials.secret else {
                throw .invalidClient("The client_secret JWT is required.", usedBasicAuthentication: basic)
            }
            let verifier = AppleClientSecretVerifier(
                key: key,
                clientID: client.id,
                issuer: await self.state.issuer,
                now: self.state.configuration.now()
            )
            if let rejection = verifier.rejection(of: secret) {
                throw .invalidClient(rejection, usedBasicAuthentication: basic)
            }
            return client
        }
        if let expected = client.secret {
            guard credentials.secret == expected else {
                throw .invalidClient("Client authentication failed.", usedBasicAuthentication: basic)
            }
            if let method = client.tokenEndpointAuthMethod,
                method != (basic ? "client_secret_basic" : "client_secret_post")
            {
                throw .invalidClient("The client is registered for \(method).", usedBasicAuthentication: basic)
            }
        }
        return client
    }
}
