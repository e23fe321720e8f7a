import Foundation
import JWTTestSupport
import Testing
import Tether
import TetherJWT
import TetherOAuth
import TetherServer
import TetherTesting

/// The presets of `AccessTokenVerifier`, with keys served by a stub transport and a fixed wall clock.
struct AccessTokenVerifierTests {
    static func verifier(
        _ make: (StubTransport, DateSource) -> AccessTokenVerifier,
        key: TestKey
    ) -> (AccessTokenVerifier, StubTransport) {
        let transport = StubTransport.serving(KeyDocument(jwks(key)))
        return (make(transport, .constant(fixedNow)), transport)
    }

    static func accessClaims(_ overrides: [String: (any Sendable)?] = [:]) -> [String: any Sendable] {
        var result = claims(["aud": "https://api.test", "nonce": nil, "scope": "read write", "client_id": "app-1"])
        for (key, value) in overrides { result[key] = value }
        return result
    }

    static func oidc(_ transport: StubTransport, _ dateSource: DateSource) -> AccessTokenVerifier {
        .oidc(
            issuer: testIssuer,
            jwksURL: testKeysURL,
            audience: "https://api.test",
            transport: transport,
            dateSource: dateSource,
            clock: ManualClock()
        )
    }

    @Test func aJWTAccessTokenIsVerifiedWithItsScopesAndClient() async throws {
        let key = try await TestKey.rsa()
        let (verifier, _) = Self.verifier(Self.oidc, key: key)
        let token = try await key.sign(Self.accessClaims(), header: ["alg": "RS256", "kid": key.kid, "typ": "at+jwt"])
        let verified = try await verifier.verify(token.revealedValue)
        #expect(verified.subject == "user-1")
        #expect(verified.scopes == ["read", "write"])
        #expect(verified.clientID == "app-1")
    }

    @Test(arguments: ["at+jwt", "application/at+jwt", "AT+JWT"])
    func theAccessTokenMediaTypeIsAcceptedInAnySpelling(_ type: String) async throws {
        let key = try await TestKey.rsa()
        let (verifier, _) = Self.verifier(Self.oidc, key: key)
        let token = try await key.sign(Self.accessClaims(), header: ["alg": "RS256", "kid": key.kid, "typ": type])
        _ = try await verifier.verify(token.revealedValue)
    }

    @Test func anIDTokenIsNotAnAccessToken() async throws {
        let key = try await TestKey.rsa()
        let (verifier, _) = Self.verifier(Self.oidc, key: key)
        let token = try await key.sign(Self.accessClaims())
        await #expect(throws: AccessTokenError.invalid) { _ = try await verifier.verify(token.revealedValue) }
    }

    static func generic(acceptedTypes: Set<String>?? = nil) -> (StubTransport, DateSource) -> AccessTokenVerifier {
        { transport, dateSource in
            if let acceptedTypes {
                AccessTokenVerifier(
                    keySource: .jwks(testKeysURL),
                    issuer: testIssuer,
                    audiences: ["https://api.test"],
                    acceptedTypes: acceptedTypes,
                    transport: transport,
                    dateSource: dateSource,
                    clock: ManualClock()
                )
            } else {
                AccessTokenVerifier(
                    keySource: .jwks(testKeysURL),
                    issuer: testIssuer,
                    audiences: ["https://api.test"],
                    transport: transport,
                    dateSource: dateSource,
                    clock: ManualClock()
                )
            }
        }
    }

    @Test func theInitializerRefusesAnIDTokenUnlessToldToAcceptAnyType() async throws {
        let key = try await TestKey.rsa()
        let idToken = try await key.sign(Self.accessClaims())
        let accessToken = try await key.sign(
            Self.accessClaims(),
            header: ["alg": "RS256", "kid": key.kid, "typ": "application/at+jwt"]
        )

        let (byDefault, _) = Self.verifier(Self.generic(), key: key)
        #expect(byDefault.acceptedTypes == ["at+jwt"])
        _ = try await byDefault.verify(accessToken.revealedValue)
        let refused = await #expect(throws: AccessTokenError.invalid) {
            _ = try await byDefault.verify(idToken.revealedValue)
        }
        #expect(refused?.cause as? IDTokenError == .malformed)

