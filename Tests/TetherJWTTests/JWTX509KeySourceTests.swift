import Foundation
import HTTPTypes
import JWTKit
import JWTTestSupport
import Testing
import Tether
import TetherJWT
import TetherOAuth
import TetherTesting

/// Firebase-style key lists: `{ "<kid>": "-----BEGIN CERTIFICATE-----…" }`.
struct JWTX509KeySourceTests {
    private static let certificatesURL = URL(
        string: "https://www.googleapis.test/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
    )!
    private static let projectID = "tether-test"

    private func certificateList(_ entries: [String: String]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: entries, options: [.sortedKeys]), as: UTF8.self)
    }

    private func firebaseExpectations() -> IDTokenExpectations {
        IDTokenExpectations(
            issuer: "https://securetoken.google.com/\(Self.projectID)",
            audience: Self.projectID,
            now: fixedNow
        )
    }

    private func firebaseClaims(_ overrides: [String: (any Sendable)?] = [:]) -> [String: any Sendable] {
        var values: [String: (any Sendable)?] = [
            "iss": "https://securetoken.google.com/\(Self.projectID)", "aud": Self.projectID, "sub": "uid-1",
            "auth_time": fixedNow.timeIntervalSince1970 - 600, "nonce": nil, "user_id": "uid-1",
        ]
        values.merge(overrides) { $1 }
        return claims(values)
    }

    @Test func verifiesRS256WithAnRSACertificate() async throws {
        let key = try await TestKey.rsa(kid: "cert-a")
        let document = KeyDocument(
            try certificateList(["cert-a": Fixtures.rsaCertificateA, "other": "not a certificate"])
        )
        let transport = StubTransport.serving(document, cacheControl: "public, max-age=19800, must-revalidate")
        let validator = makeValidator(
            transport: transport,
            source: .x509Certificates(Self.certificatesURL),
            extraRules: .firebase
        )
        let result = try await validator.validate(
            try await key.sign(firebaseClaims()),
            expecting: firebaseExpectations()
        )
        #expect(result.subject == "uid-1")
        #expect(transport.requestCount == 1)
    }

    @Test func verifiesES256WithAnECCertificate() async throws {
        let key = try await TestKey.es256(kid: "cert-c", pem: Fixtures.ecPrivateKeyC)
        let document = KeyDocument(try certificateList(["cert-c": Fixtures.ecCertificateC]))
        let validator = makeValidator(transport: .serving(document), source: .x509Certificates(Self.certificatesURL))
        _ = try await validator.validate(try await key.sign(firebaseClaims()), expecting: firebaseExpectations())
    }

    @Test func rejectsATokenSignedByAnotherKey() async throws {
        let impostor = try await TestKey.rsa(Fixtures.rsaPrivateKeyB, kid: "cert-a")
        let document = KeyDocument(try certificateList(["cert-a": Fixtures.rsaCertificateA]))
        let validator = makeValidator(transport: .serving(document), source: .x509Certificates(Self.certificatesURL))
        await #expect(throws: IDTokenError.badSignature) {
            try await validator.validate(try await impostor.sign(firebaseClaims()), expecting: firebaseExpectations())
        }
    }

    @Test func rsaCertificatesVerifyOnlyRS256() async throws {
        let key = try await TestKey.rsa(kid: "cert-a", alg: "PS256")
        let document = KeyDocument(try certificateList(["cert-a": Fixtures.rsaCertificateA]))
        let validator = makeValidator(transport: .serving(document), source: .x509Certificates(Self.certificatesURL))
        await #expect(throws: IDTokenError.unsupportedAlgorithm) {
            try await validator.validate(try await key.sign(firebaseClaims()), expecting: firebaseExpectations())
        }
    }

    @Test func unknownKidRefetchesTheCertificateList() async throws {
        let key = try await TestKey.rsa(kid: "cert-a")
        let document = KeyDocument(try certificateList([:]))
        let transport = StubTransport.serving(document)
        let clock = ManualClock()
        let validator = makeValidator(
            transport: transport,
            clock: clock,
            source: .x509Certificates(Self.certificatesURL)
        )
        await #expect(throws: IDTokenError.unknownKey) {
            try await validator.validate(try await key.sign(firebaseClaims()), expecting: firebaseExpectations())
        }
        document.json = try certificateList(["cert-a": Fixtures.rsaCertificateA])
        clock.advance(by: .seconds(60))
        _ = try await validator.validate(try await key.sign(firebaseClaims()), expecting: firebaseExpectations())
        #expect(transport.requestCount == 2)
    }

    @Test func aMalformedCertificateListIsKeysUnavailable() async throws {
        let key = try await TestKey.rsa(kid: "cert-a")
        let validator = makeValidator(
            transport: .serving(KeyDocument(#"{"keys":[]}"#)),
            source: .x509Certificates(Self.certificatesURL)
        )
        await #expect(throws: IDTokenError.keysUnavailable) {
            try await validator.validate(try await key.sign(firebaseClaims()), expecting: firebaseExpectations())
        }
    }

    @Test func keySourceDescriptionHasNoQuery() {
        let source = SigningKeySource.jwks(URL(string: "https://issuer.test/keys?key=secret")!)
        #expect(source.description == "JWKS at https://issuer.test/keys")
    }
}
