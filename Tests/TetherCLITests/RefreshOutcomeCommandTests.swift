import Foundation
import Testing
import Tether
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// What `tether token` and `tether status` say when the provider rotated the refresh token and its answer was lost.
@Suite(.timeLimit(.minutes(2)))
struct RefreshOutcomeCommandTests {
    static let lostAnswer = "may have rotated the refresh token but its answer was lost"

    @Test func aLostAnswerWithoutGraceIsNamedByTokenAndStatus() async throws {
        let cli = try await CLI.start(DevProvider.Configuration(reuseDetection: true, reuseGracePeriod: .zero))
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        await cli.provider.admin.dropNextAnswers(1, from: .token)

        let token = try await cli.run(["token", "--force-refresh"])
        #expect(token.status == 3, "\(token.stderr)")
        #expect(token.stdout.isEmpty)
        #expect(token.stderr.contains(Self.lostAnswer), "\(token.stderr)")
        #expect(await cli.provider.admin.counters()[.reuseDetections] == 1)

        let row = try #require(try await cli.status().first)
        #expect(row["state"] as? String == "needs-sign-in")
        #expect((row["lastError"] as? String)?.contains(Self.lostAnswer) == true, "\(row)")
    }

    @Test func aLostAnswerWithinTheGracePeriodKeepsTheGrant() async throws {
        let cli = try await CLI.start(DevProvider.Configuration(reuseDetection: true, reuseGracePeriod: .seconds(30)))
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        await cli.provider.admin.dropNextAnswers(1, from: .token)

        let token = try await cli.run(["token", "--force-refresh"])
        #expect(token.status == 0, "\(token.stderr)")
        let counters = await cli.provider.admin.counters()
        #expect(counters[.graceReplays] == 1)
        #expect(counters[.reuseDetections] == 0)
        // The grant survives: the next refresh uses the refresh token of the replayed answer.
        #expect(try await cli.run(["token", "--force-refresh"]).status == 0)
        #expect(await cli.provider.admin.counters()[.reuseDetections] == 0)
        #expect(try await cli.status().first?["state"] as? String == "connected")
    }

    /// The refresh worker of the retry stores the replayed tokens with their lifetime counted from the lost attempt,
    /// which the caller passes on: the stored expiry is never later than the provider's.
    @Test func aGraceReplayIsStoredWithTheProvidersExpiry() async throws {
        let cli = try await CLI.start(
            DevProvider.Configuration(
                accessTokenLifetime: .seconds(60),
                reuseDetection: true,
                reuseGracePeriod: .seconds(30)
            )
        )
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        // Two lost answers: the second retry, a second or more after the first attempt, gets the replay.
        await cli.provider.admin.dropNextAnswers(2, from: .token)

        let token = try await cli.run(["token", "--force-refresh"])
        #expect(token.status == 0, "\(token.stderr)")
        #expect(await cli.provider.admin.counters()[.graceReplays] == 2)
        let stored = try #require(try await VaultStore(directory: cli.home, environment: [:]).read(ConnectionID("dev")))
        #expect(stored.tokens.accessToken?.revealedValue == token.trimmedOutput)
        let storedExpiry = try #require(stored.tokens.expiresAt)
        let providerExpiry = try #require(await cli.provider.admin.expiry(ofAccessToken: token.trimmedOutput))
        #expect(storedExpiry <= providerExpiry, "stored \(storedExpiry), provider \(providerExpiry)")
    }

    /// Each `tether` fetches the provider's keys to check a refreshed ID token. When they cannot be fetched, the
    /// answer stands on its claims: refusing it would throw away a rotated refresh token, and without a grace period
    /// the next refresh would be a reuse that ends the grant (docs/decisions.md §35).
    @Test func aKeySetThatCannotBeFetchedDuringARefreshKeepsTheGrant() async throws {
        let cli = try await CLI.start(DevProvider.Configuration(reuseDetection: true, reuseGracePeriod: .zero))
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let before = await cli.provider.admin.counters()
        await cli.provider.admin.failNext(100, requestsTo: .jwks, status: 503)

        let first = try await cli.run(["token", "--force-refresh"])
        #expect(first.status == 0, "\(first.stderr)")
        var counters = await cli.provider.admin.counters()
        #expect(counters.requests(to: .jwks) > before.requests(to: .jwks), "the refresh did not ask for the keys")
        #expect(counters[.rotations] == before[.rotations] + 1)

        // The rotated refresh token reached the vault: the next refresh uses it, with the keys back.
        await cli.provider.admin.failNext(0, requestsTo: .jwks)
        let second = try await cli.run(["token", "--force-refresh"])
        #expect(second.status == 0, "\(second.stderr)")
        counters = await cli.provider.admin.counters()
        #expect(counters[.reuseDetections] == 0)
        #expect(counters[.rotations] == before[.rotations] + 2)
        #expect(try await cli.verdict(on: second.trimmedOutput) == .accepted)
    }
}
