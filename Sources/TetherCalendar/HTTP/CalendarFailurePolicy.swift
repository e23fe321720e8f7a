import Foundation
import HTTPTypes
import Tether

/// The one place that decides what a failed calendar request means: which statuses and provider reasons are
/// rate limits or transient failures (retried with backoff), which mean the sync state expired, which mean the
/// calendar may not be read, and which need the user to sign in.
enum CalendarFailurePolicy {
    /// The last error response a request received, captured below the `AuthorizedClient` so that the provider's
    /// reason (which `AuthorizedClientError` does not carry) can be read. The body is kept up to 16 KiB and read
    /// only for its error reason.
    struct ErrorResponse: Sendable {
        var status: Int
        var retryAfter: Duration?
        var body: Data
    }

    /// Google's error reasons for rate limits: "Handle API errors"
    /// (<https://developers.google.com/calendar/api/guides/errors>), `403` and `429` variants.
    static let googleRateLimitReasons: Set<String> = ["rateLimitExceeded", "userRateLimitExceeded"]
    /// Google's reasons for an expired sync token (`410`): `fullSyncRequired`, and `updatedMinTooLongAgo` for
    /// `updatedMin`.
    static let googleSyncReasons: Set<String> = ["fullSyncRequired", "updatedMinTooLongAgo"]
    /// Graph's error codes for a delta token that is no longer valid ("Get incremental changes to events in a
    /// calendar view", <https://learn.microsoft.com/graph/delta-query-events>).
    static let graphSyncCodes: Set<String> = ["syncStateNotFound", "syncStateInvalid", "resyncRequired"]

    /// Turns what a request threw into a ``CalendarError``. `CancellationError` is passed through.
    static func classify(_ error: any Error, response: ErrorResponse?, target: String) throws -> CalendarError {
        if error is CancellationError { throw error }
        if let error = error as? CalendarError { return error }
        let reasons = response.map { providerReasons($0.body) } ?? []
        let reason = reasons.first
        if let error = error as? AuthorizedClientError {
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
                        retryAfter: response?.retryAfter,
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
                let status = error.httpStatus ?? response?.status ?? 0
                return classify(status: status, reasons: reasons, response: response, target: target)
                    .with(
                        message: message(status: status, reasons: reasons, target: target),
                        httpStatus: status,
                        providerReason: reason,
                        retryAfter: error.retryAfter ?? response?.retryAfter,
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

    private static func classify(
        status: Int,
        reasons: [String],
        response: ErrorResponse?,
        target: String
    ) -> CalendarError {
        if status == 410 || reasons.contains(where: { googleSyncReasons.contains($0) || graphSyncCodes.contains($0) }) {
            return .syncStateExpired
        }
        if reasons.contains(where: googleRateLimitReasons.contains) { return .rateLimited }
        // The statuses mean what they mean everywhere in Tether; a 503 is a rate limit only when the service says
        // when to come back (Graph's throttling, https://learn.microsoft.com/graph/throttling), else an outage.
        var fields = HTTPFields()
        if let retryAfter = response?.retryAfter { fields[.retryAfter] = "\(retryAfter.components.seconds)" }
        switch FailureClassifier.classify(HTTPResponse(status: .init(code: status), headerFields: fields)) {
        case .throttled(let retryAfter) where status == 429 || retryAfter != nil: return .rateLimited
        case .throttled, .transient: return .offline
        case .permanent: return .api
        }
    }

    private static func message(status: Int, reasons: [String], target: String) -> String {
        let reason = reasons.first.map { " (\($0))" } ?? ""
        return "\(target) answered HTTP \(status)\(reason)"
    }

    /// Whether a request that failed this way is worth sending again after a pause: rate limits, and server
    /// errors that had a response (a missing network is reported at once rather than waited out).
    static func isRetriable(_ error: CalendarError) -> Bool {
        error == .rateLimited || (error == .offline && error.httpStatus != nil)
    }

    /// The pause before attempt `attempt + 1`, or `nil` to give up: `Retry-After` when the service sent one
    /// (up to the policy's limit), else exponential backoff from the initial delay.
    static func delay(after attempt: Int, error: CalendarError, policy: CalendarRetryPolicy) -> Duration? {
        guard isRetriable(error), attempt < policy.maximumAttempts else { return nil }
        if let retryAfter = error.retryAfter {
            return retryAfter <= policy.maximumRetryAfter ? retryAfter : nil
        }
        var delay = policy.initialDelay
        for _ in 1..<attempt { delay = min(delay * 2, policy.maximumDelay) }
        return min(delay, policy.maximumDelay)
    }

    /// The reasons an error body gives: Google's `error.errors[].reason` and `error.status`, Graph's
    /// `error.code` and `error.innerError.code`.
    static func providerReasons(_ body: Data) -> [String] {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            let error = object["error"] as? [String: Any]
        else { return [] }
        var reasons: [String] = []
        if let errors = error["errors"] as? [[String: Any]] {
            reasons += errors.compactMap { $0["reason"] as? String }
        }
        if let code = error["code"] as? String { reasons.append(code) }
        if let inner = (error["innerError"] ?? error["innererror"]) as? [String: Any],
            let code = inner["code"] as? String
        {
            reasons.append(code)
        }
        if let status = error["status"] as? String { reasons.append(status) }
        return reasons
    }

    /// `Retry-After` as a number of seconds (RFC 9110 §10.2.3); an HTTP date is left to the backoff.
    static func retryAfter(_ response: HTTPResponse) -> Duration? {
        guard let value = response.headerFields[.retryAfter], let seconds = Int(value), seconds >= 0 else {
            return nil
        }
        return .seconds(seconds)
    }
}