        let (anyType, _) = Self.verifier(Self.generic(acceptedTypes: .some(nil)), key: key)
        #expect(try await anyType.verify(idToken.revealedValue).subject == "user-1")
    }

    @Test func keysOverPlainHTTPToAnotherHostAreNeverFetched() async throws {
        let key = try await TestKey.rsa()
        let transport = StubTransport.serving(KeyDocument(jwks(key)))
        let verifier = AccessTokenVerifier.oidc(
            issuer: testIssuer,
            jwksURL: URL(string: "http://issuer.test/keys")!,
            audience: "https://api.test",
            transport: transport,
            dateSource: .constant(fixedNow),
            clock: ManualClock()
        )
        let token = try await key.sign(Self.accessClaims(), header: ["alg": "RS256", "kid": key.kid, "typ": "at+jwt"])
        let error = await #expect(throws: AccessTokenError.keysUnavailable) {
            _ = try await verifier.verify(token.revealedValue)
        }
        #expect(error?.cause as? IDTokenError == .insecureKeySource)
        #expect(transport.requestCount == 0)
    }

    @Test func anExpiredTokenIsExpiredWithinTheSkewOnly() async throws {
        let key = try await TestKey.rsa()
        let (verifier, _) = Self.verifier(Self.oidc, key: key)
        let header: [String: any Sendable] = ["alg": "RS256", "kid": key.kid, "typ": "at+jwt"]
        let recent = try await key.sign(
            Self.accessClaims(["exp": fixedNow.timeIntervalSince1970 - 30]),
            header: header
        )
        _ = try await verifier.verify(recent.revealedValue)
        let old = try await key.sign(Self.accessClaims(["exp": fixedNow.timeIntervalSince1970 - 61]), header: header)
        let error = await #expect(throws: AccessTokenError.self) { try await verifier.verify(old.revealedValue) }
        #expect(error == .expired)
        #expect(error?.rfc6750Error == "invalid_token")
        #expect(error?.message == "The access token expired")
    }

    static func firebaseClaims(_ overrides: [String: (any Sendable)?] = [:]) -> [String: any Sendable] {
        var result = claims([
            "iss": "https://securetoken.google.com/proj", "aud": "proj", "nonce": nil,
            "auth_time": fixedNow.timeIntervalSince1970 - 120,
        ])
        for (key, value) in overrides { result[key] = value }
        return result
    }

    @Test func firebaseAcceptsItsTokensFromTheCertificateList() async throws {
        let key = try await TestKey.rsa()
        let certificates = String(
            decoding: try JSONSerialization.data(withJSONObject: ["rsa-a": Fixtures.rsaCertificateA]),
            as: UTF8.self
        )
        let transport = StubTransport.serving(KeyDocument(certificates))
        let verifier = AccessTokenVerifier.firebase(
            projectID: "proj",
            transport: transport,
            certificatesURL: testKeysURL,
            dateSource: .constant(fixedNow),
            clock: ManualClock()
        )
        let verified = try await verifier.verify(try await key.sign(Self.firebaseClaims()).revealedValue)
        #expect(verified.subject == "user-1")
        let noAuthTime = try await key.sign(Self.firebaseClaims(["auth_time": nil]))
        await #expect(throws: AccessTokenError.invalid) { _ = try await verifier.verify(noAuthTime.revealedValue) }
        let otherProject = try await key.sign(
            Self.firebaseClaims(["aud": "other", "iss": "https://securetoken.google.com/other"])
        )
        await #expect(throws: AccessTokenError.invalid) { _ = try await verifier.verify(otherProject.revealedValue) }
    }

    static func google(_ transport: StubTransport, _ dateSource: DateSource) -> AccessTokenVerifier {
        .google(
            clientIDs: ["server.apps.googleusercontent.com"],
            authorizedParties: ["android.apps.googleusercontent.com"],
            transport: transport,
            keysURL: testKeysURL,
            dateSource: dateSource,
            clock: ManualClock()
        )
    }

    @Test(arguments: ["https://accounts.google.com", "accounts.google.com"])
    func googleAcceptsBothIssuerSpellingsAndAConfiguredMobileAuthorizedParty(_ issuer: String) async throws {
        let key = try await TestKey.rsa()
        let (verifier, _) = Self.verifier(Self.google, key: key)
        let token = try await key.sign(
            claims([
                "iss": issuer, "aud": "server.apps.googleusercontent.com",
                "azp": "android.apps.googleusercontent.com", "nonce": nil,
            ])
        )
        #expect(
            try await verifier.verify(token.revealedValue).claims.authorizedParty
                == "android.apps.googleusercontent.com"
        )
    }

    @Test func googleRefusesAnUnknownAuthorizedParty() async throws {
        let key = try await TestKey.rsa()
        let (verifier, _) = Self.verifier(Self.google, key: key)
        let token = try await key.sign(
            claims([
                "iss": "https://accounts.google.com", "aud": "server.apps.googleusercontent.com",
                "azp": "someone-else.apps.googleusercontent.com", "nonce": nil,
            ])
        )
        await #expect(throws: AccessTokenError.invalid) { _ = try await verifier.verify(token.revealedValue) }
    }

    @Test func theClientSideCheckStillRequiresAzpToBeTheClient() {
        let claims = IDTokenClaims(
            issuer: testIssuer,
            subject: "user-1",
            audience: [testClientID],
            expiresAt: fixedNow.addingTimeInterval(60),
            issuedAt: fixedNow,
            authorizedParty: "someone-else"
        )
        #expect(throws: IDTokenError.wrongAuthorizedParty) {
            try claims.check(against: expectations(nonce: nil))
        }
    }

    @Test func appleChecksIssuerAndBundleID() async throws {
        let key = try await TestKey.rsa()
        let (verifier, _) = Self.verifier(
            { transport, dateSource in
                .apple(
                    bundleIDs: ["com.example.app"],
                    transport: transport,
                    keysURL: testKeysURL,
                    dateSource: dateSource,
                    clock: ManualClock()
                )
            },
            key: key
        )
        let good = try await key.sign(claims(["iss": "https://appleid.apple.com", "aud": "com.example.app"]))
        #expect(try await verifier.verify(good.revealedValue).subject == "user-1")
        let wrong = try await key.sign(claims(["iss": "https://appleid.apple.com", "aud": "com.example.other"]))
        let error = await #expect(throws: AccessTokenError.self) { try await verifier.verify(wrong.revealedValue) }
        #expect(error == .invalid)
        #expect(error?.message == "The access token is meant for another audience")
    }

    @Test func unreachableKeysAreTransient() async throws {
        let key = try await TestKey.rsa()
        let verifier = AccessTokenVerifier.oidc(
            issuer: testIssuer,
            jwksURL: testKeysURL,
            audience: "https://api.test",
            transport: StubTransport.failing(with: TransportError.cannotConnect),
            dateSource: .constant(fixedNow),
            clock: ManualClock()
        )
        let token = try await key.sign(Self.accessClaims(), header: ["alg": "RS256", "kid": key.kid, "typ": "at+jwt"])
        let error = await #expect(throws: AccessTokenError.self) { try await verifier.verify(token.revealedValue) }
        #expect(error == .keysUnavailable)
        #expect(error?.isTransient == true)
        #expect(error?.rfc6750Error == nil)
    }
}
