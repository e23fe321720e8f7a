import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Applies injected faults (latency, 5xx, 429, dropped connections, dropped answers) and counts requests and
/// outcomes per endpoint. Admin routes pass through untouched.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
struct FaultMiddleware: RouterMiddleware {
    typealias Context = DevRequestContext

    struct ConnectionDropped: Error {}

    let state: ProviderState

    func handle(
        _ request: Request,
        context: DevRequestContext,
        next: @concurrent (Request, DevRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let endpoint = DevProvider.Endpoint(path: request.uri.path) else {
            return try await next(request, context)
        }
        let (latency, decision) = await self.state.takeFault(for: endpoint)
        if let latency {
            try await Task.sleep(for: latency)
        }
        let response: Response
        switch decision {
        case .drop:
            context.logger.debug("Dropping connection (fault)", metadata: ["devprovider.endpoint": "\(endpoint)"])
            try? await context.channel.close()
            throw ConnectionDropped()
        case .serverError where endpoint.isCalendar, .rateLimit where endpoint.isCalendar:
            // The calendar APIs answer in their own error shapes.
            response = try CalendarAPIError.fault(decision, endpoint: endpoint, now: self.state.configuration.now())
                .response(from: request, context: context)
        case .serverError(let status, _):
            response = HTTPResponses.json(
                ["error": "server_error", "error_description": "Injected server error."],
                status: HTTPResponse.Status(code: status),
                noStore: true
            )
        case .rateLimit(let retryAfter, let status, _):
            var headers = HTTPFields()
            headers[.retryAfter] = "\(retryAfter)"
            response = HTTPResponses.json(
                ["error": "temporarily_unavailable", "error_description": "Injected rate limit."],
                status: HTTPResponse.Status(code: status),
                headers: headers,
                noStore: true
            )
        case .proceed, .delay, .dropAnswer:
            if case .delay(let delay) = decision {
                try await Task.sleep(for: delay)
            }
            do {
                response = try await next(request, context)
            } catch let error as any HTTPResponseError {
                response = try error.response(from: request, context: context)
            }
            if case .dropAnswer = decision {
                // The request took effect (a refresh rotated its token); the client never hears of it.
                context.logger.debug(
                    "Dropping the answer (fault)",
                    metadata: ["devprovider.endpoint": "\(endpoint)", "http.status": "\(response.status.code)"]
                )
                try? await context.channel.close()
                throw ConnectionDropped()
            }
        }
        await self.state.recordOutcome(endpoint, status: response.status.code)
        return response
    }
}
