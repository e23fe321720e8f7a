import ArgumentParser
import Foundation
import Tether
import TetherOAuth

struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in and save the connection.",
        discussion: """
            Signs in with the authorization code flow and PKCE: tether listens on 127.0.0.1 on a free port (path \
            /callback), opens the sign-in page with $BROWSER (run with the URL as its argument), else xdg-open or \
            open, else prints the URL, and waits for the redirect. With --device it uses the device flow instead: \
            it shows a code and a URL to open on any device, and waits.

            PROVIDER is a preset (see `tether providers`): google, microsoft, dev. For any other OAuth 2.0 / \
            OpenID Connect server give --issuer; its discovery document supplies the endpoints, and the endpoint \
            options add or override them (many servers leave the revocation and device endpoints out).

            The connection's settings go to $TETHER_HOME/connections.json (a client secret only sealed with the \
            vault key); its tokens to the encrypted vault. `tether login NAME` signs in again to a saved \
            connection with its settings; options given then replace them.

            EXAMPLES
              tether login dev
              tether login dev --device
              tether login google --name calendar \\
                  --client-id 1234.apps.googleusercontent.com --client-secret S \\
                  --scope "openid email" \\
                  --scope https://www.googleapis.com/auth/calendar.readonly
              tether login microsoft --tenant consumers \\
                  --client-id 00000000-0000-0000-0000-000000000000
              tether login --issuer https://login.example.com \\
                  --client-id cli --name work \\
                  --revocation-endpoint https://login.example.com/oauth/revoke
            """
    )

    @Argument(help: "A preset: google, microsoft or dev. Optional with --issuer.")
    var provider: String?

    @Option(help: "The issuer of any OAuth 2.0 / OpenID Connect server, found through discovery. (TETHER_ISSUER)")
    var issuer: String?

    @Option(help: "The client id. (TETHER_CLIENT_ID)")
    var clientID: String?

    @Option(
        help:
            "The client secret of a confidential client; kept sealed with the vault key. Prefer TETHER_CLIENT_SECRET: other users can read command lines."
    )
    var clientSecret: String?

    @Option(
        parsing: .singleValue,
        help:
            "A scope; repeat it or separate scopes with spaces. Default: the preset's, or openid email profile. (TETHER_SCOPE)"
    )
    var scope: [String] = []

    @Option(help: "The connection's name. Default: the preset's name, or the issuer's host.")
    var name: String?

    @Option(
        name: .customLong("tenant"),
        help: "The Microsoft tenant: common (default), organizations, consumers, or a tenant id."
    )
    var tenantOption: String?

    var tenant: String { tenantOption ?? "common" }

    @Option(help: "Supply or override the authorization endpoint.")
    var authorizationEndpoint: String?

    @Option(help: "Supply or override the token endpoint.")
    var tokenEndpoint: String?

    @Option(help: "Supply or override the revocation endpoint (RFC 7009).")
    var revocationEndpoint: String?

    @Option(help: "Supply or override the device authorization endpoint (RFC 8628).")
    var deviceAuthorizationEndpoint: String?

    @Flag(help: "Sign in with a device code instead of the browser (for machines without one).")
    var device = false

    @Option(help: "Seconds to wait for the browser sign-in.")
    var timeout: Int = 300

    @Flag(help: "Print the connection as JSON on standard output when done.")
    var json = false

    @OptionGroup var global: GlobalOptions

    static let presets: Set<String> = ["google", "microsoft", "dev", "firebase", "apple"]

    func run() async throws {
        let workspace = try Workspace(global)
        let environment = workspace.environment
        let issuer = issuer ?? environment["TETHER_ISSUER"].flatMap { $0.isEmpty ? nil : $0 }
        // `tether login NAME` signs in again to a saved connection; `tether login PRESET` creates or reuses one.
        let given = provider?.lowercased()
        let name = try Workspace.validatedName(self.name ?? provider ?? Self.defaultName(issuer: issuer))
        let existing = try workspace.profiles.profile(named: name)
        let presetName: String
        if let given, Self.presets.contains(given) {
            presetName = given
        } else if given == nil, issuer != nil {
            presetName = "oidc"
        } else if let existing, given == nil || given == existing.name.lowercased() {
            presetName = existing.preset
        } else if given == nil {
            throw CLIFailure(.usage, "Name a provider or give --issuer", fix: "See `tether providers`")
        } else {
            throw CLIFailure(
                .usage,
                "Unknown provider or connection '\(provider ?? "")'",
                fix: "Use google, microsoft or dev, or --issuer URL for any other server (see `tether providers`)"
            )
        }
        // A record that cannot be read is never signed over: say so before anyone signs in.
        do {
            _ = try await workspace.store.read(ConnectionID(name))
        } catch {
            throw CLIFailure.from(error, connection: name)
        }
        var configuration = try await makeConfiguration(
            preset: presetName,
            issuer: issuer,
            existing: existing?.preset == presetName ? existing : nil,
            workspace: workspace
        )
        if let existing, existing.preset == presetName {
            // Endpoints given by hand last time stay when discovery still leaves them out.
            configuration.revocationEndpoint = configuration.revocationEndpoint ?? existing.provider.revocationEndpoint
            configuration.deviceAuthorizationEndpoint =
                configuration.deviceAuthorizationEndpoint ?? existing.provider.deviceAuthorizationEndpoint
        }
        try applyEndpointOverrides(&configuration)
        let client = try workspace.client(for: configuration)
        let session = Session(
            id: ConnectionID(name),
            store: workspace.store,
            refresher: client,
            revoker: client,
            logger: workspace.logger
        )
        // Only the stored record is read: no refresh starts that this short-lived process could cut off.
        let hint = Self.accountHint(await session.status)

        let result: SignInResult
        do {
            result =
                device
                ? try await deviceSignIn(client, workspace: workspace)
                : try await browserSignIn(client, hint, workspace)
        } catch {
            let failure = CLIFailure.from(error, connection: name)
            workspace.statusFile.record(failure.message, for: name)
            throw failure
        }
        let account =
            result.account ?? Account(providerID: configuration.providerID, subject: name, displayIdentifier: nil)
        let sealedSecret = try configuration.clientSecret.map {
            try workspace.store.seal($0.revealedValue, context: Workspace.secretContext(name))
        }
        do {
            try await session.signIn(account: account, tokens: result.tokens)
        } catch {
            throw CLIFailure.from(error, connection: name)
        }
        try workspace.profiles.save(
            Profile(name: name, preset: presetName, provider: configuration, sealedClientSecret: sealedSecret)
        )
        workspace.statusFile.clear(name)

        let shown = account.maskedDisplayIdentifier ?? account.providerID
        if json {
            try StatusCommand.printJSON(
                [
                    StatusRow.make(
                        name: name,
                        status: await session.status,
                        record: try? await session.connection(),
                        lastError: nil,
                        provider: configuration.providerID
                    )
                ],
                workspace.terminal
            )
        } else {
            let style = Style(enabled: workspace.terminal.colors(onStandardError: true))
            workspace.terminal.err("\(style.green("✔")) Signed in to '\(name)' as \(shown).")
        }
    }

    static func defaultName(issuer: String?) -> String {
        issuer.flatMap { URL(string: $0)?.host } ?? "default"
    }

    static func accountHint(_ status: ConnectionStatus) -> String? {
        guard case .needsSignIn(_, let hint?) = status else { return nil }
        return hint.displayIdentifier
    }

    var scopes: [String]? {
        let given = scope.isEmpty ? (ProcessInfo.processInfo.environment["TETHER_SCOPE"].map { [$0] } ?? []) : scope
        let split = given.flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init) }
        return split.isEmpty ? nil : split
    }

    func makeConfiguration(
        preset: String,
        issuer: String?,
        existing: Profile?,
        workspace: Workspace
    ) async throws -> ProviderConfiguration {
        let environment = workspace.environment
        let givenClientID = self.clientID ?? environment["TETHER_CLIENT_ID"].flatMap { $0.isEmpty ? nil : $0 }
        let givenSecret = (self.clientSecret ?? environment["TETHER_CLIENT_SECRET"]).flatMap {
            $0.isEmpty ? nil : ClientSecret($0)
        }
        let loopback = URL(string: "http://127.0.0.1/callback")
        // Signing in again to a saved connection keeps its settings; options given now replace them.
        if let existing, issuer == nil, givenClientID == nil || givenClientID == existing.provider.clientID,
            scopes == nil || scopes == existing.provider.scopes, tenantOption == nil
        {
            var configuration = existing.provider
            if let givenSecret {
                configuration.clientSecret = givenSecret
            } else if let sealed = existing.sealedClientSecret {
                configuration.clientSecret = ClientSecret(try workspace.openSecret(sealed, connection: existing.name))
            }
            return configuration
        }
        let clientID = givenClientID ?? existing?.provider.clientID
        let secret =
            try givenSecret
            ?? existing?.sealedClientSecret.map {
                ClientSecret(try workspace.openSecret($0, connection: existing?.name ?? ""))
            }
        func requireClientID() throws -> String {
            guard let clientID else {
                throw CLIFailure(
                    .configuration,
                    "\(preset) needs a client id",
                    fix: "Pass --client-id (or set TETHER_CLIENT_ID); `tether providers` says where to get one"
                )
            }
            return clientID
        }
        switch preset {
        case "google":
            return ProviderConfiguration.google(
                clientID: try requireClientID(),
                clientSecret: secret,
                redirectURI: loopback,
                scopes: scopes ?? ["openid", "email", "profile"]
            )
        case "microsoft":
            return ProviderConfiguration.microsoft(
                tenant: .init(tenant),
                clientID: try requireClientID(),
                redirectURI: loopback,
                scopes: scopes ?? ["openid", "email", "profile", "offline_access", "User.Read"]
            )
        case "dev", "oidc":
            let issuer = issuer ?? (preset == "dev" ? "http://127.0.0.1:8123" : nil)
            guard let issuer else {
                throw CLIFailure(.usage, "--issuer is needed without a preset", fix: "See `tether login --help`")
            }
            let clientID = preset == "dev" ? clientID ?? "tether-dev-client" : try requireClientID()
            return try await discover(issuer: issuer, clientID: clientID, secret: secret, preset: preset, workspace)
        case "firebase":
            throw CLIFailure(
                .configuration,
                "Firebase signs users in through its own SDK or REST API, not a browser redirect",
                fix:
                    "Keep Firebase sessions with the Tether library (ProviderConfiguration.firebase); see `tether providers`"
            )
        case "apple":
            throw CLIFailure(
                .configuration,
                "Sign in with Apple does not accept loopback redirects, so it cannot sign in from a terminal",
                fix: "Sign in on an Apple device or a web page; see `tether providers`"
            )
        default:
            throw CLIFailure(
                .usage,
                "Unknown provider '\(preset)'",
                fix: "Use google, microsoft or dev, or --issuer URL for any other server (see `tether providers`)"
            )
        }
    }

    func discover(
        issuer: String,
        clientID: String,
        secret: ClientSecret?,
        preset: String,
        _ workspace: Workspace
    ) async throws -> ProviderConfiguration {
        do {
            var configuration = try await ProviderConfiguration.discover(
                issuer: issuer,
                clientID: clientID,
                clientSecret: secret,
                scopes: scopes,
                redirectURI: URL(string: "http://127.0.0.1/callback"),
                providerID: preset == "dev" ? "dev" : URL(string: issuer)?.host ?? issuer,
                transport: workspace.transport
            )
            if secret != nil, configuration.clientAuthentication == .none {
                configuration.clientAuthentication = .secretBasic
            }
            return configuration
        } catch {
            // A server without discovery still works when the endpoints are given; an outage is not a missing
            // document, so it is reported as it is.
            guard let tokenEndpoint = tokenEndpoint.flatMap(URL.init(string:)),
                CLIFailure.from(error).status != .unavailable
            else {
                let failure = CLIFailure.from(error)
                let fix =
                    preset == "dev"
                    ? "Start it with `tether dev-provider` (or pass --issuer with its URL)"
                    : "Check --issuer, or give --authorization-endpoint and --token-endpoint"
                throw CLIFailure(failure.status, failure.message, fix: fix)
            }
            return ProviderConfiguration(
                providerID: URL(string: issuer)?.host ?? issuer,
                issuer: nil,
                tokenEndpoint: tokenEndpoint,
                clientID: clientID,
                clientSecret: secret,
                clientAuthentication: secret == nil ? ProviderConfiguration.ClientAuthentication.none : .secretBasic,
                scopes: scopes ?? [],
                redirectURI: URL(string: "http://127.0.0.1/callback")
            )
        }
    }

    func applyEndpointOverrides(_ configuration: inout ProviderConfiguration) throws {
        func url(_ value: String?, _ option: String) throws -> URL? {
            guard let value else { return nil }
            guard let url = URL(string: value), url.scheme != nil, url.host != nil else {
                throw CLIFailure(.usage, "\(option) '\(value)' is not a URL")
            }
            return url
        }
        if let endpoint = try url(authorizationEndpoint, "--authorization-endpoint") {
            configuration.authorizationEndpoint = endpoint
        }
        if let endpoint = try url(tokenEndpoint, "--token-endpoint") { configuration.tokenEndpoint = endpoint }
        if let endpoint = try url(revocationEndpoint, "--revocation-endpoint") {
            configuration.revocationEndpoint = endpoint
        }
        if let endpoint = try url(deviceAuthorizationEndpoint, "--device-authorization-endpoint") {
            configuration.deviceAuthorizationEndpoint = endpoint
        }
    }

    func browserSignIn(_ client: OAuthClient, _ hint: String?, _ workspace: Workspace) async throws -> SignInResult {
        let terminal = workspace.terminal
        let browser = BrowserLauncher.system(environment: workspace.environment) { url in
            terminal.err("Open this URL in a browser to sign in:\n\n  \(url.absoluteString)\n")
        }
        let presenter = LoopbackPresenter(
            configuration: LoopbackPresenter.Configuration(timeout: .seconds(max(1, timeout)), browser: browser),
            logger: workspace.logger
        )
        terminal.err("Waiting for the sign-in in the browser (Ctrl-C to cancel)…")
        return try await client.signIn(using: presenter, loginHint: hint)
    }

    func deviceSignIn(_ client: OAuthClient, workspace: Workspace) async throws -> SignInResult {
        let authorization = try await client.startDeviceAuthorization()
        let terminal = workspace.terminal
        let style = Style(enabled: terminal.colors(onStandardError: true))
        terminal.err("To sign in, open \(style.bold(authorization.verificationURI.absoluteString))")
        terminal.err("and enter the code \(style.bold(authorization.userCode))")
        if let complete = authorization.verificationURIComplete {
            terminal.err("(or open \(complete.absoluteString), which has the code in it)")
        }
        // A live countdown only where a line can be redrawn: a terminal that understands escapes.
        let live = terminal.stderrIsTerminal && terminal.environment["TERM"] != "dumb"
        let countdown: Task<Void, Never>? =
            live
            ? Task {
                while !Task.isCancelled {
                    let left = max(0, Int(authorization.expiresAt.timeIntervalSinceNow))
                    terminal.err("\r\u{1B}[2KWaiting for approval… \(Format.duration(left)) left", newline: false)
                    try? await Task.sleep(for: .seconds(1))
                }
            } : nil
        if countdown == nil {
            terminal.err("Waiting for approval (the code expires \(Format.relative(authorization.expiresAt)))…")
        }
        let result: Result<SignInResult, any Error>
        do {
            result = .success(try await client.waitForDeviceAuthorization(authorization))
        } catch {
            result = .failure(error)
        }
        if let countdown {
            countdown.cancel()
            await countdown.value
            terminal.err("\r\u{1B}[2K", newline: false)
        }
        return try result.get()
    }
}
