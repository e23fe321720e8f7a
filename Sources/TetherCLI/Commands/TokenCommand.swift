import ArgumentParser
import Foundation
import Tether

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a valid access token, refreshing it when needed.",
        discussion: """
            Prints the access token alone on standard output, for scripts. A token that expires soon is \
            refreshed first. Any number of processes may run this at once: they share one refresh through the \
            vault's lock, and all print the same new token. Pipe it on rather than passing it as an argument \
            (`$(tether token)` puts it in the process list, where other users can read it).

            EXAMPLES
              tether token | sed 's/^/Authorization: Bearer /' | curl -H @- https://api.example.com/me
              tether request https://api.example.com/me
              tether token calendar --force-refresh
              tether token --json | jq -r .expiresAt
            """
    )

    @Argument(help: "The connection; default: TETHER_CONNECTION, or the only one there is.")
    var connection: String?

    @Flag(help: "Print {name, accessToken, tokenType, expiresAt} as JSON.")
    var json = false

    @Flag(help: "Refresh even when the token is still valid (for a token the API rejected).")
    var forceRefresh = false

    @Option(help: "Refresh unless the token stays valid for at least this many seconds.")
    var minimumLifetime: Int?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        // Nothing is created for a connection that does not exist; a refresh writes only into an existing vault.
        let workspace = try Workspace(global, createsHome: false)
        let name = try workspace.resolveName(connection)
        let profile = try workspace.profile(named: name)
        let session = try await workspace.session(for: profile)
        let token: AccessToken
        do {
            if forceRefresh {
                token = try await session.forceRefresh(rejecting: try await session.connection()?.tokens.accessToken)
            } else if let minimumLifetime {
                token = try await session.validAccessToken(minimumLifetime: .seconds(max(0, minimumLifetime)))
            } else {
                token = try await session.validAccessToken()
            }
            try await Self.requireStored(session)
        } catch {
            let failure = CLIFailure.from(error, connection: name)
            workspace.statusFile.record(failure.message, for: name)
            throw failure
        }
        workspace.statusFile.clear(name)
        if json {
            let record = try? await session.connection()
            let object: [String: String?] = [
                "name": name,
                "accessToken": token.revealedValue,
                "tokenType": record?.tokens.tokenType ?? "Bearer",
                "expiresAt": Format.iso8601(record?.tokens.expiresAt),
            ]
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            workspace.terminal.out(String(decoding: try encoder.encode(object), as: UTF8.self))
        } else {
            workspace.terminal.out(token.revealedValue)
        }
    }

    /// Refreshed tokens that the store refused (a refresh made in this process, when no worker could be started)
    /// would die with it: write them again briefly, and print no token this run cannot keep.
    /// - Throws: The store's ``CredentialStoreError`` when they still cannot be stored.
    static func requireStored(_ session: Session) async throws {
        for _ in 0..<3 {
            guard await session.holdsUnsavedTokens else { return }
            try await Task.sleep(for: .milliseconds(200))
            _ = await session.storeUnsavedTokens()
        }
        guard await session.holdsUnsavedTokens else { return }
        if case .storageUnavailable(let error) = await session.status { throw error }
        throw CredentialStoreError.unavailable.with(message: "The refreshed tokens could not be stored")
    }
}
