import Foundation
import Testing
import Tether

struct RedactionTests {
    static let secrets = ["at-CANARY-1111", "rt-CANARY-2222", "id-CANARY-3333"]

    static func makeConnection() -> Connection {
        Connection(
            id: "google",
            account: Account(providerID: "google", subject: "1234567890", displayIdentifier: "jane.doe@example.com"),
            tokens: TokenSet(
                accessToken: AccessToken(secrets[0]),
                refreshToken: RefreshToken(secrets[1]),
                idToken: IDToken(secrets[2]),
                scopes: ["openid", "email"],
                receivedAt: Date(timeIntervalSince1970: 1_767_225_600),
                expiresAt: Date(timeIntervalSince1970: 1_767_229_200)
            ),
            metadata: ["calendar": "primary"]
        )
    }

    static func renderings(of value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), dumped, "\(value)"]
    }

    @Test(arguments: [
        AnyRedacted(AccessToken("at-CANARY-1111")), AnyRedacted(RefreshToken("rt-CANARY-2222")),
        AnyRedacted(IDToken("id-CANARY-3333")), AnyRedacted(ClientSecret("cs-CANARY-4444")),
        AnyRedacted(AuthorizationCode("code-CANARY-5555")), AnyRedacted(CodeVerifier("cv-CANARY-6666")),
    ])
    func secretTypesNeverPrintTheirValue(_ secret: AnyRedacted) throws {
        for rendering in Self.renderings(of: secret.value) {
            #expect(!rendering.contains("CANARY"), "\(rendering)")
            #expect(rendering.contains("<redacted>"))
        }
        let json = try String(decoding: JSONEncoder().encode(secret.value), as: UTF8.self)
        #expect(!json.contains("CANARY"))
    }

    @Test func connectionAndTokenSetNeverPrintSecretsOrTheAddress() throws {
        let connection = Self.makeConnection()
        let plain = try String(decoding: JSONEncoder().encode(connection), as: UTF8.self)
        for rendering in Self.renderings(of: connection) + Self.renderings(of: connection.tokens) + [plain] {
            for secret in Self.secrets { #expect(!rendering.contains(secret), "\(rendering)") }
        }
        for rendering in Self.renderings(of: connection.account) {
            #expect(!rendering.contains("jane.doe@"))
        }
    }

    @Test func storageCodecKeepsSecretsAndRoundTrips() throws {
        let connection = Self.makeConnection().withVersion(7)
        let data = try ConnectionCodec.encode(connection)
        #expect(String(decoding: data, as: UTF8.self).contains(Self.secrets[1]))
        #expect(try ConnectionCodec.decode(data) == connection)
    }

    @Test func redactedJSONCannotBeMistakenForARecord() throws {
        let redacted = try JSONEncoder().encode(Self.makeConnection())
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Connection.self, from: redacted) }
    }

    @Test(arguments: [
        ("jane.doe@example.com", "j***@example.com"), ("j@example.com", "j***@example.com"),
        ("janedoe", "j***"), ("", "***"),
    ])
    func accountIdentifiersAreMasked(identifier: String, masked: String) {
        let account = Account(providerID: "google", subject: "1", displayIdentifier: identifier)
        #expect(account.maskedDisplayIdentifier == masked)
        #expect(account.description == "Account(google, \(masked))")
    }
}

/// A type-erased secret, for parameterised tests.
struct AnyRedacted: Sendable, CustomTestStringConvertible {
    let value: any SecretValue
    init(_ value: any SecretValue) { self.value = value }
    var testDescription: String { "\(type(of: value))" }
}
