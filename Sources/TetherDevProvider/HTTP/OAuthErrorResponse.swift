import Foundation
import HTTPTypes
import Hummingbird

/// The provider's error response: RFC 6749 §5.2 JSON in the configured dialect's shape, Firebase's
/// Google-API error body, or an RFC 6750 bearer challenge. Every protocol failure is rendered
/// through this one `HTTPResponseError`.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
struct OAuthErrorResponse: HTTPResponseError {
    let status: HTTPResponse.Status
    let body: JSONOutput?
    var headers: HTTPFields = [:]

    func response(from request: Request, context: some RequestContext) throws -> Response {
        guard let body = self.body else {
            return Response(status: self.status, headers: self.headers)
        }
        return HTTPResponses.json(body, status: self.status, headers: self.headers, noStore: true)
    }

    /// Renders a protocol problem in a dialect.
    init(_ problem: OAuthProblem, dialect: DevProvider.Dialect, now: Date) {
        self.status = if case .invalidClient = problem { .unauthorized } else { .badRequest }
        if case .invalidClient(_, true) = problem {
            self.headers[.wwwAuthenticate] = #"Basic realm="tether-dev""#
        }
        switch dialect.kind {
        case .microsoft:
            self.body = Self.microsoftBody(problem, now: now)
        case .google:
            self.body = Self.googleBody(problem)
        case .apple:
            let description = problem == .codeReused ? "The code has already been used." : problem.description
            self.body = ["error": .string(problem.code), "error_description": .string(description)]
        case .standard, .firebase, .github:
            self.body = ["error": .string(problem.code), "error_description": .string(problem.description)]
        }
    }

    init(status: HTTPResponse.Status, body: JSONOutput?, headers: HTTPFields = [:]) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    /// A Google API error body as the Firebase secure-token endpoint sends it.
    static func firebase(_ message: String, status: String = "INVALID_ARGUMENT") -> OAuthErrorResponse {
        OAuthErrorResponse(
            status: .badRequest,
            body: [
                "error": [
                    "code": 400,
                    "message": .string(message),
                    "status": .string(status),
                    "errors": [["message": .string(message), "domain": "global", "reason": "invalid"]],
                ]
            ]
        )
    }

    /// Renders a problem at the Firebase secure-token endpoint.
    static func firebase(_ problem: OAuthProblem) -> OAuthErrorResponse {
        switch problem {
        case .refreshTokenUnknown: .firebase("INVALID_REFRESH_TOKEN")
        case .refreshTokenRevoked, .refreshTokenReused, .refreshTokenExpired, .interactionRequired:
            .firebase("TOKEN_EXPIRED")
        case .userDisabled: .firebase("USER_DISABLED")
        case .unsupportedGrantType: .firebase("INVALID_GRANT_TYPE")
        default: .firebase(problem.description)
        }
    }

    /// An RFC 6750 §3 bearer challenge.
    ///
    /// - Parameters:
    ///   - error: `invalid_token`, `insufficient_scope`, or `nil` when the request had no token.
    ///   - description: The `error_description`.
    ///   - scope: The scope the resource needs, for `insufficient_scope`.
    static func bearer(error: String?, description: String? = nil, scope: String? = nil) -> OAuthErrorResponse {
        var challenge = #"Bearer realm="tether-dev""#
        if let error {
            challenge += #", error="\#(error)""#
        }
        if let description {
            challenge += #", error_description="\#(description)""#
        }
        if let scope {
            challenge += #", scope="\#(scope)""#
        }
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = challenge
        let status: HTTPResponse.Status = error == "insufficient_scope" ? .forbidden : .unauthorized
        var body: JSONOutput?
        if let error {
            body = ["error": .string(error), "error_description": .string(description ?? error)]
        }
        return OAuthErrorResponse(status: status, body: body, headers: headers)
    }

    private static func googleBody(_ problem: OAuthProblem) -> JSONOutput {
        if problem.isRefreshTokenProblem || problem == .userDisabled {
            return ["error": "invalid_grant", "error_description": "Token has been expired or revoked."]
        }
        switch problem {
        case .codeReused:
            return ["error": "invalid_grant", "error_description": "Bad Request"]
        case .interactionRequired:
            return [
                "error": "invalid_grant", "error_subtype": "invalid_rapt", "error_description": "reauth related error",
            ]
        default:
            return ["error": .string(problem.code), "error_description": .string(problem.description)]
        }
    }

    private static func microsoftBody(_ problem: OAuthProblem, now: Date) -> JSONOutput {
        let (number, message) = Self.microsoftCode(problem)
        let error: String =
            switch problem {
            case .interactionRequired: "interaction_required"
            case .accessDenied: "authorization_declined"
            default: problem.code
            }
        let traceID = RandomToken.uuid()
        let correlationID = RandomToken.uuid()
        let timestamp = Self.microsoftTimestamp(now)
        let description =
            "AADSTS\(number): \(message)\r\nTrace ID: \(traceID)\r\nCorrelation ID: \(correlationID)\r\nTimestamp: \(timestamp)"
        var body: [String: JSONOutput] = [
            "error": .string(error),
            "error_description": .string(description),
            "error_codes": [.int(number)],
            "timestamp": .string(timestamp),
            "trace_id": .string(traceID),
            "correlation_id": .string(correlationID),
            "error_uri": .string("https://login.microsoftonline.com/error?code=\(number)"),
        ]
        if problem == .interactionRequired {
            body["suberror"] = "basic_action"
        }
        return .object(body)
    }

    private static func microsoftCode(_ problem: OAuthProblem) -> (Int, String) {
        switch problem {
        case .invalidRequest(let message): (900_144, message)
        case .invalidClient: (7_000_215, "Invalid client secret provided.")
        case .unauthorizedClient(let message): (700_016, message)
        case .unsupportedGrantType: (70003, "The app requested an unsupported grant type.")
        case .invalidScope(let message): (70011, message)
        case .invalidCode: (70000, "The provided value for the 'code' parameter is not valid.")
        case .codeReused:
            (54005, "OAuth2 Authorization code was already redeemed, please retry with a new valid code.")
        case .pkceMismatch:
            (501_481, "The Code_Verifier does not match the code_challenge supplied in the authorization request.")
        case .refreshTokenUnknown: (9_002_313, "Invalid request. Request is malformed or invalid.")
        case .refreshTokenRevoked, .refreshTokenReused:
            (
                50173,
                "The provided grant has expired due to it being revoked, a fresh auth token is needed. "
                    + "The user might have changed or reset their password."
            )
        case .refreshTokenExpired:
            (700_082, "The refresh token has expired due to inactivity.")
        case .refused(let aadsts, let message): (aadsts, message)
        case .userDisabled: (50057, "The user account is disabled.")
        case .interactionRequired:
            (
                50076,
                "Due to a configuration change made by your administrator, or because you moved to a new "
                    + "location, you must use multi-factor authentication to access the resource."
            )
        case .authorizationPending: (70016, "OAuth 2.0 device flow error. Authorization is pending. Continue polling.")
        case .slowDown: (70016, "OAuth 2.0 device flow error. Polling too fast; slow down.")
        case .expiredToken: (70019, "Verification code expired.")
        case .accessDenied: (70000, "The user declined the authorization request.")
        case .deviceCodeUnknown: (70000, "The provided device code is not valid.")
        }
    }

    private static func microsoftTimestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func pad(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        return "\(c.year ?? 1970)-\(pad(c.month))-\(pad(c.day)) \(pad(c.hour)):\(pad(c.minute)):\(pad(c.second))Z"
    }
}
