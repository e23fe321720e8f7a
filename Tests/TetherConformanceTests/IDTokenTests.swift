import Foundation
import Testing
import Tether
import TetherJWT
import TetherOAuth

extension ConformanceTests {
    /// DOT's ID tokens (RS256, `kid` the key's thumbprint) verified with its JWKS, across a key rotation.
    @Suite(.conformanceServer)
    struct IDTokenTests {
        /// The `kid` in a compact JWS's header.
        static func keyID(of token: IDToken) throws -> String {
            var header = String(try #require(token.revealedValue.split(separator: ".").first))
                .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while header.count % 4 != 0 { header += "=" }
            let data = try #require(Data(base64Encoded: header))
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            return try #require(object?["kid"] as? String)
        }

        func expectations(_ harness: Harness, audience: String = "tether-public") -> IDTokenExpectations {
            IDTokenExpectations(issuer: harness.server.issuer, audience: audience, now: Date())
        }

        @Test func anIDTokenVerifiesWithTheServersKeysAndNothingElseDoes() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let (_, result) = try await harness.signIn()
            let idToken = try #require(result.tokens.idToken)
            let verifier = JWTVerifier(
                keySource: .jwks(harness.server.endpoint(".well-known/jwks.json")),
                transport: harness.transport,
                minimumRefetchInterval: .zero,
                logger: Harness.silent
            )

            let claims = try await verifier.verify(idToken.revealedValue, expecting: expectations(harness))
            #expect(claims.subject == "1")
            #expect(claims.issuer == harness.server.issuer)
            #expect(claims.audience == ["tether-public"])

            await #expect(throws: IDTokenError.wrongAudience) {
                _ = try await verifier.verify(
                    idToken.revealedValue,
                    expecting: expectations(harness, audience: "other")
                )
            }
            // One byte of the signature changed.
            var parts = idToken.revealedValue.split(separator: ".").map(String.init)
            let signature = parts[2]
            let flipped: Character = signature.first == "A" ? "B" : "A"
            parts[2] = String(flipped) + signature.dropFirst()
            await #expect(throws: IDTokenError.badSignature) {
                _ = try await verifier.verify(parts.joined(separator: "."), expecting: expectations(harness))
            }
        }

        /// A verifier with an empty key cache, fetching the JWKS as it is now.
        func freshVerifier(_ harness: Harness) -> JWTVerifier {
            JWTVerifier(
                keySource: .jwks(harness.server.endpoint(".well-known/jwks.json")),
                transport: harness.transport,
                logger: Harness.silent
            )
        }

        @Test func aSignInRightAfterAKeyRotationSucceedsAndBothKeysArePublished() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            // One client, so one key set, fetched at the first sign-in.
            let client = try harness.client(try await harness.discover())
            let first = try await client.signIn(using: harness.formPresenter())
            let firstToken = try #require(first.tokens.idToken)
            try await harness.server.requests()

            #expect(try await harness.server.rotateKey(keepPrevious: true) == 2)
            // Signed with a key the client's set lacks: the set is fetched again at once, and the new key verifies
            // the signature (docs/decisions.md §32).
            let second = try await client.signIn(using: harness.formPresenter())
            let secondToken = try #require(second.tokens.idToken)
            #expect(try Self.keyID(of: secondToken) != Self.keyID(of: firstToken))
            #expect(second.account?.subject == "1")
            #expect(second.idTokenClaims?.nonce != nil)
            let requests = try await harness.server.requests()
            #expect(requests.to("/o/.well-known/jwks.json").count == 1, "\(requests)")

            // Both keys are published: each token's signature verifies with a key set fetched now.
            let verifier = freshVerifier(harness)
            for token in [firstToken, secondToken] {
                #expect(try await verifier.verify(token.revealedValue, expecting: expectations(harness)).subject == "1")
            }
            // A rotation that drops the previous key: a token that key signed no longer verifies, the next one does.
            #expect(try await harness.server.rotateKey(keepPrevious: false) == 1)
            let afterRetirement = freshVerifier(harness)
            await #expect(throws: IDTokenError.unknownKey) {
                _ = try await afterRetirement.verify(secondToken.revealedValue, expecting: expectations(harness))
            }
            let third = try #require(try await client.signIn(using: harness.formPresenter()).tokens.idToken)
            let claims = try await afterRetirement.verify(third.revealedValue, expecting: expectations(harness))
            #expect(claims.subject == "1")
        }

        @Test func aRefreshRightAfterAKeyRotationKeepsItsTokens() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let (_, session, result) = try await harness.signedInSession()
            #expect(try await harness.server.rotateKey(keepPrevious: true) == 2)
            try await harness.server.requests()

            // The refreshed ID token names the new key, which the client's cached key set lacks.
            let refreshed = try await session.forceRefresh()
            #expect(refreshed != result.tokens.accessToken)
            let stored = try #require(try await session.connection()).tokens
            #expect(stored.refreshToken != result.tokens.refreshToken)
            #expect(
                try Self.keyID(of: try #require(stored.idToken)) != Self.keyID(of: try #require(result.tokens.idToken))
            )
            #expect(await session.status.kind == .connected)
            let requests = try await harness.server.requests()
            #expect(requests.tokenRequests("refresh_token").map(\.status) == [200], "\(requests)")
        }
    }
}
