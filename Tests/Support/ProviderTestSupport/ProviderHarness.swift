public import Foundation
public import Logging
public import Tether
public import TetherDevProvider
public import TetherOAuth
public import TetherTesting
import TetherURLSession

/// A development provider on 127.0.0.1, a client for it, and a manual clock that drives both the client's and
/// the provider's idea of time — so that an hour passes in a microsecond.
public struct ProviderHarness: Sendable {
    /// The running provider.
    public let running: RunningDevProvider
    /// The clock of the client, the sessions and the provider.
    public let clock: ManualClock
    /// The transport the client sends through.
    public let transport: any HTTPTransport
    /// The OAuth client, configured by discovery.
    public let client: OAuthClient
    /// A temporary folder for vaults, removed by ``stop()``.
    public let directory: URL
    private let shutdown: @Sendable () async -> Void

    /// A logger that drops everything.
    public static let silent = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The key of every harness's vault.
    public static let key = VaultKey.generate()

    /// Starts a provider and discovers its configuration.
    /// - Parameters:
    ///   - configure: Changes to the provider's configuration; its `now` is the harness's clock.
    ///   - validator: Makes the client's ID-token validator from the provider's `jwks_uri`.
    ///   - transport: The client's transport; a `URLSessionTransport` by default.
    ///   - shutdown: Run by ``stop()``, to shut `transport` down.
    ///   - folderPrefix: The start of the temporary folder's name.
    ///   - logger: The client's logger.
    ///   - provider: Makes the client's configuration for the running provider, in place of discovery (for
    ///     dialects that publish no metadata, such as GitHub's).
    public static func start(
        _ configure: (inout DevProvider.Configuration) -> Void = { _ in },
        validator: (@Sendable (URL, any HTTPTransport) -> any IDTokenValidating)? = nil,
        transport: (any HTTPTransport)? = nil,
        shutdown: @escaping @Sendable () async -> Void = {},
        folderPrefix: String = "tether-e2e",
        logger: Logger = silent,
        provider: (@Sendable (RunningDevProvider) -> ProviderConfiguration)? = nil
    ) async throws -> ProviderHarness {
        let clock = ManualClock(startDate: Date())
        var configuration = DevProvider.Configuration(now: { clock.date })
        configure(&configuration)
        let running = try await DevProvider(configuration).start()
        let transport = transport ?? URLSessionTransport()
        let discovered: ProviderConfiguration
        if let provider {
            discovered = provider(running)
        } else {
            discovered = try await running.discoverDevClient(transport: transport)
        }
        let client = try OAuthClient(
            configuration: discovered,
            transport: transport,
            idTokenValidator: validator.map { make in discovered.jwksURI.map { make($0, transport) } } ?? nil,
            clock: clock,
            dateSource: clock.dateSource,
            logger: logger
        )
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(folderPrefix)-\(UUID().uuidString)", isDirectory: true)
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
    public func vault() throws -> VaultStore {
        try VaultStore(directory: directory, key: Self.key, environment: [:], logger: Self.silent)
    }

    /// A session on `store` refreshing through the harness's client and clock.
    public func session(_ store: any CredentialStore, id: ConnectionID = "dev", logger: Logger = silent) -> Session {
        Session(
            id: id,
            store: store,
            refresher: client,
            revoker: client,
            configuration: Session.Configuration(retry: Backoff(jitter: 0)),
            clock: clock,
            dateSource: clock.dateSource,
            logger: logger
        )
    }

    /// The provider's counters.
    public func counters() async -> DevProvider.Counters { await running.admin.counters() }

    /// Shuts the transport down, stops the provider and removes the temporary folder.
    public func stop() async {
        await shutdown()
        await running.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

extension RunningDevProvider {
    /// The provider's configuration, discovered from its issuer, for its registered public client
    /// `tether-dev-client`.
    /// - Parameter transport: How discovery is fetched.
    public func discoverDevClient(transport: any HTTPTransport) async throws -> ProviderConfiguration {
        try await ProviderConfiguration.discover(
            issuer: issuer.absoluteString,
            clientID: "tether-dev-client",
            redirectURI: URL(string: "http://127.0.0.1/callback"),
            providerID: "dev",
            transport: transport
        )
    }
}
