import Foundation
import HTTPTypes
import Hummingbird

/// An error of the calendar APIs in the real services' shapes: Google's
/// `{"error":{"errors":[{domain, reason, message}], code, message}}` (Google Calendar API,
/// "Handle API errors", https://developers.google.com/calendar/api/guides/errors) and Graph's
/// `{"error":{"code", "message", "innerError"}}` (https://learn.microsoft.com/graph/errors).
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
struct CalendarAPIError: HTTPResponseError {
    let status: HTTPResponse.Status
    let body: JSONOutput
    var headers: HTTPFields = [:]

    func response(from request: Request, context: some RequestContext) throws -> Response {
        HTTPResponses.json(self.body, status: self.status, headers: self.headers)
    }

    // MARK: Google

    static func google(
        _ status: Int,
        reason: String,
        message: String,
        domain: String = "global",
        location: (type: String, name: String)? = nil,
        statusName: String? = nil,
        headers: HTTPFields = [:]
    ) -> CalendarAPIError {
        var item: [String: JSONOutput] = [
            "domain": .string(domain), "reason": .string(reason), "message": .string(message),
        ]
        if let location {
            item["locationType"] = .string(location.type)
            item["location"] = .string(location.name)
        }
        var error: [String: JSONOutput] = [
            "errors": [.object(item)], "code": .int(status), "message": .string(message),
        ]
        if let statusName {
            error["status"] = .string(statusName)
        }
        return CalendarAPIError(
            status: HTTPResponse.Status(code: status),
            body: ["error": .object(error)],
            headers: headers
        )
    }

