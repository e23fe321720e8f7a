import Foundation
import HTTPTypes
import Testing
import Tether

@testable import TetherCalendar

struct FailurePolicyTests {
    /// An error as the authorized client throws it after its retries, with what the response said.
    static func failure(
        _ code: AuthorizedClientError,
        _ status: Int,
        _ body: String,
        retryAfter: Int? = nil
    ) -> AuthorizedClientError {
        code.with(
            message: "x",
            httpStatus: status,
            providerReasons: AuthorizedClient.providerReasons(Data(body.utf8)),
            retryAfter: retryAfter.map { .seconds($0) }
        )
    }

    static func googleError(_ code: Int, _ reason: String) -> String {
        #"{"error":{"errors":[{"domain":"usageLimits","reason":"\#(reason)","message":"x"}],"code":\#(code),"message":"x"}}"#
    }

    static func classify(_ error: any Error) throws -> CalendarError {
        try CalendarFailurePolicy.classify(error, target: "https://api/calendar")
    }

    /// Whether the calendar clients' authorized client sends the request again after this answer.
    static func isRetried(_ status: Int, _ body: String, retryAfter: Int? = nil) -> Bool {
        var response = HTTPResponse(status: .init(code: status))
        if let retryAfter { response.headerFields[.retryAfter] = "\(retryAfter)" }
        let configuration = CalendarFailurePolicy.clientConfiguration(backoff: .calendar)
        let verdict = FailureClassifier.classify(response, body: Data(body.utf8), rules: configuration.failureRules)
        switch verdict {
        case .throttled: return true
        case .transient: return configuration.retriesTransientFailures
        case .permanent: return false
        }
    }

    @Test(arguments: ["rateLimitExceeded", "userRateLimitExceeded"])
    func googleRateLimitsAnswered403AreRateLimitsNotForbidden(reason: String) throws {
        let body = Self.googleError(403, reason)
        let error = try Self.classify(Self.failure(.forbidden, 403, body))
        #expect(error == .rateLimited)
        #expect(error.providerReason == reason)
        #expect(Self.isRetried(403, body))
        let told = try Self.classify(Self.failure(.forbidden, 403, body, retryAfter: 4))
        #expect(told.retryAfter == .seconds(4))
    }

    @Test func a403WithoutARateLimitIsCalendarAccessDenied() throws {
        let body = Self.googleError(403, "insufficientPermissions")
        let error = try Self.classify(Self.failure(.forbidden, 403, body))
        #expect(error == .accessDenied)
        #expect(!Self.isRetried(403, body))
        let graphBody = #"{"error":{"code":"ErrorAccessDenied","message":"Access is denied."}}"#
        let graph = try Self.classify(Self.failure(.forbidden, 403, graphBody))
        #expect(graph == .accessDenied)
        #expect(graph.providerReason == "ErrorAccessDenied")
        #expect(!Self.isRetried(403, graphBody))
    }

    @Test func expiredSyncStatesFromEitherAPI() throws {
        let google =
            #"{"error":{"errors":[{"domain":"calendar","reason":"fullSyncRequired","message":"Sync token is no longer valid, a full sync is required.","locationType":"parameter","location":"syncToken"}],"code":410,"message":"Sync token is no longer valid, a full sync is required."}}"#
        #expect(try Self.classify(Self.failure(.server, 410, google)) == .syncStateExpired)
        #expect(try Self.classify(Self.failure(.server, 410, "")) == .syncStateExpired)
        let graph = #"{"error":{"code":"syncStateNotFound","message":"The sync state generation is not found."}}"#
        #expect(try Self.classify(Self.failure(.server, 400, graph)) == .syncStateExpired)
        // An expired sync state needs a full sync, not the same request again, whatever the status.
        #expect(!Self.isRetried(410, google))
        #expect(!Self.isRetried(503, graph))
    }

    @Test func throttlingAndServerErrorsAreTransient() throws {
        let tooMany = try Self.classify(Self.failure(.server, 429, "", retryAfter: 3))
        #expect(tooMany == .rateLimited)
        #expect(tooMany.retryAfter == .seconds(3))
        #expect(try Self.classify(Self.failure(.server, 503, "", retryAfter: 2)) == .rateLimited)
        let unavailable = try Self.classify(Self.failure(.server, 503, ""))
        #expect(unavailable == .offline)
        #expect(Self.isRetried(503, ""))
        #expect(try Self.classify(Self.failure(.server, 404, "")) == .api)
        let noNetwork = try Self.classify(AuthorizedClientError.transport)
        #expect(noNetwork == .offline)
        #expect(noNetwork.httpStatus == nil)
    }

    /// The statuses follow the package's one failure classifier: what it calls throttled or transient is retried
    /// here too, what it calls permanent is an API error.
    @Test(arguments: [
        (408, CalendarError.offline), (429, .rateLimited), (500, .offline), (501, .offline), (502, .offline),
        (504, .offline), (400, .api), (404, .api), (409, .api), (422, .api),
    ])
    func statusesMeanWhatTheFailureClassifierSays(status: Int, expected: CalendarError) throws {
        let error = try Self.classify(Self.failure(.server, status, ""))
        #expect(error == expected)
        #expect(error.httpStatus == status)
        #expect(Self.isRetried(status, "") == (expected != .api))
    }

    @Test func sessionFailuresKeepTheirMeaning() throws {
        #expect(try Self.classify(SessionError.needsSignIn) == .needsSignIn)
        #expect(try Self.classify(SessionError.notConnected) == .needsSignIn)
        #expect(try Self.classify(SessionError.offline) == .offline)
        #expect(try Self.classify(SessionError.storageUnavailable) == .storageUnavailable)
        #expect(try Self.classify(SessionError.misconfigured) == .misconfigured)
        #expect(try Self.classify(AuthorizedClientError.unauthorized) == .api)
        #expect(throws: CancellationError.self) { try Self.classify(CancellationError()) }
    }

    @Test func calendarBackoffDoublesHonoursRetryAfterAndStops() {
        let backoff = Backoff.calendar
        var random = SystemRandomNumberGenerator()
        #expect(backoff.maximumAttempts == 4)
        let waits = (1...5).map { backoff.delay(afterAttempt: $0, retryAfter: nil, using: &random) }
        #expect(waits == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16)])
        #expect(backoff.delay(afterAttempt: 9, retryAfter: nil, using: &random) == .seconds(16))
        #expect(backoff.delay(afterAttempt: 1, retryAfter: .seconds(60), using: &random) == .seconds(60))
        #expect(backoff.delay(afterAttempt: 1, retryAfter: .seconds(61), using: &random) == nil)
    }
}
