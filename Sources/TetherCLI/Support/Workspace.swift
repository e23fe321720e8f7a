import ArgumentParser
import Foundation
import HTTPTypes
import Logging
import Tether
import TetherAsyncHTTPClient
import TetherJWT
import TetherOAuth

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Flag(
        name: .shortAndLong,
        help: "Debug logs on standard error; tokens and secrets are always redacted. (TETHER_VERBOSE=1)"
    )
    var verbose = false

    @Option(
        help: ArgumentHelp(
            "Where tokens and refresh leases are kept: `vault` (default) or postgresql://user[:password]@host/db, "
                + "shared by every machine that uses it; prefer TETHER_STORE for a URL with a password. (TETHER_STORE)",
            valueName: "store"
        )
    )
    var store: String?
}

/// What a command works with: the folder (`TETHER_HOME`), the vault, the store of the records (the vault, or a
/// PostgreSQL database with `TETHER_STORE`), the profiles, the transport and the logger.
struct Workspace: Sendable {
    let environment: [String: String]
    let home: URL
    /// The vault in `TETHER_HOME`: its key binds the profiles and seals client secrets and the calendar cache.
    let vault: VaultStore
    /// Where the connections' records and refresh leases are kept: ``vault``, or a ``PostgresStore``.
    let store: any CredentialStore
    /// Which store that is.
    let location: StoreLocation
    let profiles: ProfileFile
    let statusFile: StatusFile
    let transport: any HTTPTransport
    let logger: Logger
    let terminal: Terminal

    /// Opens what a command works with.
    /// - Parameter createsHome: Whether the command may create `TETHER_HOME`, its folders and the vault key when
    ///   they are missing; `false` for commands that only read (`status`, `token`, `calendar sources`), which then
    ///   create nothing and find a missing home empty.
    init(
        _ options: GlobalOptions,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        createsHome: Bool = true
    ) throws {
        self.environment = environment
        let verbose =
            options.verbose || ["1", "true", "yes"].contains(environment["TETHER_VERBOSE"]?.lowercased() ?? "")
        logger = Workspace.logger(verbose: verbose)
        terminal = Terminal(environment: environment)
        do {
            home = try VaultStore.defaultDirectory(environment: environment)
            vault = try VaultStore(
                directory: home,
                environment: environment,
                createsMissing: createsHome,
                logger: logger
            )
        } catch {
            throw CLIFailure.from(error)
        }
        location = try StoreLocation.resolve(option: options.store, environment: environment)
        switch location {
        case .vault: store = vault
        case .postgres(let url): store = try SharedStore.open(url: url, environment: environment, logger: logger)
        }
        profiles = ProfileFile(home: home, store: vault)
        statusFile = StatusFile(home: home)
        transport = Workspace.transport(environment: environment)
    }

    /// The transport for every request `tether` sends: AsyncHTTPClient, through the proxies the environment names
    /// (`https_proxy`, `http_proxy`, `all_proxy`, `no_proxy`, read as curl reads them; see ``ProxyEnvironment``).
    ///
    /// Not Foundation's URLSession: on Linux it keeps a core about half busy while it waits for an answer
    /// (measured: 2.2–3.2 s of CPU for one request answered after 5 s), and linking it (FoundationNetworking, with
    /// libcurl and its 30 libraries) costs every `tether-cli` process about 7 ms of start-up. See
    /// docs/decisions.md §28 and §46.
    static func transport(environment: [String: String]) -> any HTTPTransport {
        SharedAsyncTransport(proxies: ProxyEnvironment(environment: environment))
    }

    /// Sends through the process's one ``AsyncHTTPClientTransport`` for these proxies, which is created on the
    /// first request: a command that sends none (`tether token` with a fresh token) starts no event loop threads.
    struct SharedAsyncTransport: HTTPTransport {
        let proxies: ProxyEnvironment

