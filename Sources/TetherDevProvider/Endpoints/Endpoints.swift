import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The provider's routes. Each handler parses the wire format, asks ``ProviderState`` to do the
/// protocol step, and renders the result in the configured dialect.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
struct Endpoints: Sendable {
    let state: ProviderState
    let logger: Logger

    var configuration: DevProvider.Configuration { self.state.configuration }
    var dialect: DevProvider.Dialect { self.configuration.dialect }

    func register(on router: Router<DevRequestContext>) {
        // GitHub publishes no metadata.
        if self.dialect != .github {
            router.get("/.well-known/openid-configuration") { _, _ in try await self.discovery(openID: true) }
            router.get("/.well-known/oauth-authorization-server") { _, _ in try await self.discovery(openID: false) }
        }
        for path in ["/jwks", "/auth/keys"] {
            router.get(RouterPath(path)) { _, _ in await self.jwks() }
        }
        for path in ["/authorize", "/auth/authorize"] {
            router.get(RouterPath(path)) { request, _ in await self.authorizationPage(request) }
            router.post(RouterPath(path)) { request, _ in try await self.submitLogin(request) }
        }
        for path in ["/token", "/auth/token"] {
            router.post(RouterPath(path)) { request, _ in try await self.token(request) }
        }
        router.post("/v1/token") { request, _ in try await self.firebaseToken(request) }
        for path in ["/revoke", "/auth/revoke"] {
            router.post(RouterPath(path)) { request, _ in try await self.revoke(request) }
        }
        router.post("/device_authorization") { request, _ in try await self.deviceAuthorization(request) }
        router.get("/device") { request, _ in await self.devicePage(request) }
        router.post("/device") { request, _ in try await self.submitLogin(request) }
        router.get("/userinfo") { request, _ in try await self.userinfo(request) }
        router.post("/userinfo") { request, _ in try await self.userinfo(request) }
        router.get("/resource") { request, _ in try await self.resource(request, requiredScope: nil) }
        router.get("/resource/admin") { request, _ in try await self.resource(request, requiredScope: "admin") }
        self.registerGoogleCalendar(on: router)
        self.registerGraphCalendar(on: router)
        self.registerAdmin(on: router)
        if self.dialect == .github { self.registerGitHub(on: router) }
    }

    /// The request body as form fields.
    func form(_ request: Request) async throws -> FormData {
        var request = request
        let buffer = try await request.collectBody(upTo: 64 * 1024)
        return FormData(String(buffer: buffer))
    }

    /// The request body as JSON, `{}` when empty.
    func jsonBody<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        var request = request
        let buffer = try await request.collectBody(upTo: 64 * 1024)
        let data = buffer.readableBytes == 0 ? Data("{}".utf8) : Data(buffer.readableBytesView)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw OAuthErrorResponse(
                status: .badRequest,
                body: ["error": "invalid_request", "error_description": "The body is not valid JSON for this request."]
            )
        }
    }

    /// Renders a problem in the dialect.
    func error(_ problem: OAuthProblem) -> OAuthErrorResponse {
        OAuthErrorResponse(problem, dialect: self.dialect, now: self.configuration.now())
    }

    /// Space-separated scopes.
    static func scopes(_ value: String?) -> [String] {
        (value ?? "").split(separator: " ").map(String.init)
    }
}
