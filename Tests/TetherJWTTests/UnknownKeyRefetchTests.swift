import Foundation
import HTTPTypes
import JWTTestSupport
import Testing
import Tether
import TetherJWT
import TetherOAuth
import TetherTesting

/// A `kid` the cached key set lacks fetches the set again at once, once per `kid` and interval, within a bound on
/// all fetches per interval (docs/decisions.md §32).
struct UnknownKeyRefetchTests {
    static func validate(_ key: TestKey, _ validator: JWKSIDTokenValidator) async throws -> IDTokenClaims {
        try await validator.validate(try await key.sign(claims()), expecting: expectations())
    }

    @Test func aRotatedKeyIsFetchedAtOnceRightAfterAFetch() async throws {
        let old = try await TestKey.rsa()
        let new = try await TestKey.es256(kid: "rotated")
        let document = KeyDocument(jwks(old))
        let transport = StubTransport.serving(document)
        let clock = ManualClock()
        let validator = makeValidator(transport: transport, clock: clock)
        _ = try await Self.validate(old, validator)

        document.json = jwks(old, new)
        clock.advance(by: .seconds(1))

        #expect(try await Self.validate(new, validator).subject == "user-1")
        #expect(transport.requestCount == 2)
    }

    @Test func theSameUnknownKidFetchesOncePerInterval() async throws {
        let key = try await TestKey.rsa()
        let stranger = try await TestKey.es256(kid: "stranger")
        let transport = StubTransport.serving(KeyDocument(jwks(key)))
        let clock = ManualClock()
        let validator = makeValidator(transport: transport, clock: clock)
        _ = try await Self.validate(key, validator)

        for _ in 0..<3 {
            await #expect(throws: IDTokenError.unknownKey) { try await Self.validate(stranger, validator) }
            clock.advance(by: .seconds(10))
        }
        #expect(transport.requestCount == 2)

        clock.advance(by: .seconds(31))
        await #expect(throws: IDTokenError.unknownKey) { try await Self.validate(stranger, validator) }
        #expect(transport.requestCount == 3)
    }

    /// Tokens naming ever new made-up keys (sent to a resource server) cost a bounded number of fetches.
    @Test func madeUpKidsCostABoundedNumberOfFetchesPerInterval() async throws {
        let key = try await TestKey.rsa()
        let transport = StubTransport.serving(KeyDocument(jwks(key)))
        let clock = ManualClock()
        let validator = makeValidator(transport: transport, clock: clock)
        _ = try await Self.validate(key, validator)

        for index in 0..<20 {
            let stranger = try await TestKey.es256(kid: "made-up-\(index)")
            await #expect(throws: IDTokenError.unknownKey) { try await Self.validate(stranger, validator) }
            clock.advance(by: .seconds(1))
        }
        #expect(transport.requestCount == 4)

        // Known keys still verify from the cache meanwhile.
        _ = try await Self.validate(key, validator)
        #expect(transport.requestCount == 4)
    }

    /// A key set that cannot be fetched is not fetched again for each new `kid`: that is no rotation.
    @Test func aFailedFetchIsNotRetriedForEachNewKid() async throws {
        let transport = StubTransport.status(.serviceUnavailable)
        let clock = ManualClock()
        let validator = makeValidator(transport: transport, clock: clock)
        for index in 0..<3 {
            let stranger = try await TestKey.es256(kid: "kid-\(index)")
            await #expect(throws: IDTokenError.keysUnavailable) { try await Self.validate(stranger, validator) }
        }
        #expect(transport.requestCount == 1)
    }
}
