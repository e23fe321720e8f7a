import Foundation
import Testing

@testable import Tether

/// The session's refresh bookkeeping as a value: each transition without an actor, a store or a clock.
struct RefreshBookkeepingTests {
    @Test func aFlightEndsOnlyItsOwnSlotAndClearsTheTransientFailureItRetries() {
        var book = RefreshBookkeeping()
        book.lastFailure = .transient(.transient("timeout"), nextAttempt: nil)
        let first = SharedFlight<Connection>()
        let generation = book.beginFlight(first)
        #expect(book.flight === first)
        #expect(book.lastFailure.map { "\($0)" } == nil)
        // A later flight's slot is not cleared by the end of an earlier one.
        book.endFlight(generation: generation, succeeded: false)
        #expect(!book.isRefreshing)
        let second = SharedFlight<Connection>()
        let secondGeneration = book.beginFlight(second)
        book.endFlight(generation: generation, succeeded: false)
        #expect(book.flight === second)
        book.endFlight(generation: secondGeneration, succeeded: true)
        #expect(!book.isRefreshing)
    }

    @Test func aStorageFailureIsNotClearedByANewFlight() {
        var book = RefreshBookkeeping()
        book.lastFailure = .storage(.unavailable)
        _ = book.beginFlight(SharedFlight<Connection>())
        guard case .storage = book.lastFailure else {
            Issue.record("a flight cleared \(String(describing: book.lastFailure))")
            return
        }
        book.recordAdopted()
        #expect(book.lastFailure.map { "\($0)" } == nil)
    }

    @Test func aRestoreDoesNotHideARefreshInFlight() {
        var book = RefreshBookkeeping()
        book.beginRestore()
        guard case .restoring = book.activity else {
            Issue.record("not restoring")
            return
        }
        book.endRestore()
        guard case .idle = book.activity else {
            Issue.record("not idle")
            return
        }
        _ = book.beginFlight(SharedFlight<Connection>())
        book.beginRestore()
        book.endRestore()
        #expect(book.isRefreshing)
    }

    @Test func anAnswerMayDateFromTheFirstUnansweredSendOfTheSameToken() {
        var book = RefreshBookkeeping()
        let first = RefreshToken("refresh-1")
        let t0 = Date(timeIntervalSince1970: 1_000)
        #expect(book.answerMayDateFrom(first) == nil)
        book.noteUnanswered(first, sentAt: t0)
        book.noteUnanswered(first, sentAt: t0.addingTimeInterval(5))
        #expect(book.answerMayDateFrom(first) == t0)
        // Another token's answer does not date from then.
        #expect(book.answerMayDateFrom(RefreshToken("refresh-2")) == nil)
        #expect(book.answerWasLost(.grantRevoked, for: first))
        #expect(!book.answerWasLost(.grantRevoked, for: RefreshToken("refresh-2")))
        #expect(!book.answerWasLost(.sessionExpired, for: first))
        book.noteAnswered()
        #expect(book.answerMayDateFrom(first) == nil)
        #expect(!book.answerWasLost(.grantRevoked, for: first))
    }

    @Test func aWorkersCallerTimeIsTakenForAnyToken() {
        var book = RefreshBookkeeping()
        let t0 = Date(timeIntervalSince1970: 1_000)
        book.assumeUnanswered(since: t0.addingTimeInterval(3))
        book.assumeUnanswered(since: t0)
        #expect(book.answerMayDateFrom(RefreshToken("any")) == t0)
    }

    @Test func unsavedTokensOverlayTheRecordTheyReplaceAndYieldToANewSignIn() throws {
        var book = RefreshBookkeeping()
        let base = connection(access: "a1", refresh: "r1", version: 3)
        let updated = connection(access: "a2", refresh: "r2", version: 3)
        book.keepUnsaved(updated, over: base, error: .io)
        guard case .unsavedTokens = book.lastFailure else {
            Issue.record("not reported")
            return
        }

        // The store still holds the spent tokens: the unsaved ones are the truth.
        let overlay = book.overlayUnsaved(on: base)
        let overlaid = try #require(overlay)
        #expect(overlaid.tokens == updated.tokens)
        #expect(overlaid.version == 3)
        #expect(book.unsaved != nil)

        // A new sign-in (other tokens) supersedes them.
        let signedIn = connection(access: "b1", refresh: "s1", version: 4)
        let superseded = book.overlayUnsaved(on: signedIn)
        #expect(superseded == signedIn)
        #expect(book.unsaved == nil)
        #expect(book.lastFailure.map { "\($0)" } == nil)
    }

