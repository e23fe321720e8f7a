import Foundation
import Testing
import Tether
import TetherTestSupport

@testable import TetherOAuth

struct AuthorizationRequestTests {
    static func client(issuerInResponse: Bool = false) throws -> OAuthClient {
        var configuration = ProviderConfigurationTests.make()
        configuration.issuerInAuthorizationResponse = issuerInResponse
        configuration.additionalAuthorizationParameters = ["prompt": "consent", "state": "ignored"]
        return try OAuthClient(configuration: configuration, transport: CountingTransport())
    }

    static func query(_ url: URL) -> [String: String] {
        Dictionary(
            (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map {
                ($0.name, $0.value ?? "")
            },
            uniquingKeysWith: { first, _ in first }
        )
    }

    @Test func pkceMatchesRFC7636AppendixB() {
        let verifier = CodeVerifier("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(PKCE.challenge(for: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func verifiersAre43UnreservedCharactersAndUnique() {
        var random = SystemRandomNumberGenerator()
        let verifiers = (0..<100).map { _ in PKCE.makeVerifier(using: &random).revealedValue }
        #expect(Set(verifiers).count == 100)
        let unreserved = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
        )
        for verifier in verifiers {
            #expect(verifier.count == 43)
            #expect(verifier.unicodeScalars.allSatisfy { unreserved.contains($0) })
        }
    }

    @Test func requestCarriesPKCEStateNonceAndExtras() throws {
        let request = try Self.client().makeAuthorizationRequest(loginHint: "ada@example.com")
        let query = Self.query(request.url)
        #expect(query["response_type"] == "code")
        #expect(query["client_id"] == "client-1")
        #expect(query["redirect_uri"] == "com.example.app:/oauth2redirect")
        #expect(query["code_challenge_method"] == "S256")
        #expect(query["code_challenge"] == PKCE.challenge(for: request.codeVerifier))
        #expect(query["state"] == request.state)
        #expect(query["nonce"] == request.nonce)
        #expect(query["scope"] == "openid email")
        #expect(query["login_hint"] == "ada@example.com")
        #expect(query["prompt"] == "consent")
        #expect(request.state.count >= 43)
        #expect(!request.description.contains(request.state))
        #expect(!String(describing: request).contains(request.codeVerifier.revealedValue))
    }

    func callback(_ request: AuthorizationRequest, _ items: [String: String]) -> URL {
        var components = URLComponents(url: request.redirectURI, resolvingAgainstBaseURL: false)!
        components.queryItems = items.map { URLQueryItem(name: $0.key, value: $0.value) }
        return components.url!
    }

    @Test func goodCallbackYieldsTheCode() throws {
        let request = try Self.client().makeAuthorizationRequest()
        let result = try request.callback(from: callback(request, ["code": "c-1", "state": request.state]))
        #expect(result.code == AuthorizationCode("c-1"))
    }

    @Test func stateMismatchIsRejectedBeforeAnythingElse() throws {
        let request = try Self.client().makeAuthorizationRequest()
        #expect(throws: OAuthError.stateMismatch) {
            try request.callback(from: callback(request, ["code": "c", "state": "forged"]))
        }
        #expect(throws: OAuthError.stateMismatch) {
            try request.callback(from: callback(request, ["error": "access_denied"]))
        }
    }

    @Test func errorCallbackIsTyped() throws {
        let request = try Self.client().makeAuthorizationRequest()
        #expect(throws: OAuthError.accessDenied) {
            try request.callback(from: callback(request, ["error": "access_denied", "state": request.state]))
        }
        do {
            _ = try request.callback(from: callback(request, ["error": "invalid_scope", "state": request.state]))
        } catch let error as OAuthError {
            #expect(error.errorCode == .invalidScope)
            #expect(error.classification == .configuration)
        }
    }

    @Test func missingCodeIsTyped() throws {
        let request = try Self.client().makeAuthorizationRequest()
        #expect(throws: OAuthError.missingCode) {
            try request.callback(from: callback(request, ["state": request.state]))
        }
    }

    @Test func issuerParameterIsChecked() throws {
        let request = try Self.client().makeAuthorizationRequest()
        #expect(throws: OAuthError.issuerMismatch) {
            try request.callback(
                from: callback(request, ["code": "c", "state": request.state, "iss": "https://evil.example"])
            )
        }
        let strict = try Self.client(issuerInResponse: true).makeAuthorizationRequest()
        #expect(throws: OAuthError.missingIssuer) {
            try strict.callback(from: callback(strict, ["code": "c", "state": strict.state]), requiringIssuer: true)
        }
        _ = try strict.callback(
            from: callback(strict, ["code": "c", "state": strict.state, "iss": "https://auth.example.com"]),
            requiringIssuer: true
        )
    }

    @Test func callbackTextIsSanitizedInErrors() throws {
        let request = try Self.client().makeAuthorizationRequest()
        let hostile = "\u{1B}[2J\u{1B}]0;owned\u{07}line one\nline two\u{202E}" + String(repeating: "x", count: 100_000)
        let mismatch = #expect(throws: OAuthError.issuerMismatch) {
            try request.callback(from: callback(request, ["code": "c", "state": request.state, "iss": hostile]))
        }
        let failed = #expect(throws: OAuthError.provider) {
            try request.callback(
                from: callback(
                    request,
                    [
                        "error": "server_error\u{1B}[31m", "error_description": hostile, "error_uri": hostile,
                        "state": request.state,
                    ]
                )
            )
        }
        for text in [mismatch?.message, failed?.message, failed?.errorDescription, failed?.errorURI] {
            let text = try #require(text)
            #expect(!text.contains("\u{1B}") && !text.contains("\n") && !text.contains("\u{202E}"))
            #expect(text.count < 400)
        }
        #expect(failed?.errorCode?.rawValue == "server_error[31m")
    }

    @Test func callbackToAnotherRedirectIsRejected() throws {
        let request = try Self.client().makeAuthorizationRequest()
        let other = URL(string: "com.example.other:/oauth2redirect?code=c&state=\(request.state)")!
        #expect(throws: OAuthError.callbackMismatch) { try request.callback(from: other) }
    }
}
