import ArgumentParser
import Foundation
import Tether
import TetherCommandSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tether`: sign in, keep connections fresh, hand tokens to scripts.
@main
struct TetherCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tether",
        abstract: "Sign in with OAuth 2.0 / OpenID Connect and keep connections signed in.",
        discussion: """
            tether signs in through the browser (authorization code with PKCE) or \
            with a device code, keeps each connection's tokens in an encrypted vault, \
            refreshes them before they expire — once, even when many processes ask \
            at the same time — and hands valid access tokens to scripts.

            GETTING STARTED
              tether demo               the whole life of a connection, locally
              tether dev-provider &     a local OAuth / OIDC provider on port 8123
              tether login dev          sign in to it (ada / lovelace)
              tether token              print a valid access token
              tether request http://127.0.0.1:8123/userinfo
              tether status             every connection and its state
              tether watch              each status change, as it happens
              tether calendar events    a week of events from every calendar source
              tether logout --all       revoke and delete every connection's tokens

              tether token | sed 's/^/Authorization: Bearer /' | \\
                  curl -H @- http://127.0.0.1:8123/resource

            CREDENTIAL HELPERS (docs/credential-helpers.md)
              tether git-credential     git (also as git-credential-tether)
              tether kube-credential    kubectl's exec plugin
              tether docker-credential  docker (also as docker-credential-tether)
              tether token --format bazel|terraform|header|env

            FILES
              $TETHER_HOME   default $XDG_DATA_HOME/tether, else ~/.local/share/tether
              connections.json   each connection's provider, client id, scopes;
                                 a client secret only sealed with the vault key
              records/           the encrypted vault: tokens and account
              vault.key          the vault key, only when no source below has it
                                 (`tether status` then says so)
              status.json        the last error of each connection
              calendar-cache/    each calendar source's last good events, sealed
              calendar-status.json  how each calendar source's last fetch failed
              rejected-tokens.json  a fingerprint of the token a tool last refused
                                 (git credential erase): the next helper refreshes

            ENVIRONMENT
              TETHER_HOME        where the files above live
              TETHER_VAULT_KEY   the vault key (base64 of 32 bytes); else the key is
                                 $CREDENTIALS_DIRECTORY/tether-vault-key (systemd
                                 LoadCredentialEncrypted=), else an item in the
                                 Secret Service (GNOME Keyring, KWallet) when a
                                 D-Bus session and libsecret are there, else vault.key
              TETHER_SECRET_SERVICE=off  keep the Secret Service out of it
              TETHER_STORE       postgresql://user[:password]@host[:port]/db keeps
                                 tokens and refresh leases in PostgreSQL, shared
                                 by every machine that uses it (also --store);
                                 `vault` or unset: records/ in TETHER_HOME
              TETHER_POSTGRES_KEY, TETHER_POSTGRES_KEY_FILE
                                 the key that seals records in PostgreSQL
              TETHER_STORE_TENANT  the tenant in PostgreSQL (default `default`)
              TETHER_CONNECTION  the connection used when none is named
              TETHER_CLIENT_ID, TETHER_CLIENT_SECRET, TETHER_ISSUER, TETHER_SCOPE
                                 defaults for `tether login`
              BROWSER            opens the sign-in page; run with the URL as
                                 its argument
              https_proxy, http_proxy, all_proxy, no_proxy (or uppercase,
              but not HTTP_PROXY)
                                 send requests through an http:// or socks5://
                                 proxy, read as curl reads them; this machine
                                 (localhost, 127.0.0.0/8, ::1) is reached directly
              NO_COLOR           no colour, even on a terminal
              TETHER_VERBOSE=1   like --verbose

            EXIT STATUS
            \(ExitStatus.allCases.map { "  \($0.rawValue)  \($0.meaning)" }.joined(separator: "\n"))
            """,
        version: "0.1.0",
        subcommands: [
            LoginCommand.self, StatusCommand.self, WatchCommand.self, TokenCommand.self, RequestCommand.self,
            LogoutCommand.self, KeepAliveCommand.self,
            ProvidersCommand.self, CalendarCommand.self, DevProviderCommand.self, DemoCommand.self,
            GitCredentialCommand.self, KubeCredentialCommand.self, DockerCredentialCommand.self,
            RefreshWorkerCommand.self,
        ]
    )

    /// Runs the command and exits with the documented statuses: usage errors exit 2 (not the parser's 64), a
    /// ``CLIFailure`` exits with its status after one line on standard error.
    static func main() async {
        let arguments = helperArguments(CommandLine.arguments)
        let terminal = Terminal()
        DetachedRefresher.executable.withLock { $0 = currentExecutable() }
        let command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                terminal.out(message)
                terminate(0)
            }
            terminal.err(message)
            terminate(code == .validationFailure ? ExitStatus.usage.rawValue : code.rawValue)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var command = command
                try command.run()
            }
            terminate(0)
        } catch let failure as CLIFailure {
            report(failure, terminal: terminal)
            terminate(failure.status.rawValue)
        } catch let code as ExitCode {
            terminate(code.rawValue)
        } catch  where exitCode(for: error) == .success {
            // `tether help …` and `--help` after a subcommand arrive here.
            terminal.out(fullMessage(for: error))
            terminate(0)
        } catch {
            let failure = CLIFailure.from(error)
            report(failure, terminal: terminal)
            terminate(failure.status.rawValue)
        }
    }

    /// The command line without its first word; run as `git-credential-tether` or `docker-credential-tether` (a
    /// symbolic link or copy of this executable, as git and docker find their helpers), the matching subcommand
    /// comes first.
    static func helperArguments(_ commandLine: [String]) -> [String] {
        let arguments = Array(commandLine.dropFirst())
        let invokedAs = URL(fileURLWithPath: commandLine.first ?? "tether").lastPathComponent
        switch invokedAs {
        case "git-credential-tether": return ["git-credential"] + arguments
        case "docker-credential-tether": return ["docker-credential"] + arguments
        default: return arguments
        }
    }

    /// The path of this executable, for starting refresh workers: `/proc/self/exe` where it exists, else the
    /// command line's first word when it is an absolute path.
    static func currentExecutable() -> String? {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        let first = CommandLine.arguments.first ?? ""
        return first.hasPrefix("/") ? first : nil
    }

    /// Ends the process; `exit` alone would name `ParsableCommand.exit(withError:)` here.
    static func terminate(_ status: Int32) -> Never {
        #if canImport(Glibc)
        Glibc.exit(status)
        #else
        Darwin.exit(status)
        #endif
    }

    static func report(_ failure: CLIFailure, terminal: Terminal) {
        terminal.report(failure)
    }
}
