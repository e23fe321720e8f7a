import Crypto
import Foundation
import Testing
import Tether

@testable import TetherOAuth

struct PresetTests {
    @Test func googleInstalledAppDefaultsToTheReversedClientIDRedirect() throws {
        let configuration = ProviderConfiguration.google(clientID: "123-abc.apps.googleusercontent.com")
        try configuration.validate()
        #expect(configuration.redirectURI?.absoluteString == "com.googleusercontent.apps.123-abc:/oauth2redirect")
        #expect(configuration.issuer == "https://accounts.google.com")
        #expect(configuration.alternativeIssuers == ["accounts.google.com"])
        #expect(configuration.revocationEndpoint?.absoluteString == "https://oauth2.googleapis.com/revoke")
        #expect(configuration.clientAuthentication == .none)
    }

    @Test func googleDesktopClientWithSecretPostsIt() throws {
        let configuration = ProviderConfiguration.google(
            clientID: "123-abc.apps.googleusercontent.com",
            clientSecret: ClientSecret("GOCSPX-secret"),
            redirectURI: URL(string: "http://127.0.0.1/callback")
        )
        try configuration.validate()
        #expect(configuration.clientAuthentication == .secretPost)
    }

    @Test(arguments: [
        (ProviderConfiguration.MicrosoftTenant.common, "https://login.microsoftonline.com/{tenantid}/v2.0"),
        (.organizations, "https://login.microsoftonline.com/{tenantid}/v2.0"),
        (.consumers, "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0"),
        (.init("contoso.onmicrosoft.com"), "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0"),
    ])
    func microsoftTenantsAndOfflineAccess(tenant: ProviderConfiguration.MicrosoftTenant, issuer: String) throws {
        let configuration = ProviderConfiguration.microsoft(
            tenant: tenant,
            clientID: "00000000-0000-0000-0000-000000000001",
            redirectURI: URL(string: "http://localhost/callback"),
            scopes: ["openid", "Calendars.Read"]
        )
        try configuration.validate()
        #expect(configuration.scopes.contains("offline_access"))
        #expect(configuration.issuer == issuer)
        #expect(
            configuration.tokenEndpoint.absoluteString
                == "https://login.microsoftonline.com/\(tenant)/oauth2/v2.0/token"
        )
    }

    @Test func microsoftTemplateIssuerMatchesTheTokensTenant() throws {
        let claims = IDTokenClaims(
            issuer: "https://login.microsoftonline.com/72f988bf-0000-0000-0000-2d7cd011db47/v2.0",
            subject: "s",
            audience: ["client"],
            expiresAt: Date(timeIntervalSince1970: 2_000),
            issuedAt: Date(timeIntervalSince1970: 1_000),
            tenantID: "72f988bf-0000-0000-0000-2d7cd011db47"
        )
        try claims.check(
            against: IDTokenExpectations(
                issuer: "https://login.microsoftonline.com/{tenantid}/v2.0",
                audience: "client",
                now: Date(timeIntervalSince1970: 1_500)
            )
        )
    }

    @Test func firebasePutsTheAPIKeyInTheEndpointAndNoClientIDInTheBody() throws {
        let configuration = ProviderConfiguration.firebase(apiKey: "AIza-test", projectID: "demo-project")
        try configuration.validate()
        #expect(
            configuration.tokenEndpoint.absoluteString == "https://securetoken.googleapis.com/v1/token?key=AIza-test"
        )
        #expect(configuration.clientAuthentication == .apiKey)
        #expect(configuration.idTokenIsAccessToken)
        #expect(configuration.issuer == "https://securetoken.google.com/demo-project")
    }

    @Test func appleClientSecretIsAnES256JWTWithApplesClaims() throws {
        let key = P256.Signing.PrivateKey()
        let maker = try AppleClientSecret(
            teamID: "TEAM123456",
            keyID: "KEY1234567",
            clientID: "com.example.service",
            privateKeyPEM: key.pemRepresentation,
            lifetime: .seconds(600)
        )
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        let jwt = try maker.make(now: now).revealedValue
        let parts = jwt.split(separator: ".")
        #expect(parts.count == 3)
        let headerData = try #require(Base64URL.decode(parts[0]))
        let header = try #require(JSONValue.object(from: headerData))
        #expect(header["alg"]?.string == "ES256")
        #expect(header["kid"]?.string == "KEY1234567")
        let claimsData = try #require(Base64URL.decode(parts[1]))
        let claims = try #require(JSONValue.object(from: claimsData))
        #expect(claims["iss"]?.string == "TEAM123456")
        #expect(claims["sub"]?.string == "com.example.service")
        #expect(claims["aud"]?.string == "https://appleid.apple.com")
        #expect(claims["iat"]?.number == 1_767_225_600)
        #expect(claims["exp"]?.number == 1_767_226_200)
        let signatureData = try #require(Base64URL.decode(parts[2]))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureData)
        #expect(key.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
        #expect(!maker.description.contains("PRIVATE"))
    }

    @Test func appleClientSecretRefusesOverlongLifetimesAndBadKeys() {
        #expect(throws: ProviderConfigurationError.invalidValue) {
            try AppleClientSecret(
                teamID: "T",
                keyID: "K",
                clientID: "c",
                privateKey: P256.Signing.PrivateKey(),
                lifetime: .seconds(15_777_001)
            )
        }
        #expect(throws: ProviderConfigurationError.invalidValue) {
            try AppleClientSecret(teamID: "T", keyID: "K", clientID: "c", privateKeyPEM: "not a key")
        }
    }

    @Test func appleGrantCheckMapsCredentialStates() async throws {
        struct Reader: AppleCredentialStateReading {
            let state: AppleCredentialState
            func credentialState(forUserID userID: String, connection: Connection) async throws -> AppleCredentialState
            {
                state
            }
        }
        let connection = Connection(
            id: "apple",
            account: Account(providerID: "apple", subject: "001234.abc"),
            tokens: TokenSet(
                accessToken: AccessToken("a"),
                refreshToken: RefreshToken("r"),
                receivedAt: Date(timeIntervalSince1970: 0),
                expiresAt: nil
            )
        )
        #expect(try await AppleGrantCheck(reader: Reader(state: .authorized)).grantStatus(of: connection) == .active)
        #expect(try await AppleGrantCheck(reader: Reader(state: .transferred)).grantStatus(of: connection) == .active)
        guard case .revoked = try await AppleGrantCheck(reader: Reader(state: .revoked)).grantStatus(of: connection)
        else {
            Issue.record("revoked credential kept the grant")
            return
        }
        guard case .revoked = try await AppleGrantCheck(reader: Reader(state: .notFound)).grantStatus(of: connection)
        else {
            Issue.record("unknown credential kept the grant")
            return
        }
    }
}
