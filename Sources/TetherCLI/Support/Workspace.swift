import ArgumentParser
import Foundation
import Logging
import Tether
import TetherJWT
import TetherOAuth
import TetherURLSession

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Flag(
        name: .shortAndLong,
        help: "Debug logs on standard error; tokens and secrets are always redacted. (TETHER_VERBOSE=1)"
    )
    var verbose = false
}

/// What a command works with: the folder (`TETHER_HOME`), the vault, the profiles, the transport and the logger.
struct Workspace: Sendable {
    /// The record metadata key that holds a confidential client's secret, inside the encrypted record.
    static let clientSecretKey = "tether.client-secret"

    let environment: [String: String]
    let home: URL
    let store: VaultStore
    let profiles: ProfileFile
    let statusFile: StatusFile
    let transport: URLSessionTransport
    let logger: Logger
    let terminal: Terminal

    init(_ options: GlobalOptions, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        self.environment = environment
        let verbose =
            options.verbose || ["1", "true", "yes"].contains(environment["TETHER_VERBOSE"]?.lowercased() ?? "")
        logger = Workspace.logger(verbose: verbose)
        terminal = Terminal(environment: environment)
        do {
            home = try VaultStore.defaultDirectory(environment: environment)
            store = try VaultStore(directory: home, environment: environment, logger: logger)
        } catch {
            throw CLIFailure.from(error)
        }
        profiles = ProfileFile(home: home)
        statusFile = StatusFile(home: home)
        transport = URLSessionTransport()
    }

    static func logger(verbose: Bool) -> Logger {
        guard verbose else { return Logger(label: "tether", factory: { _ in SwiftLogNoOpLogHandler() }) }
        var logger = Logger(label: "tether", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .debug
        return logger
    }

    /// The connection a command is about: the one named, else `TETHER_CONNECTION`, else the only one there is.
    func resolveName(_ given: String?) throws -> String {
        if let given, !given.isEmpty { return given }
        if let named = environment["TETHER_CONNECTION"], !named.isEmpty { return named }
        let names = try profiles.load().map(\.name)
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

    /// The session of a connection, with the client secret (if any) taken from its encrypted record.
    func session(for profile: Profile) async throws -> (Session, OAuthClient) {
        var configuration = profile.provider
        let record: Connection?
        do {
            record = try await store.read(ConnectionID(profile.name))
        } catch {
            throw CLIFailure.from(error, connection: profile.name)
        }
        if let secret = record?.metadata[Self.clientSecretKey] { configuration.clientSecret = ClientSecret(secret) }
        if configuration.clientAuthentication != .none, configuration.clientSecret == nil, record == nil {
            // Signed out: the secret went with the record, and none is needed to say "not connected".
            configuration.clientAuthentication = .none
        }
        let client = try self.client(for: configuration)
        let session = Session(
            id: ConnectionID(profile.name),
            store: store,
            refresher: client,
            revoker: client,
            logger: logger
        )
        return (session, client)
    }
}

/// `$TETHER_HOME/status.json`: the last error of each connection, for `tether status`. It holds messages only,
/// which never contain a secret.
struct StatusFile: Sendable {
    let url: URL

    init(home: URL) {
        url = home.appendingPathComponent("status.json")
    }

    struct Entry: Codable, Sendable {
        var lastError: String
        var at: Date
    }

    func load() -> [String: Entry] {
        guard let data = try? Data(contentsOf: url) else { return [:] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode([String: Entry].self, from: data)) ?? [:]
    }

    /// Records a failure of a connection.
    func record(_ message: String, for name: String) {
        var entries = load()
        entries[name] = Entry(lastError: message, at: Date())
        write(entries)
    }

    /// Forgets the last error of a connection after a success; writes nothing when there was none.
    func clear(_ name: String) {
        var entries = load()
        guard entries.removeValue(forKey: name) != nil else { return }
        write(entries)
    }

    private func write(_ entries: [String: Entry]) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(entries) else { return }
        try? data.write(to: url, options: .atomic)
    }
}
