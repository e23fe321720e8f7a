import Foundation
import HTTPTypes
import JWTTestSupport
import Testing
import Tether
import TetherJWT
import TetherOAuth
import TetherTestSupport
import TetherTesting

struct JWTKeyCacheTests {
    /// Expects a token signed with `key` to be refused: signed with an unknown key.
    static func expectUnknownKey(
        _ key: TestKey,
        _ validator: JWKSIDTokenValidator,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        await #expect(throws: IDTokenError.unknownKey, sourceLocation: sourceLocation) {
            try await validator.validate(try await key.sign(claims()), expecting: expectations())
        }
    }

    @Test func fetchesLazilyAndReusesTheCache() async throws {
        let key = try await TestKey.rsa()
        let transport = StubTransport.serving(KeyDocument(jwks(key)))
        let validator = makeValidator(transport: transport)
        #expect(transport.requestCount == 0)
        for _ in 0..<3 {
            _ = try await validator.validate(try await key.sign(claims()), expecting: expectations())
        }
        #expect(transport.requestCount == 1)
    }

    /// Each unknown `kid` fetches the set once per interval, at once (a rotation is found without waiting), and no
    /// more (docs/decisions.md §32).
    @Test func eachUnknownKidRefetchesOncePerInterval() async throws {
        let key = try await TestKey.rsa()
        let stranger = try await TestKey.es256(kid: "stranger")
        let transport = StubTransport.serving(KeyDocument(jwks(key)))
        let clock = ManualClock()
        let validator = makeValidator(transport: transport, clock: clock)
        _ = try await validator.validate(try await key.sign(claims()), expecting: expectations())
        #expect(transport.requestCount == 1)

        clock.advance(by: .seconds(61))
        await Self.expectUnknownKey(stranger, validator)
        #expect(transport.requestCount == 2)

        let other = try await TestKey.es256(kid: "another-stranger")
        clock.advance(by: .seconds(30))
        await Self.expectUnknownKey(other, validator)
        #expect(transport.requestCount == 3)

        // The same unknown kid within the interval does not fetch again.
        clock.advance(by: .seconds(31))
        await Self.expectUnknownKey(other, validator)
        #expect(transport.requestCount == 3)
    }

    @Test func unknownKidRightAfterTheFirstFetchDoesNotFetchAgain() async throws {
        let key = try await TestKey.rsa()
        let stranger = try await TestKey.es256(kid: "stranger")
        let transport = StubTransport.serving(KeyDocument(jwks(key)))
        let validator = makeValidator(transport: transport)
        await Self.expectUnknownKey(stranger, validator)
        await Self.expectUnknownKey(stranger, validator)
        #expect(transport.requestCount == 1)
    }

    @Test func acceptsARotatedKeyAfterTheRefetch() async throws {
        let old = try await TestKey.rsa()
        let new = try await TestKey.es256(kid: "rotated")
        let document = KeyDocument(jwks(old))
        let transport = StubTransport.serving(document)
        let clock = ManualClock()
        let validator = makeValidator(transport: transport, clock: clock)
        _ = try await validator.validate(try await old.sign(claims()), expecting: expectations())

        document.json = jwks(new)
        clock.advance(by: .seconds(60))
        let result = try await validator.validate(try await new.sign(claims()), expecting: expectations())
        #expect(result.subject == "user-1")
        #expect(transport.requestCount == 2)
    }

    /// `max-age` decides how long keys are kept, up to a day.
    @Test(arguments: [("public, max-age=300", 300), ("max-age=99999999999999999999999", 86_400)])
    func honoursMaxAgeUpToADay(cacheControl: String, seconds: Int64) async throws {
        let key = try await TestKey.rsa()
        let transport = StubTransport.serving(KeyDocument(jwks(key)), cacheControl: cacheControl)
        let clock = ManualClock()
        let validator = makeValidator(transport: transport, clock: clock)
        _ = try await validator.validate(try await key.sign(claims()), expecting: expectations())
        clock.advance(by: .seconds(seconds - 1))
        _ = try await validator.validate(try await key.sign(claims()), expecting: expectations())
        #expect(transport.requestCount == 1)
        clock.advance(by: .seconds(1))
        _ = try await validator.validate(try await key.sign(claims()), expecting: expectations())
        #expect(transport.requestCount == 2)
    }

    @Test(arguments: ["http://issuer.test/keys", "http://192.168.1.10/keys", "http://[2001:db8::1]/keys"])
    func keysOverPlainHTTPToAnotherHostAreRefused(url: String) async throws {
        let key = try await TestKey.rsa()
        let transport = StubTransport.serving(KeyDocument(jwks(key)))
        let validator = makeValidator(transport: transport, source: .jwks(try #require(URL(string: url))))
        await #expect(throws: IDTokenError.insecureKeySource) {
            try await validator.validate(try await key.sign(claims()), expecting: expectations())
        }
        #expect(transport.requestCount == 0)
    }

    @Test(arguments: [
        "http://127.0.0.1:8123/keys", "http://127.8.9.10/keys", "http://[::1]:80/keys", "http://localhost/k",
    ])
    func keysOverPlainHTTPToLoopbackAreFetched(url: String) async throws {
        let key = try await TestKey.rsa()
        let transport = StubTransport.serving(KeyDocument(jwks(key)))
        let validator = makeValidator(transport: transport, source: .jwks(try #require(URL(string: url))))
        _ = try await validator.validate(try await key.sign(claims()), expecting: expectations())
        #expect(transport.requestCount == 1)
    }

    @Test func usesTheDefaultLifetimeWithoutMaxAge() async throws {
        let key = try await TestKey.rsa()
        let transport = StubTransport.serving(KeyDocument(jwks(key)))
        let clock = ManualClock()
        let validator = makeValidator(transport: transport, clock: clock)
        _ = try await validator.validate(try await key.sign(claims()), expecting: expectations())
        clock.advance(by: .seconds(3599))
        _ = try await validator.validate(try await key.sign(claims()), expecting: expectations())
        #expect(transport.requestCount == 1)
        clock.advance(by: .seconds(1))
        _ = try await validator.validate(try await key.sign(claims()), expecting: expectations())
        #expect(transport.requestCount == 2)
    }

    /// A validator whose key fetch waits until the gate opens, and a token signed with the key it will serve.
    static func gatedFetch() async throws -> (Gate, StubTransport, JWKSIDTokenValidator, IDToken) {
        let key = try await TestKey.rsa()
        let gate = Gate()
        let body = Data(jwks(key).utf8)
        let transport = StubTransport { _ in
            await gate.wait()
            return (HTTPResponse(status: .ok), body)
        }
        return (gate, transport, makeValidator(transport: transport), try await key.sign(claims()))
    }

    @Test func concurrentValidationsShareOneFetch() async throws {
        let (gate, transport, validator, token) = try await Self.gatedFetch()
        try await withThrowingTaskGroup(of: IDTokenClaims.self) { group in
            for _ in 0..<50 {
                group.addTask { try await validator.validate(token, expecting: expectations()) }
            }
            while transport.requestCount == 0 { await Task.yield() }
            for _ in 0..<100 { await Task.yield() }
            gate.open()
            var results = 0
            for try await _ in group { results += 1 }
            #expect(results == 50)
        }
        #expect(transport.requestCount == 1)
    }

    @Test func aCancelledWaiterDoesNotCancelTheSharedFetch() async throws {
        let (gate, transport, validator, token) = try await Self.gatedFetch()
        let impatient = Task { try await validator.validate(token, expecting: expectations()) }
        while transport.requestCount == 0 { await Task.yield() }
        impatient.cancel()
        await #expect(throws: CancellationError.self) { try await impatient.value }
        let patient = Task { try await validator.validate(token, expecting: expectations()) }
        gate.open()
        _ = try await patient.value
        #expect(transport.requestCount == 1)
    }

    static let failures: [(String, StubTransport)] = [
        ("unreachable", .failing(with: TransportError.cannotConnect)),
        ("HTTP 500", .status(.internalServerError)),
        ("HTTP 404", .status(.notFound)),
        ("malformed JSON", .serving(KeyDocument("{not json"))),
        ("not a JWKS", .serving(KeyDocument(#"{"keys":"none"}"#))),
    ]

    @Test(arguments: failures)
    func failsWithKeysUnavailable(name: String, transport: StubTransport) async throws {
        let key = try await TestKey.rsa()
        let validator = makeValidator(transport: transport)
        let error = try await #require(throws: IDTokenError.self, "\(name)") {
            try await validator.validate(try await key.sign(claims()), expecting: expectations())
        }
        #expect(error == .keysUnavailable)
        #expect(error.isTransient)
    }

    @Test func aFailedRefetchKeepsTheCachedKeys() async throws {
        let key = try await TestKey.rsa()
        let failing = LockedState(false)
        let body = Data(jwks(key).utf8)
        let transport = StubTransport { _ in
            if failing.withLock({ $0 }) { throw TransportError.cannotConnect }
            var response = HTTPResponse(status: .ok)
            response.headerFields[.cacheControl] = "max-age=60"
            return (response, body)
        }
        let clock = ManualClock()
        let validator = makeValidator(transport: transport, clock: clock)
        _ = try await validator.validate(try await key.sign(claims()), expecting: expectations())
        failing.withLock { $0 = true }
        clock.advance(by: .seconds(120))
        // The cache expired and the re-fetch fails, but the cached key still verifies.
        _ = try await validator.validate(try await key.sign(claims()), expecting: expectations())
        #expect(transport.requestCount == 2)
        // An unknown kid cannot be helped.
        clock.advance(by: .seconds(120))
        let stranger = try await TestKey.es256(kid: "stranger")
        await #expect(throws: IDTokenError.keysUnavailable) {
            try await validator.validate(try await stranger.sign(claims()), expecting: expectations())
        }
    }

    @Test func skipsKeysThatAreNotForSignaturesOrNotUsable() async throws {
        let key = try await TestKey.rsa()
        let document = #"""
            {"keys":[
              {"kty":"RSA","use":"enc","kid":"enc-1","n":"AQAB","e":"AQAB"},
              {"kty":"oct","kid":"mac-1","k":"c2VjcmV0"},
              {"kty":"RSA","kid":"oaep","alg":"RSA-OAEP-256","n":"AQAB","e":"AQAB"},
              {"kty":"EC","kid":"broken","crv":"P-256","x":"AA","y":"AA"},
              \#(key.publicJWK)
            ]}
            """#
        let validator = makeValidator(transport: .serving(KeyDocument(document)))
        _ = try await validator.validate(try await key.sign(claims()), expecting: expectations())
    }

    /// Real key material published for encryption (`use` `enc`), for RSA-OAEP, or as a MAC secret (`oct`) never
    /// verifies a signature, even when a token names it and was signed with it.
    @Test func encryptionAndMACKeysNeverVerify() async throws {
        let good = try await TestKey.rsa()
        let encryption = try await TestKey.rsa(Fixtures.rsaPrivateKeyB, kid: "enc-1")
        let oaep = try await TestKey.rsa(Fixtures.rsaPrivateKeyB, kid: "oaep", alg: "RSA-OAEP")
        let document = #"""
            {"keys":[
              \#(encryption.publicJWK.replacingOccurrences(of: #""use":"sig""#, with: #""use":"enc""#)),
              \#(oaep.publicJWK),
              {"kty":"oct","kid":"mac-1","k":"c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA"},
              \#(good.publicJWK)
            ]}
            """#
        let validator = makeValidator(transport: .serving(KeyDocument(document)))
        _ = try await validator.validate(try await good.sign(claims()), expecting: expectations())
        let forged = [
            try await encryption.sign(claims(), header: ["alg": "RS256", "kid": "enc-1"]),
            try await oaep.sign(claims(), header: ["alg": "RS256", "kid": "oaep"]),
            // Signed with a real key but naming the MAC key: the set has no key of that name.
            try await good.sign(claims(), header: ["alg": "RS256", "kid": "mac-1"]),
        ]
        for token in forged {
            await #expect(throws: IDTokenError.unknownKey) {
                try await validator.validate(token, expecting: expectations())
            }
        }
    }

    @Test func tokenWithoutKidUsesTheOnlyKey() async throws {
        let key = try await TestKey.rsa()
        let validator = makeValidator(transport: .serving(KeyDocument(jwks(key))))
        let token = try await key.sign(claims(), header: ["alg": "RS256"])
        _ = try await validator.validate(token, expecting: expectations())
    }

    @Test func cacheLifetimeReadsMaxAgeAgeAndNoStore() {
        func lifetime(_ cacheControl: String, age: String? = nil) -> Duration? {
            var fields = HTTPFields()
            fields[.cacheControl] = cacheControl
            if let age { fields[.age] = age }
            return CacheLifetime.of(fields)
        }
        #expect(lifetime("public, max-age=19800, must-revalidate, no-transform") == .seconds(19800))
        #expect(lifetime("max-age=100", age: "30") == .seconds(70))
        #expect(lifetime("no-store") == .zero)
        #expect(lifetime("public") == nil)
        #expect(lifetime("max-age=31536000") == .seconds(86_400))
        #expect(lifetime("max-age=99999999999999999999999999") == .seconds(86_400))
        #expect(CacheLifetime.of(HTTPFields()) == nil)
    }
}
