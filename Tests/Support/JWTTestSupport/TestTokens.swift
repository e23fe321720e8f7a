import Crypto
package import Foundation
import InMemoryLogging
package import JWTKit
package import Logging
package import Tether
package import TetherJWT
package import TetherOAuth
package import TetherTesting

/// A fixed instant for every token in these tests (2026-01-01T00:00:00Z); tokens never depend on the real date.
package let fixedNow = Date(timeIntervalSince1970: 1_767_225_600)

package let testIssuer = "https://issuer.test"
package let testClientID = "client-1"
package let testKeysURL = URL(string: "https://issuer.test/keys")!

/// A private key that signs test tokens, and its public JWK.
package struct TestKey: Sendable {
    package let kid: String
    package let alg: String
    package let collection: JWTKeyCollection
    /// The public JWK as a JSON object (without `alg` when `declaresAlgorithm` was false).
    package let publicJWK: String

    package static func rsa(
        _ pem: String = Fixtures.rsaPrivateKeyA,
        kid: String = "rsa-a",
        alg: String = "RS256",
        declaresAlgorithm: Bool = true
    ) async throws -> TestKey {
        let key = try Insecure.RSA.PrivateKey(pem: pem)
        let collection = JWTKeyCollection()
        let digest: DigestAlgorithm =
            switch alg.suffix(3) {
            case "384": .sha384
            case "512": .sha512
            default: .sha256
            }
        if alg.hasPrefix("PS") {
            await collection.add(pss: key, digestAlgorithm: digest, kid: JWKIdentifier(string: kid))
        } else {
            await collection.add(rsa: key, digestAlgorithm: digest, kid: JWKIdentifier(string: kid))
        }
        let (modulus, exponent) = try key.publicKey.getKeyPrimitives()
        let algMember = declaresAlgorithm ? #","alg":"\#(alg)""# : ""
        let jwk =
            #"{"kty":"RSA","use":"sig","kid":"\#(kid)"\#(algMember),"n":"\#(b64url(modulus))","e":"\#(b64url(exponent))"}"#
        return TestKey(kid: kid, alg: alg, collection: collection, publicJWK: jwk)
    }

    package static func es256(kid: String = "ec-1", pem: String? = nil) async throws -> TestKey {
        let key = try pem.map { try ES256PrivateKey(pem: $0) } ?? ES256PrivateKey()
        let collection = JWTKeyCollection()
        await collection.add(ecdsa: key, kid: JWKIdentifier(string: kid))
        guard let parameters = key.parameters else { throw MissingKeyParameters() }
        let jwk =
            #"{"kty":"EC","use":"sig","kid":"\#(kid)","alg":"ES256","crv":"P-256","x":"\#(parameters.x)","y":"\#(parameters.y)"}"#
        return TestKey(kid: kid, alg: "ES256", collection: collection, publicJWK: jwk)
    }

    package static func edDSA(kid: String = "ed-1") async throws -> TestKey {
        let key = try EdDSA.PrivateKey(curve: .ed25519)
        let collection = JWTKeyCollection()
        await collection.add(eddsa: key, kid: JWKIdentifier(string: kid))
        let x = b64url(key.publicKey.rawRepresentation)
        let jwk = #"{"kty":"OKP","use":"sig","kid":"\#(kid)","alg":"EdDSA","crv":"Ed25519","x":"\#(x)"}"#
        return TestKey(kid: kid, alg: "EdDSA", collection: collection, publicJWK: jwk)
    }

    /// Signs `claims` with this key; the header carries this key's `alg` and `kid` unless overridden.
    package func sign(_ claims: [String: any Sendable], header: [String: any Sendable]? = nil) async throws -> IDToken {
        let header = header ?? ["alg": alg, "kid": kid, "typ": "JWT"]
        let signingInput = "\(try encodeJSON(header)).\(try encodeJSON(claims))"
        let algorithm = try await collection.getKey(for: JWKIdentifier(string: kid))
        let signature = try algorithm.sign(Array(signingInput.utf8))
        return IDToken("\(signingInput).\(b64url(signature))")
    }
}

/// A JWKS document with these keys.
package func jwks(_ keys: TestKey...) -> String {
    #"{"keys":[\#(keys.map(\.publicJWK).joined(separator: ","))]}"#
}

/// Claims that pass the default expectations; override or remove (with `nil`) what a test needs.
package func claims(_ overrides: [String: (any Sendable)?] = [:]) -> [String: any Sendable] {
    var claims: [String: any Sendable] = [
        "iss": testIssuer,
        "sub": "user-1",
        "aud": testClientID,
        "exp": fixedNow.timeIntervalSince1970 + 3600,
        "iat": fixedNow.timeIntervalSince1970 - 60,
        "nonce": "nonce-1",
        "email": "user@example.test",
        "email_verified": true,
    ]
    for (key, value) in overrides { claims[key] = value }
    return claims
}

/// Expectations matching ``claims(_:)`` at the fixed instant.
package func expectations(
    issuer: String = testIssuer,
    alternativeIssuers: [String] = [],
    nonce: String? = "nonce-1",
    now: Date = fixedNow,
    maximumAge: Duration? = nil
) -> IDTokenExpectations {
    IDTokenExpectations(
        issuer: issuer,
        alternativeIssuers: alternativeIssuers,
        audience: testClientID,
        nonce: nonce,
        now: now,
        maximumAge: maximumAge
    )
}

/// A validator over `transport` with a manual clock.
package func makeValidator(
    transport: StubTransport,
    clock: ManualClock = ManualClock(),
    source: SigningKeySource = .jwks(testKeysURL),
    extraRules: ExtraClaimRules = [],
    logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
) -> JWKSIDTokenValidator {
    JWKSIDTokenValidator(
        keySource: source,
        transport: transport,
        extraRules: extraRules,
        clock: clock,
        logger: logger
    )
}

package func b64url(_ data: some DataProtocol) -> String {
    Data(data).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

package func encodeJSON(_ object: [String: any Sendable]) throws -> String {
    b64url(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
}

/// Builds a token from raw parts, for structural and algorithm tests.
package func rawToken(header: String, claims: String, signature: String = "c2ln") -> IDToken {
    IDToken("\(b64url(Data(header.utf8))).\(b64url(Data(claims.utf8))).\(signature)")
}

/// A trace-level logger that keeps every entry as one line of text.
package struct InMemoryLogRecorder {
    private let handler = InMemoryLogHandler()

    package init() {}

    package var logger: Logger {
        var logger = Logger(label: "jwt-test", factory: { [handler] _ in handler })
        logger.logLevel = .trace
        return logger
    }

    package var entries: [String] {
        handler.entries.map { entry in
            "\(entry.level) \(entry.message) \(entry.metadata.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
        }
    }
}

/// An EC key without its public parameters.
struct MissingKeyParameters: Error {}
