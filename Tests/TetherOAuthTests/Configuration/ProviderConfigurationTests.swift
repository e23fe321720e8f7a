import Foundation
import HTTPTypes
import Testing
import Tether
import TetherTestSupport

@testable import TetherOAuth

struct ProviderConfigurationTests {
    static func make(
        clientID: String = "client-1",
        redirect: String? = "com.example.app:/oauth2redirect",
        token: String = "https://auth.example.com/token"
    ) -> ProviderConfiguration {
        ProviderConfiguration(
            providerID: "example",
            issuer: "https://auth.example.com",
            authorizationEndpoint: URL(string: "https://auth.example.com/authorize"),
            tokenEndpoint: URL(string: token)!,
            clientID: clientID,
            scopes: ["openid", "email"],
            redirectURI: redirect.flatMap(URL.init(string:))
        )
    }

    @Test func validConfigurationPasses() throws {
        try Self.make().validate()
        try Self.make(redirect: "http://127.0.0.1:8123/callback").validate()
        try Self.make(redirect: "http://[::1]/callback").validate()
        try Self.make(redirect: "https://app.example.com/callback").validate()
        try Self.make(redirect: "com.googleusercontent.apps.123-abc:/oauth2redirect").validate()
        try Self.make(redirect: "msauth.com.example.app://auth").validate()
        try Self.make(token: "http://127.0.0.1:9000/token").validate()
    }

    @Test func missingClientIDIsNamed() {
        #expect(throws: ProviderConfigurationError.missingClientID) { try Self.make(clientID: " ").validate() }
        do {
            try Self.make(clientID: "").validate()
        } catch let error as ProviderConfigurationError {
            #expect(error.message.contains("client id"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test(arguments: [
        ("https:/app.example.com/callback", "did you mean 'https://app.example.com/callback'"),
        ("http:/127.0.0.1/callback", "did you mean 'http://127.0.0.1/callback'"),
        ("myapp:/callback", "reverse-DNS"),
        ("com.example.app:", "no path"),
        ("https://app.example.com/cb#frag", "fragment"),
    ])
    func malformedRedirectURIsSayWhatIsWrong(redirect: String, hint: String) {
        do {
            try Self.make(redirect: redirect).validate()
            Issue.record("\(redirect) was accepted")
        } catch let error as ProviderConfigurationError {
            #expect(error == .malformedRedirectURI)
            #expect(error.message.contains(hint), "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func plainHTTPIsOnlyForLoopback() {
        #expect(throws: ProviderConfigurationError.insecureEndpoint) {
            try Self.make(redirect: "http://app.example.com/callback").validate()
        }
        #expect(throws: ProviderConfigurationError.insecureEndpoint) {
            try Self.make(token: "http://auth.example.com/token").validate()
        }
        #expect(throws: ProviderConfigurationError.insecureEndpoint) {
            try Self.make(token: "http://127.evil.example/token").validate()
        }
        #expect(throws: ProviderConfigurationError.invalidEndpoint) {
            try Self.make(token: "ftp://auth.example.com/token").validate()
        }
    }

    @Test func scopesWithSpacesAreRejected() {
        var configuration = Self.make()
        configuration.scopes = ["openid email"]
        #expect(throws: ProviderConfigurationError.invalidScope) { try configuration.validate() }
    }

    @Test func secretAuthenticationNeedsASecret() {
        var configuration = Self.make()
        configuration.clientAuthentication = .secretBasic
        #expect(throws: ProviderConfigurationError.missingClientSecret) { try configuration.validate() }
    }

    @Test func clientRefusesAnInvalidConfigurationBeforeAnyRequest() {
        let transport = CountingTransport()
        #expect(throws: ProviderConfigurationError.missingClientID) {
            _ = try OAuthClient(configuration: Self.make(clientID: ""), transport: transport)
        }
        #expect(transport.count == 0)
    }

    @Test func jsonFileLoadsAndUnknownParametersAreRejected() throws {
        let json = """
            {"provider_id":"example","issuer":"https://auth.example.com",
             "authorization_endpoint":"https://auth.example.com/authorize",
             "token_endpoint":"https://auth.example.com/token","client_id":"abc",
             "scopes":"openid email","redirect_uri":"com.example.app:/cb",
             "authorization_parameters":{"prompt":"consent"}}
            """
        let configuration = try ProviderConfiguration.decode(Data(json.utf8))
        #expect(configuration.scopes == ["openid", "email"])
        #expect(configuration.additionalAuthorizationParameters == ["prompt": "consent"])
        #expect(configuration.clientAuthentication == .none)

        let typo = #"{"token_endpoint":"https://auth.example.com/token","client_id":"abc","client_secert":"x"}"#
        do {
            _ = try ProviderConfiguration.decode(Data(typo.utf8))
            Issue.record("typo accepted")
        } catch let error as ProviderConfigurationError {
            #expect(error == .unknownParameter)
            #expect(error.message.contains("client_secert"))
        }
        #expect(throws: ProviderConfigurationError.unreadable) { try ProviderConfiguration.decode(Data("{".utf8)) }
        #expect(throws: ProviderConfigurationError.missingEndpoint) {
            try ProviderConfiguration.decode(Data(#"{"client_id":"abc"}"#.utf8))
        }
    }

    @Test func encodingRedactsTheClientSecret() throws {
        var configuration = Self.make()
        configuration.clientSecret = ClientSecret("cs-CANARY")
        let json = String(decoding: try JSONEncoder().encode(configuration), as: UTF8.self)
        #expect(!json.contains("cs-CANARY"))
        #expect(!String(describing: configuration).contains("cs-CANARY"))
    }
}
