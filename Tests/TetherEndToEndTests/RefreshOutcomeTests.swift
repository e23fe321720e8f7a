import Foundation
import ProviderTestSupport
import SignInTestSupport
import Testing
import Tether
import TetherDevProvider
import TetherOAuth
import TetherTesting

/// A refresh the provider processed but whose answer never arrived: the provider rotated the refresh token, the
/// client did not hear of it and retries with the old one. Over AsyncHTTPClient, which reports a dropped connection
/// at once (see docs/decisions.md).
@Suite(.timeLimit(.minutes(3)))
struct RefreshOutcomeTests {
    struct SignedIn {
        let harness: ProviderHarness
        let session: Session

        static func make(gracePeriod: Duration) async throws -> SignedIn {
            let harness = try await ProviderHarness.start(
                { configuration in
                    configuration.reuseDetection = true
                    configuration.reuseGracePeriod = gracePeriod
                },
                usingAsyncHTTPClient: true
            )
            let result = try await harness.client.signIn(using: FormBrowser().presenter())
            let session = harness.session(try harness.vault())
            try await session.signIn(account: try #require(result.account), tokens: result.tokens)
            return SignedIn(harness: harness, session: session)
        }

        /// Lets the token expire, then asks for one while the provider drops the next answer of the token
        /// endpoint, advancing the clock past the session's backoff.
        func refreshLosingTheFirstAnswer() async throws -> AccessToken {
            await harness.running.admin.dropNextAnswers(1, from: .token)
            let call = await callAfterExpiry()
            harness.clock.advance(by: .seconds(1))
            return try await call.value
        }

        /// Lets the token expire and asks for one; returns once the session sleeps in its backoff after the first
        /// attempt failed.
        func callAfterExpiry() async -> Task<AccessToken, any Error> {
            harness.clock.advance(by: .seconds(3600))
            let call = Task { try await session.validAccessToken() }
            #expect(await harness.clock.waitForSleepers(1))
            return call
        }
    }

    @Test func withoutAGracePeriodTheErrorNamesTheLostAnswer() async throws {
        let signedIn = try await SignedIn.make(gracePeriod: .zero)
        defer { Task { await signedIn.harness.stop() } }
        do {
            _ = try await signedIn.refreshLosingTheFirstAnswer()
            Issue.record("the retry with the rotated refresh token succeeded")
        } catch let error as SessionError {
            #expect(error == .needsSignIn)
            #expect(error.signInReason == .refreshAnswerLost)
            #expect(error.message == SignInReason.refreshAnswerLost.message)
        }
        let status = await signedIn.session.status
        #expect(status == .needsSignIn(reason: .refreshAnswerLost, accountHint: status.account))
        let counters = await signedIn.session.counters
        #expect(counters.unansweredRefreshes == 1)
        #expect(counters.lostRefreshAnswers == 1)
        #expect(counters.refreshes == 0)
        let provider = await signedIn.harness.counters()
        #expect(provider[.droppedAnswers] == 1)
        #expect(provider[.rotations] == 1)
        #expect(provider[.reuseDetections] == 1)
    }

    @Test func withAGracePeriodThePromptRetrySucceedsAndTheGrantSurvives() async throws {
        let signedIn = try await SignedIn.make(gracePeriod: .seconds(10))
        defer { Task { await signedIn.harness.stop() } }
        let token = try await signedIn.refreshLosingTheFirstAnswer()
        #expect(await signedIn.session.status.kind == .connected)
        var provider = await signedIn.harness.counters()
        #expect(provider[.droppedAnswers] == 1)
        #expect(provider[.graceReplays] == 1)
        #expect(provider[.reuseDetections] == 0)
        let record = try #require(try await signedIn.session.connection())
        #expect(record.tokens.accessToken == token)

        // The grant survives: the rotated refresh token the replay returned works.
        signedIn.harness.clock.advance(by: .seconds(3600))
        let next = try await signedIn.session.validAccessToken()
        #expect(next != token)
        provider = await signedIn.harness.counters()
        #expect(provider[.reuseDetections] == 0)
        #expect(provider[.grantsRevoked] == 0)
        let counters = await signedIn.session.counters
        #expect(counters.unansweredRefreshes == 1)
        #expect(counters.lostRefreshAnswers == 0)
        #expect(counters.refreshes == 2)
    }

