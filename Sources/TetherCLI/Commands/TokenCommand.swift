import ArgumentParser
import Foundation
import Tether
import TetherCommandSupport

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
              tether token | sed 's/^/Authorization: Bearer /' |
                  curl -H @- https://api.example.com/me
              tether request https://api.example.com/me
              tether token calendar --force-refresh
              tether token --json | jq -r .expiresAt
              tether token work --format header | curl -H @- https://api.example.com/me
              eval "$(tether token work --format env --variable API_TOKEN)"

            FORMATS (--format)
              token      the access token alone (default)
              json       {name, accessToken, tokenType, expiresAt} (also --json)
              header     Authorization: Bearer TOKEN
              env        export TETHER_TOKEN='TOKEN', to be eval'ed (--variable names it)
              bazel      a Bazel credential helper's answer; with `get`, the request
                         is read from standard input
              terraform  a Terraform credentials helper's answer; `get HOST`
                         answers {} unless --host names HOST
            See docs/credential-helpers.md for git, kubectl, docker, Bazel and Terraform.
            """
    )

    @Argument(help: "The connection; default: TETHER_CONNECTION, or the only one there is.")
    var connection: String?

    @Argument(help: "For --format bazel and terraform: the operation the tool asks for (get, store, forget).")
    var operation: String?

    @Argument(help: "For --format terraform: the host of `get HOST`.")
    var operationHost: String?

    @Flag(help: "Print {name, accessToken, tokenType, expiresAt} as JSON (as --format json).")
    var json = false

    @Option(help: "How to print the token: token, json, header, env, bazel, terraform (see FORMATS below).")
    var format: TokenFormat?

    @Option(help: "For --format env: the variable's name (default: TETHER_TOKEN).")
    var variable: String = "TETHER_TOKEN"

    @Option(
        name: .customLong("host"),
        help: ArgumentHelp(
            "For --format bazel and terraform: a host the token may go to; repeat it. Terraform needs one.",
            valueName: "host"
        )
    )
    var hosts: [String] = []

    @Flag(help: "Refresh even when the token is still valid (for a token the API rejected).")
    var forceRefresh = false

    @Option(
        help: ArgumentHelp(
            "Refresh unless the token stays valid at least this long: 90s, 5m, 1h (a bare number is seconds).",
            valueName: "duration"
        )
    )
    var minimumLifetime: DurationArgument?

    @Flag(help: "When the connection needs sign-in and standard error is a terminal, sign in, then print the token.")
    var allowLogin = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let format = try resolvedFormat()
        let (connection, operation, operationHost) = TokenRequest.arranged(
            (self.connection, self.operation, self.operationHost),
            format: format
        )
        let request = try TokenRequest.read(format: format, operation: operation, host: operationHost, hosts: hosts)
        guard case .token = request else {
            if case .answer(let text) = request, !text.isEmpty { Terminal().out(text) }
            return
        }
        // Nothing is created for a connection that does not exist; a refresh writes only into an existing vault.
        let workspace = try Workspace(global, createsHome: false)
        let name = try workspace.resolveName(connection)
        let profile = try workspace.profile(named: name)
        let (session, token) = try await InteractiveSignIn(allowed: allowLogin).retrying(after: name) {
            try await issue(profile, workspace: workspace)
        }
        workspace.statusFile.clear(name)
        let record = try? await session.connection()
        workspace.terminal.out(
            try TokenOutput(
                name: name,
                token: token,
                tokenType: record?.tokens.tokenType,
                expiresAt: record?.tokens.expiresAt
            ).render(format, variable: variable)
        )
    }

    /// A token of `profile`'s connection as the options ask for it, and the session that holds it. A failure is
    /// recorded for `tether status` and thrown as a ``CLIFailure``.
    private func issue(_ profile: Profile, workspace: Workspace) async throws -> (Session, AccessToken) {
        let name = profile.name
        let session = try await workspace.session(for: profile)
        do {
            let token: AccessToken
            if forceRefresh {
                token = try await session.forceRefresh(rejecting: try await session.connection()?.tokens.accessToken)
            } else if let minimumLifetime {
                token = try await session.validAccessToken(minimumLifetime: minimumLifetime.duration)
            } else {
                token = try await session.validAccessToken()
            }
            try await Self.requireStored(session)
            return (session, token)
        } catch {
            let failure = CLIFailure.from(error, connection: name)
            workspace.statusFile.record(failure.message, for: name)
            throw failure
        }
    }

    /// The format asked for: `--format`, or json with `--json`.
    func resolvedFormat() throws -> TokenFormat {
        if json, let format, format != .json {
            throw CLIFailure(.usage, "--json is --format json; give one of them")
        }
        let resolved = format ?? (json ? .json : .token)
        if resolved == .env { _ = try TokenOutput.validatedVariable(variable) }
        if operation != nil, resolved != .bazel, resolved != .terraform {
            throw CLIFailure(
                .usage,
                "Unexpected argument '\(operation?.prefix(40) ?? "")'",
                fix: "Only --format bazel and terraform take an operation"
            )
        }
        return resolved
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
