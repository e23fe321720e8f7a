import Foundation
import Testing
import Tether

@testable import TetherCalendar

struct FailurePolicyTests {
    static func response(_ status: Int, _ body: String, retryAfter: Int? = nil) -> CalendarFailurePolicy.ErrorResponse {
        CalendarFailurePolicy.ErrorResponse(
            status: status,
            retryAfter: retryAfter.map { .seconds($0) },
            body: Data(body.utf8)
        )
    }

    static func googleError(_ code: Int, _ reason: String) -> String {
        #"{"error":{"errors":[{"domain":"usageLimits","reason":"\#(reason)","message":"x"}],"code":\#(code),"message":"x"}}"#
    }

    static func classify(_ error: any Error, _ response: CalendarFailurePolicy.ErrorResponse?) throws -> CalendarError {
        try CalendarFailurePolicy.classify(error, response: response, target: "https://api/calendar")
    }

    @Test(arguments: ["rateLimitExceeded", "userRateLimitExceeded"])
    func googleRateLimitsAnswered403AreRateLimitsNotForbidden(reason: String) throws {
        let error = try Self.classify(
            AuthorizedClientError.forbidden,
            Self.response(403, Self.googleError(403, reason))
        )
        #expect(error == .rateLimited)
        #expect(error.providerReason == reason)
        #expect(CalendarFailurePolicy.isRetriable(error))
    }

    @Test func a403WithoutARateLimitIsCalendarAccessDenied() throws {
        let body = Self.googleError(403, "insufficientPermissions")
        let error = try Self.classify(AuthorizedClientError.forbidden, Self.response(403, body))
        #expect(error == .accessDenied)
        #expect(!CalendarFailurePolicy.isRetriable(error))
        let graph = try Self.classify(
            AuthorizedClientError.forbidden,
            Self.response(403, #"{"error":{"code":"ErrorAccessDenied","message":"Access is denied."}}"#)
        )
        #expect(graph == .accessDenied)
        #expect(graph.providerReason == "ErrorAccessDenied")
    }

    @Test func expiredSyncStatesFromEitherAPI() throws {
        let google =
            #"{"error":{"errors":[{"domain":"calendar","reason":"fullSyncRequired","message":"Sync token is no longer valid, a full sync is required.","locationType":"parameter","location":"syncToken"}],"code":410,"message":"Sync token is no longer valid, a full sync is required."}}"#
        #expect(try Self.classify(AuthorizedClientError.server, Self.response(410, google)) == .syncStateExpired)
        #expect(try Self.classify(AuthorizedClientError.server, Self.response(410, "")) == .syncStateExpired)
        let graph = #"{"error":{"code":"syncStateNotFound","message":"The sync state generation is not found."}}"#
        #expect(try Self.classify(AuthorizedClientError.server, Self.response(400, graph)) == .syncStateExpired)
    }

    @Test func throttlingAndServerErrorsAreTransient() throws {
        let tooMany = try Self.classify(AuthorizedClientError.server, Self.response(429, "", retryAfter: 3))
        #expect(tooMany == .rateLimited)
        #expect(tooMany.retryAfter == .seconds(3))
        #expect(try Self.classify(AuthorizedClientError.server, Self.response(503, "", retryAfter: 2)) == .rateLimited)
        let unavailable = try Self.classify(AuthorizedClientError.server, Self.response(503, ""))
        #expect(unavailable == .offline)
        #expect(CalendarFailurePolicy.isRetriable(unavailable))
        #expect(try Self.classify(AuthorizedClientError.server, Self.response(404, "")) == .api)
        let noNetwork = try Self.classify(AuthorizedClientError.transport, nil)
        #expect(noNetwork == .offline)
        #expect(!CalendarFailurePolicy.isRetriable(noNetwork))
    }

    /// The statuses follow the package's one retry policy: what it calls throttled or transient is retried here
    /// too, what it calls permanent is an API error.
    @Test(arguments: [
        (408, CalendarError.offline), (429, .rateLimited), (500, .offline), (501, .offline), (502, .offline),
        (504, .offline), (400, .api), (404, .api), (409, .api), (422, .api),
    ])
    func statusesMeanWhatTheRetryPolicySays(status: Int, expected: CalendarError) throws {
        let error = try Self.classify(AuthorizedClientError.server, Self.response(status, ""))
        #expect(error == expected)
        #expect(error.httpStatus == status)
        #expect(CalendarFailurePolicy.isRetriable(error) == (expected != .api))
    }

    @Test func sessionFailuresKeepTheirMeaning() throws {
        #expect(try Self.classify(SessionError.needsSignIn, nil) == .needsSignIn)
        #expect(try Self.classify(SessionError.notConnected, nil) == .needsSignIn)
        #expect(try Self.classify(SessionError.offline, nil) == .offline)
        #expect(try Self.classify(SessionError.storageUnavailable, nil) == .storageUnavailable)
        #expect(try Self.classify(SessionError.misconfigured, nil) == .misconfigured)
        #expect(try Self.classify(AuthorizedClientError.unauthorized, nil) == .api)
        #expect(throws: CancellationError.self) { try Self.classify(CancellationError(), nil) }
    }

    @Test func backoffDoublesHonoursRetryAfterAndStops() {
        let policy = CalendarRetryPolicy(
            maximumAttempts: 4,
            initialDelay: .seconds(1),
            maximumDelay: .seconds(3),
            maximumRetryAfter: .seconds(10)
        )
        let limited = CalendarError.rateLimited
        #expect(CalendarFailurePolicy.delay(after: 1, error: limited, policy: policy) == .seconds(1))
        #expect(CalendarFailurePolicy.delay(after: 2, error: limited, policy: policy) == .seconds(2))
        #expect(CalendarFailurePolicy.delay(after: 3, error: limited, policy: policy) == .seconds(3))
        #expect(CalendarFailurePolicy.delay(after: 4, error: limited, policy: policy) == nil)
        let told = limited.with(message: "x", retryAfter: .seconds(7))
        #expect(CalendarFailurePolicy.delay(after: 1, error: told, policy: policy) == .seconds(7))
        let tooLong = limited.with(message: "x", retryAfter: .seconds(11))
        #expect(CalendarFailurePolicy.delay(after: 1, error: tooLong, policy: policy) == nil)
        #expect(CalendarFailurePolicy.delay(after: 1, error: .accessDenied, policy: policy) == nil)
    }
}