    @Test func oneWriteOfUnsavedTokensAtATimeAndItsOutcome() {
        var book = RefreshBookkeeping()
        let nothing = book.beginSavingUnsaved()
        #expect(nothing == nil)
        book.keepUnsaved(
            connection(access: "a2", refresh: "r2"),
            over: connection(access: "a1", refresh: "r1"),
            error: .io
        )
        let first = book.beginSavingUnsaved()
        let second = book.beginSavingUnsaved()
        #expect(first != nil)
        #expect(second == nil, "a second writer started while the first wrote")
        book.endSavingUnsaved(.failed(.unavailable))
        #expect(book.unsaved?.error == .unavailable)
        guard case .unsavedTokens(let error) = book.lastFailure else {
            Issue.record("not reported")
            return
        }
        #expect(error == .unavailable)
        let again = book.beginSavingUnsaved()
        #expect(again != nil)
        book.endSavingUnsaved(.stored)
        #expect(book.unsaved == nil)
        #expect(book.lastFailure.map { "\($0)" } == nil)
    }

    @Test func aFlightThatSucceedsWithTokensUnsavedStillReportsThem() {
        var book = RefreshBookkeeping()
        let generation = book.beginFlight(SharedFlight<Connection>())
        book.keepUnsaved(
            connection(access: "a2", refresh: "r2"),
            over: connection(access: "a1", refresh: "r1"),
            error: .io
        )
        book.endFlight(generation: generation, succeeded: true)
        guard case .unsavedTokens = book.lastFailure else {
            Issue.record("unsaved tokens not reported")
            return
        }
    }

    @Test(arguments: [(0, false), (30, false), (60, true), (61, true)])
    func aForcedRefreshIsAllowedOncePerInterval(secondsLater: Int, allowed: Bool) {
        var book = RefreshBookkeeping()
        let elapsed = LockedState(Duration.zero)
        let restart: () -> @Sendable () -> Duration = { { elapsed.withLock { $0 } } }
        let firstAllowed = book.allowForcedRefresh(interval: .seconds(60), restart: restart)
        #expect(firstAllowed)
        elapsed.withLock { $0 = .seconds(secondsLater) }
        let secondAllowed = book.allowForcedRefresh(interval: .seconds(60), restart: restart)
        #expect(secondAllowed == allowed)
    }

    @Test func theStoredTokenServesDuringABackoffAndAfterALockedPrompt() {
        let now = Date(timeIntervalSince1970: 1_000)
        var book = RefreshBookkeeping()
        #expect(!book.allowsStoredTokenWithoutRefresh(now: now))
        book.lastFailure = .transient(.transient("503"), nextAttempt: now.addingTimeInterval(10))
        #expect(book.allowsStoredTokenWithoutRefresh(now: now))
        #expect(!book.allowsStoredTokenWithoutRefresh(now: now.addingTimeInterval(10)))
        book.lastFailure = .storage(.locked)
        #expect(book.allowsStoredTokenWithoutRefresh(now: now))
        book.lastFailure = .storage(.unavailable)
        #expect(!book.allowsStoredTokenWithoutRefresh(now: now))
    }

    private func connection(access: String, refresh: String, version: UInt64 = 1) -> Connection {
        var connection = Connection(
            id: "dev",
            account: Account(providerID: "dev", subject: "user-1"),
            tokens: TokenSet(
                accessToken: AccessToken(access),
                refreshToken: RefreshToken(refresh),
                receivedAt: Date(timeIntervalSince1970: 0),
                expiresAt: Date(timeIntervalSince1970: 3600)
            )
        )
        connection.version = version
        return connection
    }
}
