package import Foundation
package import HTTPTypes
package import Logging
package import Tether
package import TetherAsyncHTTPClient
package import TetherOAuth

/// What the calendar commands work with, in `tether-cli` (its `Workspace`) and in `tether-calendar`: the folder
/// (`TETHER_HOME`), its vault, the profiles, the transport, the logger, the terminal, and a session per profile.
package protocol CommandWorkspace: Sendable {
    /// `TETHER_HOME`.
    var home: URL { get }
    /// The vault in `TETHER_HOME`: its key binds the profiles and seals client secrets and the calendar cache.
    var vault: VaultStore { get }
    /// `connections.json`.
    var profiles: ProfileFile { get }
    /// The transport for every request.
    var transport: any HTTPTransport { get }
    /// The logger: nothing, or debug lines on standard error with `--verbose`.
    var logger: Logger { get }
    /// Standard output and standard error.
    var terminal: Terminal { get }
    /// The session of a connection. A record that cannot be read stops here with a clear error, and is left as
    /// it is.
    func session(for profile: Profile) async throws -> Session
}

/// How every command opens `TETHER_HOME`, its vault, its logger and its transport.
package enum CommandHome {
    /// Whether `--verbose` or `TETHER_VERBOSE` asks for debug logs.
    package static func isVerbose(_ flag: Bool, environment: [String: String]) -> Bool {
        flag || ["1", "true", "yes"].contains(environment["TETHER_VERBOSE"]?.lowercased() ?? "")
    }

    /// No logs, or debug logs on standard error.
    package static func logger(verbose: Bool) -> Logger {
        guard verbose else { return Logger(label: "tether", factory: { _ in SwiftLogNoOpLogHandler() }) }
        var logger = Logger(label: "tether", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .debug
        return logger
    }

    /// `TETHER_HOME` (or its default) and the vault in it.
    /// - Parameter createsHome: Whether the folder, its folders and the vault key may be created when missing.
    /// - Throws: ``CLIFailure`` that says what to fix.
    package static func vault(
        environment: [String: String],
        createsHome: Bool,
        logger: Logger
    ) throws -> (home: URL, vault: VaultStore) {
        do {
            let home = try VaultStore.defaultDirectory(environment: environment)
            let vault = try VaultStore(
                directory: home,
                environment: environment,
                createsMissing: createsHome,
                logger: logger
            )
            return (home, vault)
        } catch {
            throw CLIFailure.from(error)
        }
    }

    /// The associated data a client secret is sealed with.
    package static func secretContext(_ name: String) -> String { "tether.client-secret:\(name)" }

    /// Opens a sealed client secret from connections.json.
    /// - Throws: ``CLIFailure`` (configuration) when it does not open with this vault's key.
    package static func openSecret(_ sealed: String, connection name: String, vault: VaultStore) throws -> String {
        do {
            return try vault.open(sealed: sealed, context: secretContext(name))
        } catch {
            throw CLIFailure(
                .configuration,
                "The client secret of '\(name)' in connections.json does not open with this vault key",
                fix: "Set TETHER_VAULT_KEY to the key it was sealed with, or sign in again with --client-secret-file"
            )
        }
    }

    /// The provider configuration a connection's session refreshes with, its client secret unsealed, once its
    /// record was found readable in `store`.
    /// - Throws: ``CLIFailure`` when the record does not read or the secret does not open; both are left as they
    ///   are.
    package static func providerConfiguration(
        of profile: Profile,
        store: any CredentialStore,
        vault: VaultStore
    ) async throws -> ProviderConfiguration {
        var configuration = profile.provider
        do {
            _ = try await store.read(ConnectionID(profile.name))
        } catch {
            throw CLIFailure.from(error, connection: profile.name)
        }
        if let sealed = profile.sealedClientSecret {
            configuration.clientSecret = ClientSecret(try openSecret(sealed, connection: profile.name, vault: vault))
        }
        return configuration
    }

    /// The transport for every request `tether` sends: AsyncHTTPClient, through the proxies the environment names
    /// (`https_proxy`, `http_proxy`, `all_proxy`, `no_proxy`, read as curl reads them; see ``ProxyEnvironment``).
    ///
    /// Not Foundation's URLSession: on Linux it keeps a core about half busy while it waits for an answer
    /// (measured: 2.2–3.2 s of CPU for one request answered after 5 s), and linking it (FoundationNetworking, with
    /// libcurl and its 30 libraries) costs every `tether-cli` process about 7 ms of start-up. See
    /// docs/decisions.md §28 and §46.
    package static func transport(environment: [String: String]) -> any HTTPTransport {
        SharedAsyncTransport(proxies: ProxyEnvironment(environment: environment))
    }

    /// Sends through the process's one ``AsyncHTTPClientTransport`` for these proxies, which is created on the
    /// first request: a command that sends none (`tether token` with a fresh token) starts no event loop threads.
    package struct SharedAsyncTransport: HTTPTransport {
        package let proxies: ProxyEnvironment

        package func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
            try await CommandHome.sharedTransport(proxies).send(request, body: body)
        }
    }

    /// Starts the transport ``transport(environment:)`` sends through — its event loop threads — before the first
    /// request, so that a command sure to send one overlaps their start with reading the vault and the cache.
    package static func startTransport(environment: [String: String]) {
        _ = sharedTransport(ProxyEnvironment(environment: environment))
    }

    /// The process's transport for `proxies`, made on first use.
    private static func sharedTransport(_ proxies: ProxyEnvironment) -> AsyncHTTPClientTransport {
        sharedAsyncTransports.withLock { transports in
            if let transport = transports[proxies] { return transport }
            let transport = AsyncHTTPClientTransport(proxies: proxies)
            transports[proxies] = transport
            return transport
        }
    }

    /// The process's AsyncHTTPClient transports, one per proxy setting (one in practice). They live as long as the
    /// process, so they need no shutdown before it exits.
    private static let sharedAsyncTransports = LockedState<[ProxyEnvironment: AsyncHTTPClientTransport]>([:])
}
