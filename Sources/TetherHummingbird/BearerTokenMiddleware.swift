import HTTPTypes
public import Hummingbird
import Logging
import Tether
public import TetherServer

/// A request context that can carry the verified bearer token.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
public protocol BearerTokenRequestContext: RequestContext {
    /// The token the ``BearerTokenMiddleware`` verified; `nil` before it ran.
    var verifiedToken: VerifiedToken? { get set }
}

/// A basic request context with room for the verified token.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
public struct BearerRequestContext: BearerTokenRequestContext {
    /// Hummingbird's storage.
    public var coreContext: CoreRequestContextStorage
    /// The verified token.
    public var verifiedToken: VerifiedToken?

    /// Creates a context.
    /// - Parameter source: Where the request came from.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.verifiedToken = nil
    }
}

/// Authenticates requests with `Authorization: Bearer` (RFC 6750 §2.1) and an ``TetherServer/AccessTokenVerifier``,
/// and puts the verified token into the context.
///
/// Refusals follow RFC 6750 §3, so that a client such as Tether's `AuthorizedClient` knows to refresh:
/// - no token, or another scheme: `401`, `WWW-Authenticate: Bearer realm="…"` without an error code;
/// - an expired token: `401`, `error="invalid_token", error_description="The access token expired"`;
/// - any other bad token: `401`, `error="invalid_token"` with a description of the problem;
/// - the issuer's keys cannot be fetched: `503` with `Retry-After` — the token may be fine, and a `401` would make
///   clients throw away good tokens and refresh for nothing.
///
/// It never answers `500` for a bad token, and never logs the token.
///
/// ```swift
/// let router = Router(context: BearerRequestContext.self)
/// router.add(middleware: BearerTokenMiddleware(verifier: .firebase(projectID: "p", transport: transport)))
/// router.get("/me") { _, context in context.verifiedToken?.subject ?? "" }
/// ```
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
public struct BearerTokenMiddleware<Context: BearerTokenRequestContext>: RouterMiddleware {
    /// The verifier.
    public let verifier: AccessTokenVerifier
    /// The `realm` of the challenge.
    public let realm: String
    /// The `Retry-After` of a `503` when the keys cannot be fetched; 10 seconds by default.
    public let retryAfter: Duration

    /// Creates the middleware.
    /// - Parameters:
    ///   - verifier: How tokens are verified.
    ///   - realm: The `realm` of the challenge; `api` by default.
    ///   - retryAfter: The `Retry-After` of a `503`; 10 seconds by default.
    public init(verifier: AccessTokenVerifier, realm: String = "api", retryAfter: Duration = .seconds(10)) {
        self.verifier = verifier
        self.realm = realm
        self.retryAfter = retryAfter
    }

    /// Verifies the bearer token, then calls `next` with the verified token in the context.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context.
    ///   - next: The rest of the chain.
    /// - Returns: `next`'s response, or a `401` / `503`.
    /// - Throws: Whatever `next` throws, or `CancellationError`.
    public func handle(
        _ request: Request,
        context: Context,
        next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let token = Self.bearerToken(request.headers[values: .authorization]) else {
            return refusal(AccessTokenError.missing, logger: context.logger)
        }
        let verified: VerifiedToken
        do {
            verified = try await verifier.verify(token)
        } catch let error as AccessTokenError {
            return refusal(error, logger: context.logger)
        }
        var context = context
        context.verifiedToken = verified
        return try await next(request, context)
    }

    /// The token of a single `Authorization: Bearer <token>` header; `nil` for none, another scheme, an empty
    /// token, or several `Authorization` headers.
    static func bearerToken(_ values: [String]) -> String? {
        guard values.count == 1, let value = values.first else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingSpaces
        return token.isEmpty || token.contains(" ") ? nil : token
    }

    func refusal(_ error: AccessTokenError, logger: Logger) -> Response {
        logger.debug("Bearer token refused", metadata: ["auth.error": "\(error.message)"])
        var headers = HTTPFields()
        var challenge = "Bearer realm=\"\(Self.quoted(realm))\""
        if let code = error.rfc6750Error {
            challenge += ", error=\"\(code)\", error_description=\"\(Self.quoted(error.message))\""
        }
        if error.isTransient {
            headers[.retryAfter] = "\(max(1, retryAfter.components.seconds))"
            headers[.cacheControl] = "no-store"
            return Response(status: .serviceUnavailable, headers: headers)
        }
        headers[.wwwAuthenticate] = challenge
        headers[.cacheControl] = "no-store"
        return Response(status: .unauthorized, headers: headers)
    }

    /// Escapes a value for a quoted string (RFC 9110 §5.6.4) and drops characters RFC 6750 does not allow.
    static func quoted(_ value: String) -> String {
        var result = ""
        for scalar in value.unicodeScalars where scalar.value >= 0x20 && scalar.value < 0x7F {
            if scalar == "\"" || scalar == "\\" { result.unicodeScalars.append("\\") }
            result.unicodeScalars.append(scalar)
        }
        return result
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