        func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
            let transport = Workspace.sharedAsyncTransports.withLock { transports in
                if let transport = transports[proxies] { return transport }
                let transport = AsyncHTTPClientTransport(proxies: proxies)
                transports[proxies] = transport
                return transport
            }
            return try await transport.send(request, body: body)
        }
    }

    /// The process's AsyncHTTPClient transports, one per proxy setting (one in practice). They live as long as the
    /// process, so they need no shutdown before it exits.
    private static let sharedAsyncTransports = LockedState<[ProxyEnvironment: AsyncHTTPClientTransport]>([:])

    static func logger(verbose: Bool) -> Logger {
        guard verbose else { return Logger(label: "tether", factory: { _ in SwiftLogNoOpLogHandler() }) }
        var logger = Logger(label: "tether", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .debug
        return logger
    }

    /// The longest connection name: the vault turns names into file names.
    static let maximumNameLength = 172

    /// A connection name that the vault can store: 1 to 172 bytes of UTF-8, no control characters, and not
    /// starting with `-`, which a command line (`tether token NAME`, the refresh worker's) would take for an option.
    static func validatedName(_ name: String) throws -> String {
        let usable =
            "Use 1 to \(maximumNameLength) bytes without control characters, not starting with `-`, such as "
            + "`calendar` or `work`"
        guard !name.isEmpty, name.utf8.count <= maximumNameLength,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw CLIFailure(.usage, "'\(name.prefix(40))' is not a usable connection name", fix: usable)
        }
        guard !name.hasPrefix("-") else {
            throw CLIFailure(
                .usage,
                "'\(name.prefix(40))' is not a usable connection name: a name that starts with '-' would be read as "
                    + "an option",
                fix: usable
            )
        }
        return name
    }

    /// The associated data a client secret is sealed with.
    static func secretContext(_ name: String) -> String { "tether.client-secret:\(name)" }

    /// Opens a sealed client secret from connections.json.
    func openSecret(_ sealed: String, connection name: String) throws -> String {
        do {
            return try vault.open(sealed: sealed, context: Self.secretContext(name))
        } catch {
            throw CLIFailure(
                .configuration,
                "The client secret of '\(name)' in connections.json does not open with this vault key",
                fix: "Set TETHER_VAULT_KEY to the key it was sealed with, or sign in again with --client-secret-file"
            )
        }
    }

    /// The connection a command is about: the one named, else `TETHER_CONNECTION`, else the only one there is.
    func resolveName(_ given: String?) throws -> String {
        if let given { return try Self.validatedName(given) }
        if let named = environment["TETHER_CONNECTION"], !named.isEmpty { return try Self.validatedName(named) }
        let names = try profiles.names()
        switch names.count {
        case 0:
            throw CLIFailure(
                .needsSignIn,
                "No connection is set up",
                fix: "Run `tether login PROVIDER` (see `tether providers`)"
            )
        case 1:
            return names[0]
        default:
            throw CLIFailure(
                .usage,
                "There are several connections (\(names.joined(separator: ", ")))",
                fix: "Name one, as in `tether token \(names[0])`, or set TETHER_CONNECTION"
            )
        }
    }

    /// The profile of a connection.
    func profile(named name: String) throws -> Profile {
        guard let profile = try profiles.profile(named: name) else {
            throw CLIFailure(
                .needsSignIn,
                "There is no connection named '\(name)' in \(profiles.url.path)",
                fix: "Run `tether login PROVIDER --name \(name)`, or `tether status` to list the connections"
            )
        }
        return profile
    }

    /// The OAuth client for a configuration; ID tokens are verified against the provider's keys when it
    /// publishes them.
    func client(for configuration: ProviderConfiguration) throws -> OAuthClient {
        let validator = configuration.jwksURI.map {
            JWKSIDTokenValidator(jwksURL: $0, transport: transport, logger: logger)
        }
        do {
            return try OAuthClient(
                configuration: configuration,
                transport: transport,
                idTokenValidator: validator,
                logger: logger
            )
        } catch {
            throw CLIFailure.from(error)
        }
    }

    /// The session of a connection, with its client secret (if any) unsealed. A record that cannot be read stops
    /// here with a clear error, and is left as it is. `leaseHeldByParent` is for `tether refresh-worker`: the
    /// session refreshes in this process, once, under the lease it inherited. `revocation` records what became of a
    /// sign-out's revocation.
    func session(
        for profile: Profile,
        leaseHeldByParent: Bool = false,
        revocation: RevocationRecorder? = nil
    ) async throws -> Session {
        var configuration = profile.provider
        do {
            _ = try await store.read(ConnectionID(profile.name))
        } catch {
            throw CLIFailure.from(error, connection: profile.name)
        }
        if let sealed = profile.sealedClientSecret {
            configuration.clientSecret = ClientSecret(try openSecret(sealed, connection: profile.name))
        }
        let client = try self.client(for: configuration)
        guard leaseHeldByParent else {
            return session(profile.name, client: client, revocation: revocation, grantLifetime: profile.grantRules)
        }
        return Session(
            id: ConnectionID(profile.name),
            store: InheritedLeaseStore(base: store),
            refresher: client,
            revoker: client,
            configuration: Session.Configuration(retry: Backoff(maximumAttempts: 1)),
            logger: logger
        )
    }

    /// The session of the connection `name` in the vault, revoked with `client` and refreshed with it in a
    /// detached worker process (see ``DetachedRefresher``). While it holds the refresh lease, `SIGINT` and
    /// `SIGTERM` wait for the lease (see ``SignalDeferral``). `revocation` records what became of a sign-out's
    /// revocation.
    func session(
        _ name: String,
        client: OAuthClient,
        revocation: RevocationRecorder? = nil,
        grantLifetime: GrantLifetime? = nil
    ) -> Session {
        SignalDeferral.shared.install()
        let refresher = DetachedRefresher(
            client: client,
            home: home,
            environment: environment,
            verbose: logger.logLevel <= .debug,
            logger: logger,
            location: location
        )
        let revoker: any TokenRevoker =
            revocation.map { RecordingRevoker(base: client, recorder: $0, connection: name) } ?? client
        var configuration = Session.Configuration()
        configuration.grantLifetime = grantLifetime
        return Session(
            id: ConnectionID(name),
            store: SignalDeferringStore(base: store),
            refresher: refresher,
            revoker: revoker,
            configuration: configuration,
            logger: logger
        )
    }
}

