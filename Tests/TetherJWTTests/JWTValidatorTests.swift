import Crypto
import Foundation
import HTTPTypes
import JWTTestSupport
import Testing
import Tether
import TetherJWT
import TetherOAuth

struct JWTValidatorTests {
    @Test func acceptsAValidRS256Token() async throws {
        let key = try await TestKey.rsa()
        let validator = makeValidator(transport: .serving(KeyDocument(jwks(key))))
        let result = try await validator.validate(try await key.sign(claims()), expecting: expectations())
        #expect(result.issuer == testIssuer)
        #expect(result.subject == "user-1")
        #expect(result.audience == [testClientID])
        #expect(result.expiresAt == fixedNow.addingTimeInterval(3600))
        #expect(result.issuedAt == fixedNow.addingTimeInterval(-60))
        #expect(result.nonce == "nonce-1")
        #expect(result.email == "user@example.test")
        #expect(result.emailVerified == true)
    }

    @Test func acceptsAValidES256Token() async throws {
        let key = try await TestKey.es256()
        let validator = makeValidator(transport: .serving(KeyDocument(jwks(key))))
        let result = try await validator.validate(try await key.sign(claims()), expecting: expectations())
        #expect(result.subject == "user-1")
    }

    @Test(arguments: ["RS384", "RS512", "PS256", "PS384", "PS512"])
    func acceptsOtherRSAAlgorithms(alg: String) async throws {
        let key = try await TestKey.rsa(alg: alg)
        let validator = makeValidator(transport: .serving(KeyDocument(jwks(key))))
        _ = try await validator.validate(try await key.sign(claims()), expecting: expectations())
    }

    @Test func acceptsAnEdDSAToken() async throws {
        let key = try await TestKey.edDSA()
        let validator = makeValidator(transport: .serving(KeyDocument(jwks(key))))
        _ = try await validator.validate(try await key.sign(claims()), expecting: expectations())
    }

    @Test func keyWithoutDeclaredAlgorithmAcceptsAnyAlgorithmOfItsType() async throws {
        let signer = try await TestKey.rsa(alg: "PS256")
        let published = try await TestKey.rsa(alg: "PS256", declaresAlgorithm: false)
        let validator = makeValidator(transport: .serving(KeyDocument(jwks(published))))
        _ = try await validator.validate(try await signer.sign(claims()), expecting: expectations())
    }

