public import Foundation
public import Hummingbird
public import Logging
import NIOCore

/// A local OAuth 2.0 / OpenID Connect provider that keeps all state in memory.
///
/// `DevProvider` serves discovery, JWKS, an HTML login and consent page, the token, revocation,
/// device-authorization, userinfo and a protected resource endpoint, so that apps and tests can sign
/// in without a cloud account, and the Google Calendar v3 and Microsoft Graph calendar APIs over
/// seeded events. It speaks only the wire protocol.
///
/// ```swift
/// let running = try await DevProvider().start()
/// print(running.issuer)          // http://127.0.0.1:54321
/// await running.admin.failNext(2, requestsTo: .token)
/// await running.stop()
/// ```
///
/// With no configuration it registers the public client `tether-dev-client` (loopback redirect URIs
/// on any port) and the users `ada` / `lovelace` and `grace` / `hopper`.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
public final class DevProvider: Sendable {
    /// The configuration the provider was created with.
    public let configuration: Configuration
    /// Fault injection, state manipulation and counters, without HTTP.
    public let admin: Admin

    let state: ProviderState
    let logger: Logger

    /// Creates a provider.
    ///
    /// - Parameters:
    ///   - configuration: Clients, users, lifetimes, dialect and faults.
    ///   - logger: Where the provider logs. The default discards everything. Tokens, codes,
    ///     passwords and secrets are never logged.
    public init(
        _ configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "tether.dev-provider", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.configuration = configuration
        self.logger = logger
        self.state = ProviderState(configuration: configuration)
        self.admin = Admin(state: self.state)
    }

    /// The issuer identifier currently used in discovery, tokens and authorization responses.
    ///
    /// Before the server has bound a port this is ``Configuration/issuer`` or
    /// `http://<host>:<port>` from the configuration.
    public var issuer: URL {
        get async { await self.state.issuerURL }
    }

    /// Builds a Hummingbird application serving this provider, for use with `HummingbirdTesting`
    /// (`try await provider.application().test(.router) { client in … }`) or your own service group.
    ///
    /// When the application's server starts, the provider adopts the bound port into its issuer
    /// unless ``Configuration/issuer`` is set.
    /// - Throws: ``DevProviderError/nonLoopbackHost`` for a host other hosts can reach, unless allowed.
    public func application() throws -> some ApplicationProtocol {
        try self.configuration.validateHost()
        return self.makeApplication { _ in }
    }

    /// Starts the provider in-process and returns once it accepts connections.
    ///
    /// - Returns: A handle with the issuer URL, the bound port and ``RunningDevProvider/stop()``.
    /// - Throws: ``DevProviderError/nonLoopbackHost`` for a host other hosts can reach, unless allowed; the
    ///   bind error if the port is unavailable.
    public func start() async throws -> RunningDevProvider {
        try self.configuration.validateHost()
        let (ports, continuation) = AsyncStream<Result<Int, any Error>>.makeStream()
        let app = self.makeApplication { port in
            continuation.yield(.success(port))
        }
        let task = Task {
            do {
                try await app.run()
                continuation.yield(.failure(CancellationError()))
            } catch {
                continuation.yield(.failure(error))
            }
            continuation.finish()
        }
        var iterator = ports.makeAsyncIterator()
        guard let first = await iterator.next() else {
            task.cancel()
            throw CancellationError()
        }
        switch first {
        case .success(let port):
            return RunningDevProvider(
                issuer: await self.state.issuerURL,
                port: port,
                adminKey: self.configuration.adminKey,
                admin: self.admin,
                task: task
            )
        case .failure(let error):
            task.cancel()
            throw error
        }
    }

    /// Runs the provider in the foreground until SIGINT or SIGTERM.
    /// - Throws: ``DevProviderError/nonLoopbackHost`` for a host other hosts can reach, unless allowed.
    public func run() async throws {
        try self.configuration.validateHost()
        try await self.makeApplication { _ in }.runService()
    }

    private func makeApplication(
        onPort: @escaping @Sendable (Int) -> Void
    ) -> Application<RouterResponder<DevRequestContext>> {
        let router = Router(context: DevRequestContext.self)
        router.add(middleware: FaultMiddleware(state: self.state))
        Endpoints(state: self.state, logger: self.logger).register(on: router)
        let state = self.state
        let logger = self.logger
        let configuredIssuer = self.configuration.issuer
        let host = self.configuration.host
        return Application(
            router: router,
            configuration: ApplicationConfiguration(
                address: .hostname(self.configuration.host, port: self.configuration.port),
                serverName: nil
            ),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                if configuredIssuer == nil {
                    // The bound IP literal (RFC 8252 §8.3 prefers it to `localhost`).
                    await state.adoptIssuer(host: channel.localAddress?.ipAddress ?? host, port: port)
                }
                let issuer = await state.issuerURL.absoluteString
                logger.info("Dev provider listening", metadata: ["devprovider.issuer": "\(issuer)"])
                onPort(port)
            },
            logger: self.logger
        )
    }
}
