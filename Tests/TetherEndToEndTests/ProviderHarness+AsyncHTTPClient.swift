import Foundation
import ProviderTestSupport
import TetherAsyncHTTPClient
import TetherDevProvider

extension ProviderHarness {
    /// Starts a harness whose client sends through `AsyncHTTPClientTransport` instead of `URLSessionTransport`.
    static func start(
        _ configure: (inout DevProvider.Configuration) -> Void = { _ in },
        usingAsyncHTTPClient: Bool
    ) async throws -> ProviderHarness {
        guard usingAsyncHTTPClient else { return try await start(configure) }
        let client = AsyncHTTPClientTransport()
        return try await start(configure, transport: client, shutdown: { try? await client.shutdown() })
    }
}