    @Test func rejectsATokenSignedByAnotherKeyWithTheSameKid() async throws {
        let genuine = try await TestKey.rsa()
        let impostor = try await TestKey.rsa(Fixtures.rsaPrivateKeyB)
        let validator = makeValidator(transport: .serving(KeyDocument(jwks(genuine))))
        await #expect(throws: IDTokenError.badSignature) {
            try await validator.validate(try await impostor.sign(claims()), expecting: expectations())
        }
    }

    @Test func rejectsATokenWhoseClaimsWereAltered() async throws {
        let key = try await TestKey.rsa()
        let validator = makeValidator(transport: .serving(KeyDocument(jwks(key))))
        let parts = try await key.sign(claims()).revealedValue.split(separator: ".")
        let forged = try encodeJSON(claims(["sub": "admin"]))
        await #expect(throws: IDTokenError.badSignature) {
            try await validator.validate(IDToken("\(parts[0]).\(forged).\(parts[2])"), expecting: expectations())
        }
    }

    @Test func rejectsAlgNone() async throws {
        let key = try await TestKey.rsa()
        let transport = StubTransport.serving(KeyDocument(jwks(key)))
        let validator = makeValidator(transport: transport)
        let token = rawToken(header: #"{"alg":"none","kid":"rsa-a"}"#, claims: "{}", signature: "")
        await #expect(throws: IDTokenError.unsupportedAlgorithm) {
            try await validator.validate(token, expecting: expectations())
        }
        #expect(transport.requestCount == 0)
    }

    @Test func rejectsHS256SignedWithThePublicKey() async throws {
        let key = try await TestKey.rsa()
        let validator = makeValidator(transport: .serving(KeyDocument(jwks(key))))
        // The classic key-confusion attack: a MAC keyed with the (public) RSA key material.
        let header = try encodeJSON(["alg": "HS256", "kid": "rsa-a"])
        let payload = try encodeJSON(claims())
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(header).\(payload)".utf8),
            using: SymmetricKey(data: Data(key.publicJWK.utf8))
        )
        let token = IDToken("\(header).\(payload).\(b64url(Data(mac)))")
        await #expect(throws: IDTokenError.unsupportedAlgorithm) {
            try await validator.validate(token, expecting: expectations())
        }
    }

    @Test func rejectsAnAlgorithmOtherThanTheKeyDeclares() async throws {
        // The key is published for RS256; the token claims PS256 (signed with the same key material).
        let published = try await TestKey.rsa(alg: "RS256")
        let signer = try await TestKey.rsa(alg: "PS256")
        let validator = makeValidator(transport: .serving(KeyDocument(jwks(published))))
        await #expect(throws: IDTokenError.unsupportedAlgorithm) {
            try await validator.validate(try await signer.sign(claims()), expecting: expectations())
        }
    }

    @Test func rejectsAnAlgorithmThatDoesNotFitTheKeyType() async throws {
        let published = try await TestKey.rsa(declaresAlgorithm: false)
        let validator = makeValidator(transport: .serving(KeyDocument(jwks(published))))
        let token = rawToken(header: #"{"alg":"ES256","kid":"rsa-a"}"#, claims: "{}")
        await #expect(throws: IDTokenError.unsupportedAlgorithm) {
            try await validator.validate(token, expecting: expectations())
        }
    }

    static let malformedTokens: [(String, IDToken)] = [
        ("empty", IDToken("")),
        ("two parts", IDToken("eyJhbGciOiJSUzI1NiJ9.e30")),
        ("four parts", IDToken("eyJhbGciOiJSUzI1NiJ9.e30.c2ln.c2ln")),
        ("bad base64", IDToken("eyJhbGciOiJSUzI1NiJ9.e3!0.c2ln")),
        ("padded base64", IDToken("eyJhbGciOiJSUzI1NiJ9.e30=.c2ln")),
        ("bad signature base64", IDToken("eyJhbGciOiJSUzI1NiJ9.e30.c2l*")),
        ("header not JSON", rawToken(header: "not json", claims: "{}")),
        ("header without alg", rawToken(header: #"{"kid":"rsa-a"}"#, claims: "{}")),
        ("header is an array", rawToken(header: #"["RS256"]"#, claims: "{}")),
        ("critical header", rawToken(header: #"{"alg":"RS256","crit":["exp"],"exp":1}"#, claims: "{}")),
        ("claims not JSON", rawToken(header: #"{"alg":"RS256","kid":"rsa-a"}"#, claims: "not json")),
        ("claims an array", rawToken(header: #"{"alg":"RS256","kid":"rsa-a"}"#, claims: "[]")),
        ("exp a string", rawToken(header: #"{"alg":"RS256","kid":"rsa-a"}"#, claims: #"{"exp":"soon"}"#)),
        ("aud a number", rawToken(header: #"{"alg":"RS256","kid":"rsa-a"}"#, claims: #"{"aud":7}"#)),
    ]

    @Test(arguments: malformedTokens)
    func rejectsMalformedTokens(name: String, token: IDToken) async throws {
        let key = try await TestKey.rsa()
        let transport = StubTransport.serving(KeyDocument(jwks(key)))
        let validator = makeValidator(transport: transport)
        await #expect(throws: IDTokenError.malformed, "\(name)") {
            try await validator.validate(token, expecting: expectations())
        }
        #expect(transport.requestCount == 0)
    }

    @Test(arguments: ["iss", "sub", "aud", "exp", "iat"])
    func rejectsATokenWithoutARequiredClaim(claim: String) async throws {
        let key = try await TestKey.rsa()
        let validator = makeValidator(transport: .serving(KeyDocument(jwks(key))))
        await #expect(throws: IDTokenError.malformed) {
            try await validator.validate(try await key.sign(claims([claim: nil])), expecting: expectations())
        }
    }

    @Test func errorsAndLogsNeverContainTheToken() async throws {
        let key = try await TestKey.rsa()
        let impostor = try await TestKey.rsa(Fixtures.rsaPrivateKeyB)
        let logs = InMemoryLogRecorder()
        let validator = makeValidator(transport: .serving(KeyDocument(jwks(key))), logger: logs.logger)
        let tokens: [(IDToken, IDTokenExpectations)] = [
            (try await impostor.sign(claims()), expectations()),
            (try await key.sign(claims()), expectations(nonce: "other")),
            (try await key.sign(claims(["exp": 1.0])), expectations()),
            (try await key.sign(claims(), header: ["alg": "HS256", "kid": "rsa-a"]), expectations()),
            (rawToken(header: #"{"alg":"RS256","kid":"rsa-a"}"#, claims: #"{"exp":"secret-canary"}"#), expectations()),
            (try await key.sign(claims(), header: ["alg": "RS256", "kid": "unknown"]), expectations()),
        ]
        for (token, expectations) in tokens {
            let error = try await #require(throws: IDTokenError.self) {
                try await validator.validate(token, expecting: expectations)
            }
            let parts = token.revealedValue.split(separator: ".").map(String.init)
            for text in ["\(error)", String(reflecting: error), error.message, "\(error.cause.map { "\($0)" } ?? "")"] {
                #expect(!text.contains(token.revealedValue))
                for part in parts where part.count > 8 { #expect(!text.contains(part)) }
                #expect(!text.contains("secret-canary"))
            }
        }
        for entry in logs.entries {
            for token in tokens.map(\.0) { #expect(!entry.contains(token.revealedValue)) }
            #expect(!entry.contains("secret-canary"))
        }
        #expect(!logs.entries.isEmpty)
    }
}
