import Foundation
import Testing
import Tether
import TetherTesting

/// Refreshed tokens the store will not take: the process holds the only copy of a rotated refresh token.
struct UnsavedTokensTests {
    @Test func rotatedTokensSurviveFailedWritesAndAreStoredLater() async throws {
        let harness = SessionHarness()
        let signedIn = try await harness.signIn()
        let first = try #require(signedIn.tokens.refreshToken)
        harness.clock.advance(by: .seconds(3600))
        harness.store.failNextWrites(5, with: CredentialStoreError.io.with(message: "disk full"))

        // The refresh rotates; its write fails (1), yet the caller gets the new token.
        let second = try await harness.session.validAccessToken()
        #expect(second != signedIn.tokens.accessToken)
        #expect(try harness.issuer.accepts(second))
        #expect(await harness.session.status.kind == .storageUnavailable)
        #expect(try await harness.store.read("dev")?.tokens.refreshToken == first)

        // The next call writes again (2) and still serves the token kept in memory.
        #expect(try await harness.session.validAccessToken() == second)
        #expect(await harness.session.status.kind == .storageUnavailable)

        // A refresh meanwhile presents the rotated refresh token, not the spent one the store still holds: the
        // retries before it (3, 4) and its own write (5) fail.
        let third = try await harness.session.forceRefresh(rejecting: second)
        #expect(third != second)
        #expect(try harness.issuer.accepts(third))
        #expect(await harness.session.status.kind == .storageUnavailable)

        // The store works again: the next call stores the newest tokens.
        #expect(try await harness.session.validAccessToken() == third)
        let stored = try #require(try await harness.store.read("dev"))
        #expect(stored.tokens.accessToken == third)
        #expect(stored.tokens.refreshToken != first)
        #expect(await harness.session.status.kind == .connected)

        // The stored refresh token is the live one: the next refresh works, and no refresh token was used twice.
        harness.clock.advance(by: .seconds(3600))
        _ = try await harness.session.validAccessToken()
        let counters = try harness.issuer.counters()
        #expect(counters.refreshes == 3)
        #expect(counters.reuseDetections == 0)
        #expect(counters.failedRefreshes == 0)
    }

    @Test func tokensWhoseWriteWasNotFlushedAreWrittenAgain() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tether-unsaved-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let vault = try VaultStore(directory: directory, key: .generate(), environment: [:])
        let harness = SessionHarness(store: vault)
        let signedIn = try await harness.signIn()
        harness.clock.advance(by: .seconds(3600))

        // The refresh's write lands, but the folder cannot be flushed: the tokens may not survive a power loss.
        VaultFiles.failNextDirectorySync(directory.path + "/records")
        let second = try await harness.session.validAccessToken()
        #expect(second != signedIn.tokens.accessToken)
        #expect(await harness.session.status.kind == .storageUnavailable)
        let landed = try #require(try await vault.read("dev"))
        #expect(landed.tokens.accessToken == second)
        #expect(landed.version == signedIn.version + 1)

        // The next call finds its own record and writes it again, which flushes the folder.
        #expect(try await harness.session.validAccessToken() == second)
        #expect(await harness.session.status.kind == .connected)
        let stored = try #require(try await vault.read("dev"))
        #expect(stored.tokens == landed.tokens)
        #expect(stored.version == signedIn.version + 2)

        harness.clock.advance(by: .seconds(3600))
        _ = try await harness.session.validAccessToken()
        let counters = try harness.issuer.counters()
        #expect(counters.refreshes == 2)
        #expect(counters.reuseDetections == 0)
    }
}
