import Foundation
import Testing
import Tether
import TetherJWT
import TetherOAuth

extension ConformanceTests {
    /// Refresh (RFC 6749 §6) through a `Session` on a `VaultStore`, with DOT's rotation, reuse protection and grace
    /// period. A "stale copy" is a second vault holding the sign-in's tokens, as a backup restored on another
    /// machine would: it refreshes with a refresh token the server has already rotated.
    @Suite(.conformanceServer)
    struct RefreshTests {
        /// A signed-in session in vault `current`, and a second session in vault `stale` holding the same tokens.
        static func sessionAndStaleCopy(
            _ harness: Harness
        ) async throws -> (client: OAuthClient, current: Session, stale: Session, signIn: SignInResult) {
            let (client, current, result) = try await harness.signedInSession(vault: "current")
            let stale = harness.session(try harness.vault("stale"), client: client)
            try await stale.signIn(account: try #require(result.account), tokens: result.tokens)
            return (client, current, stale, result)
        }

        /// The stored tokens of `session`.
        static func tokens(_ session: Session) async throws -> TokenSet {
            try #require(try await session.connection()).tokens
        }

        @Test func rotationStoresTheNewRefreshTokenAndTheRotatedOneIsRefused() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let (client, current, stale, signIn) = try await Self.sessionAndStaleCopy(harness)
            try await harness.server.requests()

            let refreshed = try await current.forceRefresh()
            #expect(refreshed != signIn.tokens.accessToken)
            let stored = try await Self.tokens(current)
            #expect(stored.accessToken == refreshed)
            #expect(stored.refreshToken != nil)
            #expect(stored.refreshToken != signIn.tokens.refreshToken)
            // The refresh brought a new ID token (no nonce), checked against the JWKS and kept.
            let idToken = try #require(stored.idToken)
            #expect(idToken != signIn.tokens.idToken)
            let claims = try await harness.validator(jwks: try #require(client.configuration.jwksURI)).validate(
                idToken,
                expecting: IDTokenExpectations(issuer: harness.server.issuer, audience: "tether-public", now: Date())
            )
            #expect(claims.subject == "1")
            #expect(claims.nonce == nil)
            // A new process reads the rotated token from the vault.
            let reread = try await Self.tokens(harness.session(try harness.vault("current"), client: client))
            #expect(reread.refreshToken == stored.refreshToken)

            // Reuse protection is off (DOT's default): the stale copy is refused, the current one lives on.
            let error = await #expect(throws: SessionError.needsSignIn) { _ = try await stale.forceRefresh() }
            #expect(error?.signInReason != nil)
            #expect(await stale.status.kind == .needsSignIn)
            _ = try await current.forceRefresh()
            #expect(await current.status.kind == .connected)

            let requests = try await harness.server.requests()
            #expect(requests.tokenRequests("refresh_token").map(\.status) == [200, 400, 200], "\(requests)")
            #expect(requests.tokenRequests("refresh_token").allSatisfy { $0.clientAuthentication == "none" })
        }

        @Test func reuseProtectionEndsTheWholeGrantWhenARotatedTokenComesBack() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let server = harness.server
            try await server.with(["REFRESH_TOKEN_REUSE_PROTECTION": .bool(true)]) {
                let (_, current, stale, _) = try await Self.sessionAndStaleCopy(harness)
                try await server.requests()
                let newest = try await current.forceRefresh()

                await #expect(throws: SessionError.needsSignIn) { _ = try await stale.forceRefresh() }
                // The reuse revoked the family: the newest refresh token and its access token too.
                #expect(try await server.status(of: "/api/resource-rfc6750/", bearer: newest) == 401)
                await #expect(throws: SessionError.needsSignIn) { _ = try await current.forceRefresh() }
                #expect(await current.status.kind == .needsSignIn)
                #expect(try await Self.tokens(current).refreshToken == nil)

                let requests = try await server.requests()
                #expect(requests.tokenRequests("refresh_token").map(\.status) == [200, 400, 400], "\(requests)")
            }
        }

