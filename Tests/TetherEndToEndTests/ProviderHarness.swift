import Foundation
import Logging
import Tether
import TetherAsyncHTTPClient
import TetherDevProvider
import TetherOAuth
import TetherTesting
import TetherURLSession

/// A development provider on 127.0.0.1, a client for it, and a manual clock that drives both the client's and
/// the provider's idea of time — so that an hour passes in a microsecond.
struct ProviderHarness: Sendable {
    let running: RunningDevProvider
    let clock: ManualClock
    let transport: any HTTPTransport
    let client: OAuthClient
    let directory: URL
    let shutdown: @Sendable () async -> Void

    static let silent = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    static func start(
        _ configure: (inout DevProvider.Configuration) -> Void = { _ in },
        validator: (@Sendable (URL, any HTTPTransport) -> any IDTokenValidating)? = nil,
        usingAsyncHTTPClient: Bool = false,
        logger: Logger = silent
    ) async throws -> ProviderHarness {
        let clock = ManualClock(startDate: Date())
        var configuration = DevProvider.Configuration(now: { clock.date })
        configure(&configuration)
        let running = try await DevProvider(configuration).start()
        let transport: any HTTPTransport
        let shutdown: @Sendable () async -> Void
        if usingAsyncHTTPClient {
            let client = AsyncHTTPClientTransport()
            transport = client
            shutdown = { try? await client.shutdown() }
        } else {
            transport = URLSessionTransport()
            shutdown = {}
        }
        let discovered = try await ProviderConfiguration.discover(
            issuer: running.issuer.absoluteString,
            clientID: "tether-dev-client",
            redirectURI: URL(string: "http://127.0.0.1/callback"),
            providerID: "dev",
            transport: transport
        )
        let client = try OAuthClient(
            configuration: discovered,
            transport: transport,
            idTokenValidator: validator.map { make in discovered.jwksURI.map { make($0, transport) } } ?? nil,
            clock: clock,
            dateSource: clock.dateSource,
            logger: logger
        )
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tether-e2e-\(UUID().uuidString)", isDirectory: true)
        return ProviderHarness(
            running: running,
            clock: clock,
            transport: transport,
            client: client,
            directory: directory,
            shutdown: shutdown
        )
    }

    /// A vault in this harness's temporary folder.
    func vault() throws -> VaultStore {
        try VaultStore(directory: directory, key: Self.key, environment: [:], logger: Self.silent)
    }

    static let key = VaultKey.generate()

    /// A session on `store` refreshing through the harness's client and clock.
    func session(_ store: any CredentialStore, id: ConnectionID = "dev", logger: Logger = silent) -> Session {
        Session(
            id: id,
            store: store,
            refresher: client,
            revoker: client,
            configuration: Session.Configuration(retry: Session.RetryPolicy(jitter: 0)),
            clock: clock,
            dateSource: clock.dateSource,
            logger: logger
        )
    }

    func counters() async -> DevProvider.Counters { await running.admin.counters() }

    func stop() async {
        await shutdown()
        await running.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
