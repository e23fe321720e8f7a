import ArgumentParser
import Foundation
import Tether
import TetherCommandSupport

struct DockerCredentialCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docker-credential",
        abstract: "A docker credential helper that answers with a connection's access token.",
        discussion: """
            Speaks the docker-credential-helpers protocol on standard input and output, for registries that take \
            an OAuth access token as the password (Google Artifact Registry: user oauth2accesstoken). `get` reads \
            the registry's URL and answers {"ServerURL", "Username", "Secret"} with a valid access token of the \
            connection saved for the registry with `tether login … --docker-registry HOST`, refreshed first when \
            it expires soon; `list` answers {URL: user name} for every saved registry; `store` and `erase` do \
            nothing (the token lives in the vault). Failures are on standard output, where docker reads them: \
            `credentials not found in native keychain` for a registry no connection serves, the sign-in hint \
            when the connection needs it.

            Installed as a symbolic link named docker-credential-tether, it serves "credHelpers" in \
            ~/.docker/config.json.

            EXAMPLES
              ln -s "$(command -v tether)" ~/.local/bin/docker-credential-tether
              echo europe-docker.pkg.dev | tether docker-credential get
            """
    )

    @Argument(help: "The operation: get, store, erase, list or version.")
    var operation: String

    @Flag(help: "When the connection needs sign-in and standard error is a terminal, sign in, then answer.")
    var allowLogin = false

    @OptionGroup var global: GlobalOptions

    /// The text docker-credential-helpers' client recognises as "no credentials for this registry".
    static let notFound = "credentials not found in native keychain"

    func run() async throws {
        let terminal = Terminal()
        switch operation {
        case "get": try await get(terminal)
        case "list": try list(terminal)
        case "store", "erase": _ = try HelperInput.read()
        case "version": terminal.out("tether 0.1.0")
        default:
            terminal.out("unknown operation: \(operation.prefix(40))")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
    }

    private func get(_ terminal: Terminal) async throws {
        let serverURL = String(decoding: try HelperInput.read(limit: 8192), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let helper: CredentialHelper
        let found: Profile?
        do {
            helper = try CredentialHelper(global)
            found = try CredentialHelperSetting.host(of: serverURL).flatMap {
                try helper.connection(serving: $0, kind: \.dockerRegistries, option: "--docker-registry")
            }
        } catch {
            let failure = CLIFailure.from(error)
            terminal.out("tether: \(failure.description)")
            throw failure
        }
        guard let profile = found else {
            terminal.out(Self.notFound)
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        let issued: CredentialHelper.Issued
        do {
            issued = try await helper.token(for: profile, signIn: InteractiveSignIn(allowed: allowLogin))
        } catch {
            let failure = CLIFailure.from(error, connection: profile.name)
            terminal.out("tether: \(failure.description)")
            throw failure
        }
        let answer = [
            "ServerURL": serverURL,
            "Username": Self.username(profile),
            "Secret": issued.accessToken.revealedValue,
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        terminal.out(String(decoding: try encoder.encode(answer), as: UTF8.self))
    }

    private func list(_ terminal: Terminal) throws {
        let helper = try CredentialHelper(global)
        var registries: [String: String] = [:]
        for profile in try helper.workspace.profiles.load() {
            for registry in profile.credentialHelpers?.dockerRegistries ?? [] {
                registries[registry] = Self.username(profile)
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        terminal.out(String(decoding: try encoder.encode(registries), as: UTF8.self))
    }

    static func username(_ profile: Profile) -> String {
        profile.credentialHelpers?.dockerUsername ?? CredentialHelperSetting.defaultDockerUsername
    }
}
