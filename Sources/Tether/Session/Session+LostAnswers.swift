package import Foundation
import Logging

extension Session {
    /// Remembers a refresh that was sent at `sentAt` but got no usable answer: the provider may have rotated
    /// `refreshToken` then, and may answer a retry with the tokens it issued then.
    func noteUnanswered(_ refreshToken: RefreshToken, attempt: Int, sentAt: Date) {
        bookkeeping.noteUnanswered(refreshToken, sentAt: sentAt)
        counts.unansweredRefreshes += 1
        logger.debug(
            "Refresh got no usable answer; the provider may have rotated the refresh token",
            metadata: [
                "session.attempt": "\(attempt)", "session.unanswered_refreshes": "\(counts.unansweredRefreshes)",
            ]
        )
    }

    /// The earliest time an answer to a refresh with `refreshToken` may date from: when the first unanswered
    /// refresh with it was sent, or `nil` when every refresh with it was answered. Some providers answer a refresh
    /// token presented again within their grace period with the very response they issued the first time, its
    /// `expires_in` counting from then (RFC 9700 §4.14.2 leaves the answer open; django-oauth-toolkit's
    /// `_save_bearer_token` returns the access token it issued then with a full `expires_in`, and so does the
    /// development provider). Counting from the later receipt would hand out a token the provider holds expired.
    func answerMayDateFrom(_ refreshToken: RefreshToken) -> Date? {
        bookkeeping.answerMayDateFrom(refreshToken)
    }

    /// Tells a session that runs one refresh for another process (the CLI's refresh worker) that its caller's earlier
    /// attempt with the same refresh token got no answer at `date`, so that the tokens it stores count their
    /// lifetime from then. The next successful refresh clears it.
    package func assumeUnansweredRefresh(since date: Date) {
        bookkeeping.assumeUnanswered(since: date)
    }

    /// The reason to end the grant with: an `invalid_grant` for a refresh token whose earlier refresh got no answer
    /// most likely means the provider rotated it then and its answer was lost (RFC 9700 §4.14.2: a rotated refresh
    /// token presented again is treated as reuse). Counted; ``endGrant(_:reason:failure:)`` logs it.
    func reasonAfterLostAnswers(_ reason: SignInReason, for refreshToken: RefreshToken) -> SignInReason {
        guard bookkeeping.answerWasLost(reason, for: refreshToken) else { return reason }
        counts.lostRefreshAnswers += 1
        return .refreshAnswerLost
    }
}
