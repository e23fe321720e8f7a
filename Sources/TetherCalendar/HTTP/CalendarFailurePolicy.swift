import Foundation
import HTTPTypes
import Tether

/// The one place that decides what a failed calendar request means: which statuses and provider reasons are
/// rate limits or transient failures (retried with backoff by the ``Tether/AuthorizedClient``), which mean the
/// sync state expired, which mean the calendar may not be read, and which need the user to sign in.
enum CalendarFailurePolicy {
    /// Google's error reasons for rate limits: "Handle API errors"
    /// (<https://developers.google.com/calendar/api/guides/errors>), `403` and `429` variants.
    static let googleRateLimitReasons: Set<String> = ["rateLimitExceeded", "userRateLimitExceeded"]
    /// Google's reasons for an expired sync token (`410`): `fullSyncRequired`, and `updatedMinTooLongAgo` for
    /// `updatedMin`.
    static let googleSyncReasons: Set<String> = ["fullSyncRequired", "updatedMinTooLongAgo"]
    /// Graph's error codes for a delta token that is no longer valid ("Get incremental changes to events in a
    /// calendar view", <https://learn.microsoft.com/graph/delta-query-events>).
    static let graphSyncCodes: Set<String> = ["syncStateNotFound", "syncStateInvalid", "resyncRequired"]

    /// What the calendar APIs say in their error bodies that the status does not, for the
    /// ``Tether/AuthorizedClient``'s one retry loop: an expired sync state is final whatever the status (it needs a
    /// full sync, not a retry), and Google's rate-limit reasons are rate limits whatever the status, `403` included
    /// ("Handle API errors", <https://developers.google.com/workspace/calendar/api/guides/errors>: the reason
    /// `rateLimitExceeded` comes with `403` or `429`, and the client backs off exponentially).
    static let rule: FailureClassifier.BodyRule = { response, body in
        let reasons = AuthorizedClient.providerReasons(body)
        if response.status.code == 410 || reasons.contains(where: isSyncReason) { return .permanent }
        if reasons.contains(where: googleRateLimitReasons.contains) {
            return .throttled(retryAfter: FailureClassifier.retryAfter(response.headerFields))
        }
        return nil
    }

    /// The authorized client's configuration for calendar reads: the calendar rule, the backoff, and transient
    /// server errors retried as well (the reads are GETs, safe to repeat).
    static func clientConfiguration(backoff: Backoff) -> AuthorizedClient.Configuration {
        AuthorizedClient.Configuration(backoff: backoff, retriesTransientFailures: true, failureRules: [rule])
    }

    private static func isSyncReason(_ reason: String) -> Bool {
        googleSyncReasons.contains(reason) || graphSyncCodes.contains(reason)
    }

    /// Turns what a request threw, after the client's retries, into a ``CalendarError``. `CancellationError` is
    /// passed through.
    static func classify(_ error: any Error, target: String) throws -> CalendarError {
        if error is CancellationError { throw error }
        if let error = error as? CalendarError { return error }
        if let error = error as? AuthorizedClientError {
            let reasons = error.providerReasons
            let reason = reasons.first
            switch error {
            case AuthorizedClientError.unauthorized:
                if error.requiresSignIn {
                    return CalendarError.needsSignIn.with(
                        message: "\(target) needs the account to sign in again"
                            + (error.signInReason.map { ": \($0.message)" } ?? ""),
                        httpStatus: 401,
                        cause: error
                    )
                }
                return CalendarError.api.with(
                    message: "\(target) rejected the access token even after a refresh",
                    httpStatus: 401,
                    providerReason: reason,
                    cause: error
                )
            case AuthorizedClientError.forbidden:
                if let limit = reasons.first(where: googleRateLimitReasons.contains) {
                    return CalendarError.rateLimited.with(
                        message: "\(target) is limiting requests (\(limit))",
                        httpStatus: 403,
                        providerReason: limit,
                        retryAfter: error.retryAfter,
                        cause: error
                    )
                }
                let scope = error.scope.map { " without the scope \($0)" } ?? ""
                return CalendarError.accessDenied.with(
                    message: "\(target) refused access to the calendar\(scope)",
                    httpStatus: 403,
                    providerReason: reason ?? error.scope.map { _ in "insufficient_scope" },
                    cause: error
                )
            case AuthorizedClientError.server:
                let status = error.httpStatus ?? 0
                return classify(status: status, reasons: reasons, retryAfter: error.retryAfter)
                    .with(
                        message: message(status: status, reasons: reasons, target: target),
                        httpStatus: status,
                        providerReason: reason,
                        retryAfter: error.retryAfter,
                        cause: error
                    )
            case AuthorizedClientError.transport:
                return CalendarError.offline.with(message: error.message, cause: error)
            case AuthorizedClientError.decoding:
                return CalendarError.decoding.with(message: error.message, cause: error)
            default:
                return CalendarError.api.with(message: error.message, cause: error)
            }
        }
        if let error = error as? SessionError {
            switch error {
            case SessionError.needsSignIn, SessionError.notConnected:
                return CalendarError.needsSignIn.with(
                    message: error.message,
                    accountHint: error.accountHint,
                    cause: error
                )
            case SessionError.offline:
                return CalendarError.offline.with(message: error.message, cause: error)
            case SessionError.storageUnavailable:
                return CalendarError.storageUnavailable.with(message: error.message, cause: error)
            default:
                return CalendarError.misconfigured.with(message: error.message, cause: error)
            }
        }
        if let error = error as? TransportError {
            return CalendarError.offline.with(message: error.message, cause: error)
        }
        return CalendarError.api.with(message: "\(target) failed: \(type(of: error))", cause: error)
    }

    private static func classify(status: Int, reasons: [String], retryAfter: Duration?) -> CalendarError {
        if status == 410 || reasons.contains(where: isSyncReason) { return .syncStateExpired }
        if reasons.contains(where: googleRateLimitReasons.contains) { return .rateLimited }
        // The statuses mean what they mean everywhere in Tether; a 503 is a rate limit only when the service says
        // when to come back (Graph's throttling, https://learn.microsoft.com/graph/throttling), else an outage.
        switch FailureClassifier.classify(statusCode: status, retryAfter: retryAfter) {
        case .throttled(let retryAfter) where status == 429 || retryAfter != nil: return .rateLimited
        case .throttled, .transient: return .offline
        case .permanent: return .api
        }
    }

    private static func message(status: Int, reasons: [String], target: String) -> String {
        let reason = reasons.first.map { " (\($0))" } ?? ""
        return "\(target) answered HTTP \(status)\(reason)"
    }
}