/// `$TETHER_HOME/status.json`: the last error of each connection, for `tether status`. It holds messages only,
/// which never contain a secret.
struct StatusFile: Sendable {
    struct Entry: Codable, Sendable {
        var lastError: String
        var at: Date
    }

    let file: EntryFile<Entry>

    init(home: URL) {
        file = EntryFile(home: home, fileName: "status.json")
    }

    var url: URL { file.url }

    func load() -> [String: Entry] { file.load() }

    /// Records a failure of a connection.
    func record(_ message: String, for name: String) {
        file.update { $0[name] = Entry(lastError: message, at: Date()) }
    }

    /// Forgets the last error of a connection after a success; writes nothing when there was none.
    func clear(_ name: String) {
        file.remove(name)
    }
}

/// A small JSON object in `$TETHER_HOME` with one entry per connection name, changed under a lock across
/// processes and replaced atomically. A file that does not read counts as empty.
struct EntryFile<Entry: Codable & Sendable>: Sendable {
    let url: URL
    let home: URL
    private let lockName: String

    init(home: URL, fileName: String) {
        self.home = home
        url = home.appendingPathComponent(fileName)
        lockName = fileName + ".lock"
    }

    /// The entries; none when the file does not exist or does not read (a symbolic link is not followed).
    func load() -> [String: Entry] {
        guard let data = try? VaultFiles.readFile(url.path) else { return [:] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode([String: Entry].self, from: data)) ?? [:]
    }

    /// The lock file in the vault's `locks` folder.
    private var lockPath: String { home.appendingPathComponent("locks").appendingPathComponent(lockName).path }

    /// Changes the entries under the lock and writes them back. Nothing is written when the lock cannot be taken
    /// (no `locks` folder, or a lock file that is a symbolic link): the file only informs `tether status`.
    func update(_ change: (inout [String: Entry]) -> Void) {
        _ = try? VaultFiles.withExclusiveLock(lockPath) {
            var entries = load()
            change(&entries)
            write(entries)
        }
    }

    /// Removes the entry of `name`; writes nothing when there is none.
    func remove(_ name: String) {
        // Most calls have nothing to remove: look before taking the lock.
        guard load()[name] != nil else { return }
        _ = try? VaultFiles.withExclusiveLock(lockPath) {
            var entries = load()
            guard entries.removeValue(forKey: name) != nil else { return }
            write(entries)
        }
    }

    /// Replaces the file atomically with a new one of mode 0600 whatever the umask; a symbolic link in its place is
    /// replaced, never followed.
    private func write(_ entries: [String: Entry]) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(entries) else { return }
        try? VaultFiles.replaceFile(url.path, with: data, directory: home.path)
    }
}