    /// The provider replays the tokens it issued when the lost answer was sent, `expires_in` and all: the session
    /// counts their lifetime from the lost attempt, so it never holds a token for valid that the provider holds
    /// expired.
    @Test func aGraceReplayCountsItsLifetimeFromTheLostAttempt() async throws {
        let signedIn = try await SignedIn.make(gracePeriod: .seconds(10))
        defer { Task { await signedIn.harness.stop() } }
        await signedIn.harness.running.admin.dropNextAnswers(1, from: .token)
        let call = await signedIn.callAfterExpiry()
        // The manual clock stands still until the backoff: the lost attempt was sent, and answered, now.
        let lostAttemptSentAt = signedIn.harness.clock.date
        signedIn.harness.clock.advance(by: .seconds(1))
        let token = try await call.value
        #expect(await signedIn.harness.counters()[.graceReplays] == 1)

        let tokens = try #require(try await signedIn.session.connection()).tokens
        let admin = signedIn.harness.running.admin
        let providerExpiry = try #require(await admin.expiry(ofAccessToken: token.revealedValue))
        #expect(tokens.receivedAt == lostAttemptSentAt)
        #expect(tokens.expiresAt == providerExpiry)
        // A later call after the provider's expiry refreshes instead of handing out the replayed token.
        signedIn.harness.clock.advance(by: .seconds(providerExpiry.timeIntervalSince(signedIn.harness.clock.date)))
        #expect(try await signedIn.session.validAccessToken() != token)
        #expect(await signedIn.session.counters.refreshes == 2)
    }

    @Test func aRefusedRequestThenARevocationIsAPlainRevocation() async throws {
        let signedIn = try await SignedIn.make(gracePeriod: .zero)
        defer { Task { await signedIn.harness.stop() } }
        // A 429 was never processed: the invalid_grant that follows is the provider's word, not a lost answer.
        await signedIn.harness.running.admin.rateLimitNext(1, requestsTo: .token, retryAfterSeconds: 1)
        await signedIn.harness.running.admin.revokeAllGrants()
        let call = await signedIn.callAfterExpiry()
        signedIn.harness.clock.advance(by: .seconds(1))
        do {
            _ = try await call.value
            Issue.record("a revoked grant refreshed")
        } catch let error as SessionError {
            #expect(error.signInReason == .grantRevoked)
        }
        let counters = await signedIn.session.counters
        #expect(counters.unansweredRefreshes == 0)
        #expect(counters.lostRefreshAnswers == 0)
    }

    @Test func aServerErrorLeavesTheOutcomeUnknown() async throws {
        let signedIn = try await SignedIn.make(gracePeriod: .zero)
        defer { Task { await signedIn.harness.stop() } }
        await signedIn.harness.running.admin.failNext(1, requestsTo: .token, status: 500)
        let call = await signedIn.callAfterExpiry()
        guard case .offline(_, _, let error) = await signedIn.session.status else {
            Issue.record("expected offline during the backoff")
            return
        }
        #expect(error.isOutcomeUnknown)
        signedIn.harness.clock.advance(by: .seconds(1))
        _ = try await call.value
        #expect(await signedIn.session.counters.unansweredRefreshes == 1)
    }

    @Test func retriesAfterUnansweredAttemptsAreNotPushedBack() async throws {
        let signedIn = try await SignedIn.make(gracePeriod: .zero)
        defer { Task { await signedIn.harness.stop() } }
        await signedIn.harness.running.admin.failNext(2, requestsTo: .token, status: 502)
        signedIn.harness.clock.advance(by: .seconds(3600))
        let call = Task { try await signedIn.session.validAccessToken() }
        for _ in 0..<2 {
            #expect(await signedIn.harness.clock.waitForSleepers(1))
            guard case .offline(_, let next?, _) = await signedIn.session.status else {
                Issue.record("expected offline with a next attempt")
                return
            }
            // The retry policy's initial delay (0.5 s without jitter) each time, not 0.5 s then 1 s.
            #expect(abs(next.timeIntervalSince(signedIn.harness.clock.date) - 0.5) < 0.01)
            signedIn.harness.clock.advance(by: .seconds(1))
        }
        _ = try await call.value
        #expect(await signedIn.session.counters.unansweredRefreshes == 2)
    }
}
