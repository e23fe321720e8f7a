import ArgumentParser
import Foundation
import HTTPTypes
import Logging
import Tether
import TetherAsyncHTTPClient
import TetherCommandSupport
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
struct Workspace: CommandWorkspace {
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
        logger = CommandHome.logger(verbose: CommandHome.isVerbose(options.verbose, environment: environment))
        terminal = Terminal(environment: environment)
        (home, vault) = try CommandHome.vault(environment: environment, createsHome: createsHome, logger: logger)
        location = try StoreLocation.resolve(option: options.store, environment: environment)
        switch location {
        case .vault: store = vault
        case .postgres(let url): store = try SharedStore.open(url: url, environment: environment, logger: logger)
        }
        profiles = ProfileFile(home: home, store: vault)
        statusFile = StatusFile(home: home)
        transport = Workspace.transport(environment: environment)
    }

    /// The transport for every request `tether` sends (see ``CommandHome/transport(environment:)``).
    static func transport(environment: [String: String]) -> any HTTPTransport {
        CommandHome.transport(environment: environment)
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
    static func secretContext(_ name: String) -> String { CommandHome.secretContext(name) }

    /// Opens a sealed client secret from connections.json.
    func openSecret(_ sealed: String, connection name: String) throws -> String {
        try CommandHome.openSecret(sealed, connection: name, vault: vault)
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
            let known = (try? profiles.names()) ?? []
            let suggestion = NameSuggestion.didYouMean(name, among: known)
            throw CLIFailure(
                .needsSignIn,
                "There is no connection named '\(name)' in \(profiles.url.path)",
                fix: suggestion.isEmpty
                    ? "Run `tether login PROVIDER --name \(name)`, or `tether status` to list the connections"
                    : suggestion + "`tether status` lists the connections"
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

    /// The session of a connection, as the calendar commands open it.
    func session(for profile: Profile) async throws -> Session {
        try await session(for: profile, leaseHeldByParent: false, revocation: nil)
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
        let configuration = try await CommandHome.providerConfiguration(of: profile, store: store, vault: vault)
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
