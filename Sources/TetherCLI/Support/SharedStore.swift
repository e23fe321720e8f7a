import Foundation
import Logging
import PostgresNIO
import Tether
import TetherCommandSupport
import TetherPostgres

/// Where `tether` keeps its connections' records and refresh leases: the vault in `TETHER_HOME` (the default), or
/// a PostgreSQL database that several machines share (`TETHER_STORE=postgresql://…` or `--store`).
///
/// The settings (connections.json), the status file and the calendar cache stay in `TETHER_HOME` either way; only
/// the tokens and the refresh lease move to the database, sealed with `TETHER_POSTGRES_KEY` (or the file
/// `TETHER_POSTGRES_KEY_FILE` names).
enum StoreLocation: Sendable, Equatable {
    case vault
    case postgres(url: String)

    /// The variable that chooses the store.
    static let variable = "TETHER_STORE"
    /// The variable that names the tenant of the PostgreSQL store; `default` when unset.
    static let tenantVariable = "TETHER_STORE_TENANT"

    /// The store `--store` or `TETHER_STORE` names; the vault when neither is set, or when it is `vault`.
    static func resolve(option: String?, environment: [String: String]) throws -> StoreLocation {
        let given = option.flatMap { $0.isEmpty ? nil : $0 } ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
        guard let given, given != "vault" else { return .vault }
        guard given.hasPrefix("postgresql://") || given.hasPrefix("postgres://") else {
            // Not echoed: the text may hold a password.
            throw CLIFailure(
                .configuration,
                "The store (--store or \(variable)) is neither `vault` nor a postgresql:// URL",
                fix: "Use postgresql://user[:password]@host[:port]/database, or unset \(variable) to use the vault"
            )
        }
        return .postgres(url: given)
    }

    /// The store as `tether status` and errors name it, without a password or query parameters.
    func displayName(home: URL) -> String {
        switch self {
        case .vault: "vault \(home.path)"
        case .postgres(let url): Self.redacted(url)
        }
    }

    /// `url` with its password replaced by `***` and its query and fragment dropped (they may hold a password).
    static func redacted(_ url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            let host = components.percentEncodedHost
        else { return "postgresql://(not a valid URL)" }
        var text = scheme + "://"
        if let user = components.percentEncodedUser {
            text += user + (components.percentEncodedPassword == nil ? "" : ":***") + "@"
        }
        text += host
        if let port = components.port { text += ":\(port)" }
        return text + components.percentEncodedPath
    }
}

/// A ``PostgresStore`` for `tether`, with its connection pool running for the rest of the process.
enum SharedStore {
    /// How long one database operation may take before the command reports the store unavailable.
    static let operationTimeout: Duration = .seconds(5)

    /// Opens the store at `url`. The pool connects on first use: an unreachable database shows on the first read.
    /// - Throws: A ``CLIFailure`` with the configuration status when the URL is not usable or the sealing key is
    ///   missing or invalid. No message contains the URL's password or a key.
    static func open(url: String, environment: [String: String], logger: Logger) throws -> PostgresStore {
        let clientConfiguration: PostgresClient.Configuration
        do {
            clientConfiguration = try PostgresStore.clientConfiguration(url: url)
        } catch {
            throw CLIFailure(
                .configuration,
                "The store URL (--store or \(StoreLocation.variable)) is not a usable PostgreSQL URL",
                fix: "Use postgresql://user[:password]@host[:port]/database"
            )
        }
        var configuration: PostgresStore.Configuration
        do {
            configuration = try PostgresStore.Configuration(
                tenant: environment[StoreLocation.tenantVariable].flatMap { $0.isEmpty ? nil : $0 } ?? "default",
                environment: environment
            )
        } catch let error as CredentialStoreError {
            let given = [PostgresStore.Configuration.keyVariable, PostgresStore.Configuration.keyFileVariable]
                .contains { environment[$0].map { !$0.isEmpty } == true }
            let message = error.message.hasSuffix(".") ? String(error.message.dropLast()) : error.message
            throw CLIFailure(
                .configuration,
                given
                    ? "The PostgreSQL store's sealing key is not usable: \(message)"
                    : "The PostgreSQL store has no sealing key",
                fix: "Set \(PostgresStore.Configuration.keyVariable) (base64 of 32 bytes) or "
                    + "\(PostgresStore.Configuration.keyFileVariable), the same on every machine that shares the store"
            )
        }
        configuration.operationTimeout = operationTimeout
        // The pool's own logs stay quiet: connection failures reach the user as the store's typed errors.
        var poolLogger = logger
        poolLogger.logLevel = .critical
        let client = PostgresClient(configuration: clientConfiguration, backgroundLogger: poolLogger)
        // The pool runs until the process exits; a command is one short process.
        Task.detached { await client.run() }
        do {
            return try PostgresStore(client: client, configuration: configuration, logger: logger)
        } catch {
            throw CLIFailure.from(error)
        }
    }
}
