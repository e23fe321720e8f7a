import ArgumentParser
import Foundation
import Tether
import TetherCommandSupport

struct GitCredentialCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "git-credential",
        abstract: "A git credential helper that answers with a connection's access token.",
        discussion: """
            Speaks gitcredentials(7) on standard input and output. `get` answers with a valid access token, \
            refreshed first when it expires soon: as `password` with the user name oauth2 (or --git-username at \
            login, or --username here), or, when git announces `capability[]=authtype` (git 2.46 and later), as a \
            Bearer `credential` that git does not store. `erase` (git's server refused the token) makes the next \
            `get` refresh once; the grant is kept. `store` does nothing. It never signs in unless --allow-login is given and \
            standard error is a terminal: when the connection needs it, git is told to stop (`quit=1`) and one \
            line on standard error names the `tether login` to run.

            The connection is the one given with --connection, else the one saved for the host with \
            `tether login … --git-host HOST`. For any other host it answers nothing, and git asks its other \
            helpers. A token goes only over https, or plain http to 127.0.0.1, localhost or ::1.

            Installed as a symbolic link named git-credential-tether, it serves `credential.helper = tether`.

            EXAMPLES
              git config --global credential.https://github.com.helper ''
              git config --global --add credential.https://github.com.helper \\
                  '!tether git-credential --connection github'
              printf 'protocol=https\\nhost=github.com\\n\\n' | tether git-credential get
            """
    )

    @Argument(help: "The operation git asks for: get, store, erase or capability; others are ignored.")
    var operation: String

    @Option(help: "The connection; default: the one saved for the host with `tether login … --git-host`.")
    var connection: String?

    @Option(help: "The user name to answer with; default: the connection's --git-username, else oauth2.")
    var username: String?

    @Flag(help: "When the connection needs sign-in and standard error is a terminal, sign in, then answer.")
    var allowLogin = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let terminal = Terminal()
        switch operation {
        case "get": try await get(terminal)
        case "erase": try await erase()
        case "capability": terminal.out("version 0\ncapability authtype")
        case "store": _ = try? GitCredentialInput.parse(try HelperInput.read())
        default: return  // gitcredentials(7): a helper ignores what it does not know.
        }
    }

    private func get(_ terminal: Terminal) async throws {
        let input = try GitCredentialInput.parse(try HelperInput.read())
        let helper: CredentialHelper
        let profile: Profile
        do {
            helper = try CredentialHelper(global)
            guard let found = try self.profile(for: input, helper: helper) else { return }
            profile = found
        } catch {
            // Ours (named, or found by host) but unusable: stop git before it prompts.
            if connection != nil {
                terminal.out("quit=1")
                throw CLIFailure.from(error, connection: connection)
            }
            throw error
        }
        guard input.allowsToken else {
            terminal.err(
                "tether: '\(profile.name)' sends no token over plain http to \(input.host ?? "this host"); "
                    + "use https."
            )
            terminal.out("quit=1")
            throw ExitCode(ExitStatus.configuration.rawValue)
        }
        let issued: CredentialHelper.Issued
        do {
            issued = try await helper.token(for: profile, signIn: InteractiveSignIn(allowed: allowLogin))
        } catch {
            terminal.out("quit=1")
            throw error
        }
        let token = issued.accessToken.revealedValue
        guard !token.contains(where: { $0 == "\n" || $0 == "\0" }) else {
            terminal.out("quit=1")
            throw CLIFailure(.failure, "The access token of '\(profile.name)' cannot be passed to git")
        }
        var lines: [String]
        if input.capabilities.contains("authtype") {
            lines = ["capability[]=authtype", "authtype=Bearer", "credential=\(token)", "ephemeral=true"]
        } else {
            let user =
                username ?? input.username ?? profile.credentialHelpers?.gitUsername
                ?? CredentialHelperSetting.defaultGitUsername
            lines = ["username=\(user)", "password=\(token)"]
        }
        if let expiresAt = issued.expiresAt { lines.append("password_expiry_utc=\(HelperTime.unix(expiresAt))") }
        terminal.out(lines.joined(separator: "\n"))
    }

    /// Records the refused token, so that the next `get` refreshes once. The grant is never deleted.
    private func erase() async throws {
        let input = try GitCredentialInput.parse(try HelperInput.read())
        guard let refused = input.password ?? input.credential, !refused.isEmpty else { return }
        let helper = try CredentialHelper(global)
        guard let profile = try self.profile(for: input, helper: helper) else { return }
        RejectedTokens(workspace: helper.workspace).record(AccessToken(refused), for: profile.name)
    }

    /// The connection named with --connection, else the one saved for the input's host; `nil` when neither.
    private func profile(for input: GitCredentialInput, helper: CredentialHelper) throws -> Profile? {
        if let connection { return try helper.profile(named: connection) }
        guard let host = input.host.flatMap(CredentialHelperSetting.host(of:)) else { return nil }
        return try helper.connection(serving: host, kind: \.gitHosts, option: "--git-host")
    }
}

/// What git writes to a credential helper (git-credential(1), "INPUT/OUTPUT FORMAT"): `key=value` lines up to a
/// blank line or the end, each at most 65,535 bytes; a key ending in `[]` takes several values, and an empty one
/// clears those before it.
struct GitCredentialInput: Sendable, Equatable {
    static let maximumLineLength = 65_535

    var values: [String: String] = [:]
    var lists: [String: [String]] = [:]

    static func parse(_ data: Data) throws -> GitCredentialInput {
        var input = GitCredentialInput()
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            guard line.count <= maximumLineLength else {
                throw CLIFailure(.usage, "A line of git's input is longer than \(maximumLineLength) bytes")
            }
            var bytes = line
            if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
            if bytes.isEmpty { break }
            guard !bytes.contains(0), let text = String(bytes: bytes, encoding: .utf8) else {
                throw CLIFailure(.usage, "git's input is not UTF-8 text without NUL bytes")
            }
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw CLIFailure(.usage, "A line of git's input is not key=value")
            }
            let key = String(text[..<equals])
            let value = String(text[text.index(after: equals)...])
            if key.hasSuffix("[]") {
                let name = String(key.dropLast(2))
                if value.isEmpty { input.lists[name] = [] } else { input.lists[name, default: []].append(value) }
            } else {
                input.values[key] = value
            }
        }
        return input
    }

    var host: String? { values["host"] }
    var username: String? { values["username"].flatMap { $0.isEmpty ? nil : $0 } }
    var password: String? { values["password"] }
    var credential: String? { values["credential"] }
    var capabilities: [String] { lists["capability"] ?? [] }

    /// Whether a token may go to this URL: https, or plain http to the loopback interface.
    var allowsToken: Bool {
        switch values["protocol"]?.lowercased() {
        case "https", nil: return true
        case "http":
            guard let host = host.flatMap(CredentialHelperSetting.host(of:)) else { return false }
            let name =
                host.hasPrefix("[")
                ? String(host.dropFirst().prefix { $0 != "]" })
                : String(host.prefix { $0 != ":" })
            return ["127.0.0.1", "localhost", "::1"].contains(name)
        default: return false
        }
    }
}
