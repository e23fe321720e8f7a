package import Foundation
package import HTTPTypes

/// What a failed HTTP exchange means for trying again: the one definition the OAuth client, discovery, the session,
/// the authorized client, the API clients and the command line share.
///
/// The reasons, status by status:
/// - `429 Too Many Requests` (RFC 6585 §4) and `503 Service Unavailable` (RFC 9110 §15.6.4): the server asks the
///   caller to come back later, often with `Retry-After`. ``Verdict/throttled(retryAfter:)``.
/// - Other `5xx` (RFC 9110 §15.6): the server failed, not the request; a later attempt may succeed.
///   ``Verdict/transient(retryAfter:)``.
/// - `408 Request Timeout` (RFC 9110 §15.5.9): the server closed an idle connection; the client may repeat the
///   request. ``Verdict/transient(retryAfter:)``.
/// - Other `4xx`, and `3xx` (never followed by Tether, so repeating gives the same redirect): the request itself
///   is refused; repeating it unchanged gives the same answer. ``Verdict/permanent``.
/// - `2xx` whose body cannot be used (an HTML page where JSON was due): a captive portal or a proxy's login page
///   answered instead of the server, so the server was never reached. ``Verdict/transient(retryAfter:)``.
/// - No response (``TransportError``): transient, except a request that cannot be sent as built
///   (``TransportError/invalidRequest``) or a response over the size limit (``TransportError/responseTooLarge``),
///   which repeat identically.
///
/// Some APIs signal rate limits in the body of another status, such as Google's `403` with reason
/// `rateLimitExceeded` or `userRateLimitExceeded` (https://developers.google.com/workspace/calendar/api/guides/errors).
/// Callers pass such knowledge as a ``BodyRule``; rules are asked first, in order. An ``AuthorizedClient`` takes
/// them in its configuration.
///
/// How long to wait between attempts is not decided here but by a ``Backoff``, which honours the verdict's
/// ``Verdict/retryAfter``.
package enum FailureClassifier {
    /// What to do about a failure.
    package enum Verdict: Sendable, Hashable {
        /// The server asked the caller to slow down or come back later; wait `retryAfter` if given.
        case throttled(retryAfter: Duration?)
        /// The server or the path to it failed; a later attempt may succeed.
        case transient(retryAfter: Duration?)
        /// Do not retry: repeating the same request gives the same answer. It says nothing about the grant: an
        /// OAuth client reads it as a configuration error unless the provider's error code says the grant is gone
        /// (see `RefreshError.Kind.init(_:)`).
        case permanent

        /// Whether a later attempt may succeed.
        package var isTransient: Bool { self != .permanent }

        /// How long the server asked to wait, if it did.
        package var retryAfter: Duration? {
            switch self {
            case .throttled(let delay), .transient(let delay): delay
            case .permanent: nil
            }
        }
    }

    /// Classifies a response from its body, for APIs that signal rate limits there; `nil` leaves the decision to
    /// the status.
    package typealias BodyRule = @Sendable (_ response: HTTPResponse, _ body: Data) -> Verdict?

    /// Classifies a response that was not what the caller needed.
    /// - Parameters:
    ///   - response: The response; its status and `Retry-After` decide.
    ///   - body: Its body, for the rules.
    ///   - rules: Body-based rules, asked first, in order.
    /// - Returns: The verdict.
    package static func classify(_ response: HTTPResponse, body: Data = Data(), rules: [BodyRule] = []) -> Verdict {
        for rule in rules {
            if let verdict = rule(response, body) { return verdict }
        }
        return classify(status: response.status, retryAfter: retryAfter(response.headerFields))
    }

    /// Classifies a status without its response, as an error that kept only the status and the `Retry-After`
    /// delay can.
    /// - Parameters:
    ///   - status: The response status.
    ///   - retryAfter: The delay the response asked for, if any.
    /// - Returns: The verdict.
    package static func classify(status: HTTPResponse.Status, retryAfter: Duration? = nil) -> Verdict {
        switch status.code {
        case 429, 503: return .throttled(retryAfter: retryAfter)
        case 408: return .transient(retryAfter: retryAfter)
        default: break
        }
        switch status.kind {
        case .successful, .serverError: return .transient(retryAfter: retryAfter)
        default: return .permanent
        }
    }

    /// Classifies a status code kept in an error, such as ``AuthorizedClientError/httpStatus``.
    /// - Parameters:
    ///   - code: The status code; one outside 100–999 is ``Verdict/permanent``.
    ///   - retryAfter: The delay the response asked for, if any.
    /// - Returns: The verdict.
    package static func classify(statusCode code: Int, retryAfter: Duration? = nil) -> Verdict {
        guard (100...999).contains(code) else { return .permanent }
        return classify(status: HTTPResponse.Status(code: code), retryAfter: retryAfter)
    }

    /// Classifies a failure below HTTP.
    /// - Parameter error: The transport's error.
    /// - Returns: ``Verdict/permanent`` for an invalid request or an oversized response, else transient.
    package static func classify(_ error: TransportError) -> Verdict {
        error == .invalidRequest || error == .responseTooLarge ? .permanent : .transient(retryAfter: nil)
    }

    /// How a request that got no response may be sent again within the same call.
    package enum TransportRetry: Sendable, Hashable {
        /// Not at all: the call fails now.
        case never
        /// One more attempt, after the backoff's first delay.
        case once
        /// As for a transient server error: the backoff's attempts and delays.
        case backoff
    }

    /// Whether and how to retry a request to `authority` that failed below HTTP.
    ///
    /// - A connection that could not be made to a loopback host (127.0.0.0/8, `::1`, `localhost`): never. Nothing
    ///   listens on the port — a local server that is not running — and no network between can have dropped the
    ///   attempt, so the same attempt a second later meets the same closed port. The caller falls back (to a
    ///   cache, a stand-in) at once.
    /// - A connection that could not be made to another host (refused, no route, a name that did not resolve):
    ///   once. A connection attempt through a real network sometimes fails alone; an offline device fails again,
    ///   and is not held for the whole backoff.
    /// - A timeout, a connection lost half-way, another failure: the backoff, as a transient server error. The
    ///   server may be slow or restarting.
    /// - A cancelled request, one that cannot be sent as built, or an oversized response: never.
    /// - Parameters:
    ///   - error: The transport's error.
    ///   - authority: The request's authority (`host:port`).
    /// - Returns: The retry.
    package static func retry(after error: TransportError, authority: String?) -> TransportRetry {
        switch error {
        case .cancelled, .invalidRequest, .responseTooLarge: .never
        case .cannotConnect: LoopbackHost.contains(authority: authority ?? "") ? .never : .once
        default: .backoff
        }
    }

    /// The longest delay taken from `Retry-After`: one day. A longer one is cut to it, so that no date computed
    /// from it can overflow.
    package static let maximumRetryAfter: Duration = .seconds(86_400)

    /// `Retry-After` as a delay, when it is in seconds (RFC 9110 §10.2.3), at most ``maximumRetryAfter``; `nil`
    /// when absent, negative, or an HTTP date. The one parser of the header in Tether.
    /// - Parameter fields: The response's header fields.
    /// - Returns: The delay, if any.
    package static func retryAfter(_ fields: HTTPFields) -> Duration? {
        guard let value = fields[.retryAfter]?.trimmingCharacters(in: .whitespaces), !value.isEmpty,
            value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        // All digits: a value too long for Int64 is still a (huge) number of seconds.
        let maximum = maximumRetryAfter.components.seconds
        return .seconds(min(Int64(value) ?? maximum, maximum))
    }
}
