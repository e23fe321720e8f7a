import ArgumentParser
import Foundation
import TetherCommandSupport

struct ProvidersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers",
        abstract: "List the provider presets and what each needs.",
        discussion: """
            EXAMPLES
              tether providers
              tether providers --json | jq -r '.[].name'
            """
    )

    @Flag(help: "Print JSON.")
    var json = false

    struct Preset: Encodable {
        let name: String
        let provider: String
        let terminalSignIn: Bool
        let needs: String
        let notes: String
    }

    static let presets = [
        Preset(
            name: "google",
            provider: "Google (accounts.google.com)",
            terminalSignIn: true,
            needs: "--client-id of a Desktop app client; --client-secret-file if Google issued a secret",
            notes: "Google Cloud console > APIs & Services > Credentials. Add scopes such as "
                + "https://www.googleapis.com/auth/calendar.readonly with --scope. --device works with a "
                + "\"TVs and Limited Input devices\" client."
        ),
        Preset(
            name: "microsoft",
            provider: "Microsoft identity platform v2.0 (Entra ID, Outlook, Graph)",
            terminalSignIn: true,
            needs: "--client-id of an app registration with a public client redirect http://localhost; --tenant",
            notes: "Tenants: common (default), organizations, consumers, or a tenant id. offline_access is added "
                + "to the scopes; add Calendars.Read for Outlook calendars. --device needs public client flows on."
        ),
        Preset(
            name: "github",
            provider: "GitHub (OAuth apps and GitHub Apps' user tokens; GitHub Enterprise Server with --issuer)",
            terminalSignIn: true,
            needs: "--client-id of an OAuth app or GitHub App; --client-secret-file for the browser flow and to revoke",
            notes: "--device needs \"Enable Device Flow\" in the app's settings and no secret. No OpenID Connect: the "
                + "account is read from GET /user. Without a client secret, `tether logout` cannot revoke."
        ),
        Preset(
            name: "dev",
            provider: "the development provider (`tether dev-provider`)",
            terminalSignIn: true,
            needs: "nothing; --issuer if it does not listen on http://127.0.0.1:8123",
            notes: "User ada, password lovelace, client tether-dev-client."
        ),
        Preset(
            name: "oidc",
            provider: "any OAuth 2.0 / OpenID Connect server",
            terminalSignIn: true,
            needs: "--issuer URL and --client-id (no provider name); --client-secret-file for confidential clients",
            notes: "Endpoints come from discovery; --authorization-endpoint, --token-endpoint, "
                + "--revocation-endpoint and --device-authorization-endpoint add or override them."
        ),
        Preset(
            name: "firebase",
            provider: "Firebase Authentication",
            terminalSignIn: false,
            needs: "the Web API key and project id (library: ProviderConfiguration.firebase)",
            notes: "Users sign in through Firebase's SDK or REST API; the library keeps and refreshes the session."
        ),
        Preset(
            name: "apple",
            provider: "Sign in with Apple",
            terminalSignIn: false,
            needs: "a Services ID or bundle id (library: ProviderConfiguration.apple)",
            notes:
                "Apple rejects loopback redirects; sign in on an Apple device (AuthenticationServices) or a web page."
        ),
    ]

    func run() async throws {
        let terminal = Terminal()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            terminal.out(String(decoding: try encoder.encode(Self.presets), as: UTF8.self))
            return
        }
        let style = Style(enabled: terminal.colors(onStandardError: false))
        for preset in Self.presets {
            let name = preset.name == "oidc" ? "--issuer URL" : preset.name
            terminal.out(
                "\(style.bold(name))  \(preset.provider)\(preset.terminalSignIn ? "" : " — no sign-in from a terminal")"
            )
            terminal.out("    needs: \(preset.needs)")
            terminal.out("    \(preset.notes)")
            terminal.out("")
        }
    }
}