    /// 401 for a missing, unknown or expired token.
    static func googleUnauthorized(missing: Bool, realm: String) -> CalendarAPIError {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] =
            missing ? #"Bearer realm="\#(realm)""# : #"Bearer realm="\#(realm)", error="invalid_token""#
        return missing
            ? .google(
                401,
                reason: "required",
                message:
                    "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                location: ("header", "Authorization"),
                statusName: "UNAUTHENTICATED",
                headers: headers
            )
            : .google(
                401,
                reason: "authError",
                message:
                    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                location: ("header", "Authorization"),
                statusName: "UNAUTHENTICATED",
                headers: headers
            )
    }

    /// 403 `insufficientPermissions` with the challenge Google sends (its `error` value unquoted,
    /// which RFC 7235 §2.1 allows for a token).
    static func googleInsufficientScope(realm: String, scopes: [String]) -> CalendarAPIError {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] =
            #"Bearer realm="\#(realm)", error=insufficient_scope, scope="\#(scopes.joined(separator: " "))""#
        return .google(
            403,
            reason: "insufficientPermissions",
            message: "Request had insufficient authentication scopes.",
            statusName: "PERMISSION_DENIED",
            headers: headers
        )
    }

    /// 403 `rateLimitExceeded` / `userRateLimitExceeded`, or 429.
    static func googleRateLimit(status: Int, reason: String, retryAfter: Int) -> CalendarAPIError {
        var headers = HTTPFields()
        if status == 429 {
            headers[.retryAfter] = "\(retryAfter)"
        }
        let message = reason == "userRateLimitExceeded" ? "User Rate Limit Exceeded" : "Rate Limit Exceeded"
        return .google(status, reason: reason, message: message, domain: "usageLimits", headers: headers)
    }

    static func googleBackendError(status: Int) -> CalendarAPIError {
        .google(status, reason: "backendError", message: "Backend Error")
    }

    /// 410 for a sync token that is no longer valid.
    static let googleFullSyncRequired = CalendarAPIError.google(
        410,
        reason: "fullSyncRequired",
        message: "Sync token is no longer valid, a full sync is required.",
        domain: "calendar",
        location: ("parameter", "syncToken")
    )

    static let googleNotFound = CalendarAPIError.google(404, reason: "notFound", message: "Not Found")

    /// 410 `deleted` for a calendar that was deleted (Google's "Resource has been deleted").
    static let googleDeleted = CalendarAPIError.google(410, reason: "deleted", message: "Resource has been deleted")

    static func googleInvalid(_ message: String, parameter: String? = nil) -> CalendarAPIError {
        .google(400, reason: "invalid", message: message, location: parameter.map { ("parameter", $0) })
    }

    // MARK: Microsoft Graph

    static func graph(
        _ status: Int,
        code: String,
        message: String,
        now: Date,
        headers: HTTPFields = [:]
    ) -> CalendarAPIError {
        let requestID = RandomToken.uuid()
        let innerError: JSONOutput = [
            "date": .string(CalendarTime.utcSeconds(now).replacingOccurrences(of: "Z", with: "")),
            "request-id": .string(requestID),
            "client-request-id": .string(requestID),
        ]
        var headers = headers
        headers[HTTPField.Name("request-id")!] = requestID
        return CalendarAPIError(
            status: HTTPResponse.Status(code: status),
            body: ["error": ["code": .string(code), "message": .string(message), "innerError": innerError]],
            headers: headers
        )
    }

    /// 401 `InvalidAuthenticationToken` with Graph's challenge: no `error` attribute.
    static func graphUnauthorized(message: String, authorizationURI: String, now: Date) -> CalendarAPIError {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] =
            #"Bearer realm="", authorization_uri="\#(authorizationURI)", client_id="00000003-0000-0000-c000-000000000000""#
        return .graph(401, code: "InvalidAuthenticationToken", message: message, now: now, headers: headers)
    }

    static func graphAccessDenied(now: Date) -> CalendarAPIError {
        .graph(403, code: "ErrorAccessDenied", message: "Access is denied. Check credentials and try again.", now: now)
    }

    /// 429 `TooManyRequests` or 503 `serviceNotAvailable`, both with `Retry-After`
    /// (https://learn.microsoft.com/graph/throttling).
    static func graphThrottled(status: Int, retryAfter: Int, now: Date) -> CalendarAPIError {
        var headers = HTTPFields()
        headers[.retryAfter] = "\(retryAfter)"
        return status == 429
            ? .graph(429, code: "TooManyRequests", message: "Please retry again later.", now: now, headers: headers)
            : .graph(
                status,
                code: "serviceNotAvailable",
                message: "The service is temporarily unavailable. Please retry after the Retry-After interval.",
                now: now,
                headers: headers
            )
    }

    /// 410 `syncStateNotFound` with a `Location` that restarts the round.
    static func graphSyncStateNotFound(restart: String?, now: Date) -> CalendarAPIError {
        var headers = HTTPFields()
        if let restart {
            headers[.location] = restart
        }
        return .graph(
            410,
            code: "syncStateNotFound",
            message: "The sync state generation is not found. Restart the sync without a delta token.",
            now: now,
            headers: headers
        )
    }

    static func graphNotFound(now: Date) -> CalendarAPIError {
        .graph(404, code: "ErrorItemNotFound", message: "The specified object was not found in the store.", now: now)
    }

    static func graphInvalid(_ message: String, now: Date) -> CalendarAPIError {
        .graph(400, code: "ErrorInvalidParameter", message: message, now: now)
    }
}

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension CalendarAPIError {
    /// An injected server error or rate limit at a calendar API.
    static func fault(_ decision: FaultDecision, endpoint: DevProvider.Endpoint, now: Date) -> CalendarAPIError {
        let isGoogle = endpoint == .googleCalendar
        switch decision {
        case .rateLimit(let retryAfter, let status, let reason):
            return isGoogle
                ? .googleRateLimit(status: status, reason: reason, retryAfter: retryAfter)
                : .graphThrottled(status: status == 403 ? 429 : status, retryAfter: retryAfter, now: now)
        case .serverError(let status, let retryAfter):
            return isGoogle
                ? .googleBackendError(status: status)
                : .graphThrottled(status: status, retryAfter: retryAfter, now: now)
        case .proceed, .drop, .dropAnswer, .delay:
            return .googleBackendError(status: 500)
        }
    }
}

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider.Endpoint {
    /// Whether the endpoint is one of the calendar APIs.
    var isCalendar: Bool {
        self == .googleCalendar || self == .graphCalendar
    }
}
