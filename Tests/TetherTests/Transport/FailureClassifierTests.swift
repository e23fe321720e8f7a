import Foundation
import HTTPTypes
import Testing
import Tether

struct FailureClassifierTests {
    struct StatusCase: Sendable, CustomTestStringConvertible {
        let status: Int
        let retryAfter: String?
        let expected: FailureClassifier.Verdict
        var testDescription: String { "\(status)" + (retryAfter.map { " Retry-After: \($0)" } ?? "") }

        init(_ status: Int, retryAfter: String? = nil, _ expected: FailureClassifier.Verdict) {
            self.status = status
            self.retryAfter = retryAfter
            self.expected = expected
        }
    }

    static let statusCases: [StatusCase] = [
        StatusCase(429, .throttled(retryAfter: nil)),
        StatusCase(429, retryAfter: "7", .throttled(retryAfter: .seconds(7))),
        StatusCase(503, .throttled(retryAfter: nil)),
        StatusCase(503, retryAfter: "120", .throttled(retryAfter: .seconds(120))),
        StatusCase(503, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT", .throttled(retryAfter: nil)),
        StatusCase(503, retryAfter: "-5", .throttled(retryAfter: nil)),
        // Huge delays are cut to one day instead of overflowing (or being dropped as unreadable).
        StatusCase(503, retryAfter: "9223372036854775807", .throttled(retryAfter: .seconds(86_400))),
        StatusCase(429, retryAfter: "99999999999999999999999999999", .throttled(retryAfter: .seconds(86_400))),
        StatusCase(500, .transient(retryAfter: nil)),
        StatusCase(502, .transient(retryAfter: nil)),
        StatusCase(504, retryAfter: "3", .transient(retryAfter: .seconds(3))),
        StatusCase(408, .transient(retryAfter: nil)),
        StatusCase(200, .transient(retryAfter: nil)),
        StatusCase(302, .permanent),
        StatusCase(400, .permanent),
        StatusCase(401, .permanent),
        StatusCase(403, .permanent),
        StatusCase(404, .permanent),
        StatusCase(400, retryAfter: "5", .permanent),
    ]

    @Test(arguments: statusCases)
    func statusDecidesWithoutRules(_ testCase: StatusCase) {
        var response = HTTPResponse(status: .init(code: testCase.status))
        if let retryAfter = testCase.retryAfter { response.headerFields[.retryAfter] = retryAfter }
        #expect(FailureClassifier.classify(response) == testCase.expected)
    }

    @Test(arguments: [
        (TransportError.cannotConnect, true), (.timedOut, true), (.connectionLost, true), (.cancelled, true),
        (.other, true), (.invalidRequest, false), (.responseTooLarge, false),
    ])
    func transportErrorsAreTransientUnlessTheyWouldRepeat(_ error: TransportError, transient: Bool) {
        #expect(FailureClassifier.classify(error).isTransient == transient)
        #expect(error.isTransient == transient)
    }

    @Test(arguments: [
        (TransportError.cannotConnect, "127.0.0.1:8080", FailureClassifier.TransportRetry.never),
        (.cannotConnect, "localhost:9", .never), (.cannotConnect, "[::1]:443", .never),
        (.cannotConnect, "127.8.0.1", .never),
        (.cannotConnect, "www.googleapis.com", .once), (.cannotConnect, "graph.microsoft.com:443", .once),
        (.timedOut, "127.0.0.1:8080", .backoff), (.timedOut, "www.googleapis.com", .backoff),
        (.connectionLost, "127.0.0.1:8080", .backoff), (.other, "www.googleapis.com", .backoff),
        (.cancelled, "www.googleapis.com", .never), (.invalidRequest, "www.googleapis.com", .never),
        (.responseTooLarge, "127.0.0.1:1", .never),
    ])
    func aRefusedConnectionOnLoopbackIsNotRetriedAndATimeoutIsWithTheBackoff(
        _ error: TransportError,
        authority: String,
        expected: FailureClassifier.TransportRetry
    ) {
        #expect(FailureClassifier.retry(after: error, authority: authority) == expected)
    }

    /// Google APIs answer `403` with reason `rateLimitExceeded` or `userRateLimitExceeded` when a quota is used up
    /// (https://developers.google.com/workspace/calendar/api/guides/errors).
    static let googleRateLimit: FailureClassifier.BodyRule = { response, body in
        guard response.status.code == 403,
            let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            let errors = (object["error"] as? [String: Any])?["errors"] as? [[String: Any]]
        else { return nil }
        let reasons = errors.compactMap { $0["reason"] as? String }
        return reasons.contains { $0 == "rateLimitExceeded" || $0 == "userRateLimitExceeded" }
            ? .throttled(retryAfter: FailureClassifier.retryAfter(response.headerFields)) : nil
    }

    static func googleError(reason: String) -> Data {
        Data(
            #"{"error":{"errors":[{"domain":"usageLimits","reason":"\#(reason)","message":"m"}],"code":403,"message":"m"}}"#
                .utf8
        )
    }

    @Test(arguments: [
        ("rateLimitExceeded", FailureClassifier.Verdict.throttled(retryAfter: nil)),
        ("userRateLimitExceeded", .throttled(retryAfter: nil)),
        ("forbiddenForNonOrganizer", .permanent),
    ])
    func bodyRulesCanCallA403ARateLimit(_ reason: String, expected: FailureClassifier.Verdict) {
        let response = HTTPResponse(status: .forbidden)
        let verdict = FailureClassifier.classify(
            response,
            body: Self.googleError(reason: reason),
            rules: [Self.googleRateLimit]
        )
        #expect(verdict == expected)
    }

    @Test func ruleThatAbstainsLeavesTheStatusToDecide() {
        let response = HTTPResponse(status: .serviceUnavailable)
        let verdict = FailureClassifier.classify(response, body: Data(), rules: [{ _, _ in nil }])
        #expect(verdict == .throttled(retryAfter: nil))
    }
}

struct FailureClassifierStatusCodeTests {
    @Test(arguments: [0, 99, 1_000, -1])
    func aCodeThatIsNoStatusIsPermanent(_ code: Int) {
        #expect(FailureClassifier.classify(statusCode: code) == .permanent)
    }

    @Test(arguments: [200, 302, 400, 403, 408, 429, 500, 502, 503, 504])
    func aCodeMeansWhatItsResponseMeans(_ code: Int) {
        let response = HTTPResponse(status: .init(code: code))
        #expect(FailureClassifier.classify(statusCode: code) == FailureClassifier.classify(response))
    }

    @Test func aRefreshErrorKindFollowsTheVerdict() {
        #expect(RefreshError.Kind(.throttled(retryAfter: .seconds(1))) == .transient)
        #expect(RefreshError.Kind(.transient(retryAfter: nil)) == .transient)
        #expect(RefreshError.Kind(.permanent) == .configuration)
    }
}