        @Test func withinTheGracePeriodAStaleCopyGetsTheSameTokensAndAfterItIsRefused() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            let server = harness.server
            let grace: [String: Setting] = [
                "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": .int(5), "REFRESH_TOKEN_REUSE_PROTECTION": .bool(true),
            ]
            try await server.with(grace) {
                let (client, current, stale, result) = try await Self.sessionAndStaleCopy(harness)
                let late = harness.session(try harness.vault("late"), client: client)
                try await late.signIn(account: try #require(result.account), tokens: result.tokens)
                try await server.requests()

                let refreshed = try await current.forceRefresh()
                // Within the window the rotated token still works and returns what the first refresh returned.
                let staleToken = try await stale.forceRefresh()
                #expect(staleToken == refreshed)
                #expect(try await Self.tokens(stale).refreshToken == Self.tokens(current).refreshToken)
                #expect(await stale.status.kind == .connected)

                // After it, the rotated token is a reuse: refused, and with reuse protection the grant ends.
                try await Task.sleep(for: .seconds(6))
                await #expect(throws: SessionError.needsSignIn) { _ = try await late.forceRefresh() }
                await #expect(throws: SessionError.needsSignIn) { _ = try await current.forceRefresh() }

                let requests = try await server.requests()
                #expect(requests.tokenRequests("refresh_token").map(\.status) == [200, 200, 400, 400], "\(requests)")
            }
        }

        @Test func withoutRotationTheRefreshTokenIsKept() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            try await harness.server.with(["ROTATE_REFRESH_TOKEN": .bool(false)]) {
                let (_, session, result) = try await harness.signedInSession()
                let refreshed = try await session.forceRefresh()
                #expect(refreshed != result.tokens.accessToken)
                #expect(try await Self.tokens(session).refreshToken == result.tokens.refreshToken)
                _ = try await session.forceRefresh()
                let requests = try await harness.server.requests()
                #expect(requests.tokenRequests("refresh_token").map(\.status) == [200, 200], "\(requests)")
            }
        }

        @Test func aRefreshTokenPastItsLifetimeNeedsSignIn() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            // DOT ends a refresh token REFRESH_TOKEN_EXPIRE_SECONDS after its access token expired.
            try await harness.server.with(["REFRESH_TOKEN_EXPIRE_SECONDS": .int(1)]) {
                let (_, session, _) = try await harness.signedInSession()
                try await harness.server.expire("access")
                try await harness.server.requests()
                try await Task.sleep(for: .seconds(1))

                let error = await #expect(throws: SessionError.needsSignIn) { _ = try await session.forceRefresh() }
                #expect(error?.signInReason != nil)
                #expect(error?.accountHint?.subject == "1")
                #expect(await session.status.kind == .needsSignIn)
                let requests = try await harness.server.requests()
                #expect(requests.tokenRequests("refresh_token").map(\.status) == [400], "\(requests)")
            }
        }

        @Test func callersOfTwoSessionsOnOneVaultShareOneRefreshAcrossAnExpiry() async throws {
            let harness = try await Harness.start()
            defer { harness.stop() }
            // Signed in with a 5-second token; the refreshed one lives an hour, so nobody can see it stale.
            let (client, first, result) = try await harness.server.with(["ACCESS_TOKEN_EXPIRE_SECONDS": .int(5)]) {
                try await harness.signedInSession()
            }
            let second = harness.session(try harness.vault(), client: client)
            try await harness.server.requests()

            // Past the token's expiry.
            let expiresIn = try #require(result.tokens.expiresAt).timeIntervalSinceNow
            try await Task.sleep(for: .seconds(max(0, expiresIn) + 0.25))
            let tokens = try await withThrowingTaskGroup(of: AccessToken.self) { group in
                for index in 0..<8 {
                    let session = index.isMultiple(of: 2) ? first : second
                    group.addTask { try await session.validAccessToken() }
                }
                return try await group.reduce(into: Set<AccessToken>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1)
            #expect(!tokens.contains(try #require(result.tokens.accessToken)))
            let requests = try await harness.server.requests()
            #expect(requests.tokenRequests("refresh_token").map(\.status) == [200], "\(requests)")
        }
    }
}
