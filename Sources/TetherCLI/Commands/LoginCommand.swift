import ArgumentParser
import Foundation
import Tether
import TetherCommandSupport
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

            PROVIDER is a preset (see `tether providers`): google, microsoft, github, dev. For any other OAuth 2.0 / \
            OpenID Connect server give --issuer; its discovery document supplies the endpoints, and the endpoint \
            options add or override them (many servers leave the revocation and device endpoints out).

            --calendar makes the connection a calendar source for `tether calendar`, read with the Google Calendar \
            API or Microsoft Graph; it is implied for the google and microsoft presets when a calendar scope is \
            granted. The API's base URL is the real service's, the development provider's own for dev, or \
            --calendar-api (https, or plain http to 127.0.0.1, localhost or ::1).

            The connection's settings go to $TETHER_HOME/connections.json (a client secret only sealed with the \
            vault key); its tokens to the encrypted vault. `tether login NAME` signs in again to a saved \
            connection with its settings; options given then replace them.

            EXAMPLES
              tether login dev
              tether login dev --device
              tether login google --name calendar \\
                  --client-id 1234.apps.googleusercontent.com \\
                  --client-secret-file ~/.config/tether/google-secret \\
                  --scope "openid email" \\
                  --scope https://www.googleapis.com/auth/calendar.readonly
              tether login microsoft --tenant consumers \\
                  --client-id 00000000-0000-0000-0000-000000000000
              tether login github --device --client-id Iv23liExample
              tether login dev --name work --calendar microsoft \\
                  --scope "openid email offline_access Calendars.Read"
              tether login --issuer https://login.example.com \\
                  --client-id cli --name work \\
                  --revocation-endpoint https://login.example.com/oauth/revoke
              tether login github --device --client-id Iv23liExample \\
                  --git-host github.com
            """
    )

    @Argument(
        help:
            "A preset (\(ProviderPreset.allValueStrings.joined(separator: ", "))) or a saved connection's name. Optional with --issuer.",
        completion: .list(ProviderPreset.allValueStrings)
    )
    var provider: String?

    @Option(help: "The issuer of any OAuth 2.0 / OpenID Connect server, found through discovery. (TETHER_ISSUER)")
    var issuer: String?

    @Option(help: "The client id. (TETHER_CLIENT_ID)")
    var clientID: String?

    @Option(
        help:
            "The client secret of a confidential client; kept sealed with the vault key. Visible to other users in the process list: prefer --client-secret-file or TETHER_CLIENT_SECRET."
    )
    var clientSecret: String?

    @Option(
        help: ArgumentHelp(
            "Read the client secret from a file, or from standard input with -; one trailing newline is removed.",
            valueName: "path|-"
        )
    )
    var clientSecretFile: String?

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

    @Option(help: "Supply or override the authorization endpoint.")
    var authorizationEndpoint: String?

    @Option(
        help:
            "Supply or override the token endpoint. Used in place of discovery only when the server publishes no discovery document (404)."
    )
    var tokenEndpoint: String?

    @Option(help: "Supply or override the revocation endpoint (RFC 7009).")
    var revocationEndpoint: String?

    @Option(help: "Supply or override the device authorization endpoint (RFC 8628).")
    var deviceAuthorizationEndpoint: String?

    @Option(
        help: ArgumentHelp(
            "How a confidential client authenticates: client_secret_basic or client_secret_post. Default: the first of them the server lists in token_endpoint_auth_methods_supported (client_secret_basic when it lists neither); kept with the connection.",
            valueName: "method"
        )
    )
    var clientAuthMethod: String?

    @Option(
        help: ArgumentHelp(
            "Make the connection a calendar source read with this API: google or microsoft.",
            valueName: "api"
        )
    )
    var calendar: CalendarAPI?

    @Option(
        name: .customLong("calendar-api"),
        help: ArgumentHelp(
            "The calendar API's base URL. Default: the service's, or the development provider's for dev.",
            valueName: "url"
        )
    )
    var calendarAPI: String?

    @Option(
        name: .customLong("git-host"),
        help: ArgumentHelp(
            "A git host whose credential helper answers with this connection (`tether git-credential`); repeat it.",
            valueName: "host"
        )
    )
    var gitHosts: [String] = []

    @Option(help: "The user name `tether git-credential` answers with (default: oauth2).")
    var gitUsername: String?

    @Option(
        name: .customLong("docker-registry"),
        help: ArgumentHelp(
            "A container registry that `tether docker-credential` answers for with this connection; repeat it.",
            valueName: "host"
        )
    )
    var dockerRegistries: [String] = []

    @Option(help: "The user name `tether docker-credential` answers with (default: oauth2accesstoken).")
    var dockerUsername: String?

    @Option(
        name: .customLong("grant-inactivity"),
        help: ArgumentHelp(
            "The grant ends when unused this long (90d, 12h; 0 for never), replacing the preset's rule; for `tether status` and `tether keep-alive`.",
            valueName: "duration"
        )
    )
    var grantInactivity: String?

    @Option(
        name: .customLong("grant-lifetime"),
        help: ArgumentHelp(
            "The refresh token ends this long after sign-in (7d for a Google app in Testing; 0 for never), replacing the preset's rule.",
            valueName: "duration"
        )
    )
    var grantLifetime: String?

    @Flag(help: "Sign in with a device code instead of the browser (for machines without one).")
    var device = false

    @Option(
        help: ArgumentHelp(
            "How long to wait for the browser sign-in: 90s, 10m (a bare number is seconds).",
            valueName: "duration"
        )
    )
    var timeout = DurationArgument(seconds: 300)

    @Flag(help: "Print the connection as JSON on standard output when done.")
    var json = false

    @OptionGroup var global: GlobalOptions

    /// The provider settings these options give, for the environment `environment`.
    func setup(
        environment: [String: String],
        standardInput: () throws -> Data = { FileHandle.standardInput.readDataToEndOfFile() }
    ) throws -> ProviderSetup {
        if clientSecret != nil, clientSecretFile != nil {
            throw CLIFailure(.usage, "Give either --client-secret or --client-secret-file, not both")
        }
        let fileSecret = try clientSecretFile.map {
            try ProviderSetup.clientSecret(fromFile: $0, standardInput: standardInput)
        }
        return ProviderSetup(
            provider: provider,
            issuer: issuer,
            clientID: clientID,
            clientSecret: clientSecret ?? fileSecret,
            scope: scope,
            name: name,
            tenant: tenantOption,
            authorizationEndpoint: authorizationEndpoint,
            tokenEndpoint: tokenEndpoint,
            revocationEndpoint: revocationEndpoint,
            deviceAuthorizationEndpoint: deviceAuthorizationEndpoint,
            clientAuthMethod: clientAuthMethod,
            environment: environment
        )
    }

    func run() async throws {
        // The options and the name are checked first: a usage error creates nothing in TETHER_HOME.
        let environment = ProcessInfo.processInfo.environment
        let setup = try setup(environment: environment)
        let name = try setup.connectionName()
        let workspace = try Workspace(global, environment: environment)
        let existing: Profile?
        do {
            existing = try workspace.profiles.profile(named: name)
        } catch is ProfileBindingError where (try? setup.choice(existing: nil)) != nil {
            // Settings that are not bound to the vault key are never reused, but signing in afresh with the
            // provider's options replaces them: that is the way out the refusal names.
            existing = nil
        }
        let choice = try setup.choice(existing: existing)
        // A calendar setting only carries over to a connection of the same provider.
        let existingCalendar = existing?.preset == choice.storedName ? existing?.calendar : nil
        // A bad --calendar-api is a usage error before any network.
        _ = try CalendarSetting.resolve(
            api: calendar,
            apiURL: calendarAPI,
            existing: existingCalendar,
            preset: nil,
            issuer: nil
        )
        // Bad host names are usage errors before any network.
        let helperSetting = try CredentialHelperSetting.merged(
            existing: existing?.credentialHelpers,
            gitHosts: gitHosts,
            gitUsername: gitUsername,
            dockerRegistries: dockerRegistries,
            dockerUsername: dockerUsername
        )
        // So are bad durations.
        let grantSetting = try GrantLifetimeSetting.merged(
            existing: existing?.preset == choice.storedName ? existing?.grantLifetime : nil,
            inactivity: grantInactivity,
            lifetime: grantLifetime
        )
        // A record that cannot be read is never signed over: say so before anyone signs in.
        do {
            _ = try await workspace.store.read(ConnectionID(name))
        } catch {
            throw CLIFailure.from(error, connection: name)
        }
        let configuration = try await setup.configuration(
            for: choice,
            existing: existing,
            openSecret: { try workspace.openSecret($0, connection: $1) },
            transport: workspace.transport
        )
        let preset: ProviderPreset? = if case .preset(let preset) = choice { preset } else { nil }
        let calendarSetting = try CalendarSetting.resolve(
            api: calendar,
            apiURL: calendarAPI,
            existing: existingCalendar,
            preset: preset,
            issuer: configuration.issuer
        )
        let client = try workspace.client(for: configuration)
        let session = workspace.session(name, client: client)
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
            // Kept for `tether status` when there is a connection to show it for; a first sign-in that failed
            // leaves nothing behind.
            let hasSettings = (try? workspace.profiles.profile(named: name)) != nil
            let hasRecord = (try? await workspace.store.read(ConnectionID(name))) != nil
            if hasSettings || hasRecord { workspace.statusFile.record(failure.message, for: name) }
            throw failure
        }
        // The provider did not say who signed in: the connection works all the same.
        let account = result.account ?? .unknown(providerID: configuration.providerID)
        let sealedSecret = try configuration.clientSecret.map {
            try workspace.vault.seal($0.revealedValue, context: Workspace.secretContext(name))
        }
        do {
            try await session.signIn(account: account, tokens: result.tokens)
        } catch {
            throw CLIFailure.from(error, connection: name)
        }
        let impliedAPI = CalendarSetting.implied(
            preset: preset,
            scopes: result.tokens.scopes ?? configuration.scopes
        )
        let calendarSource =
            calendarSetting
            ?? impliedAPI.map { CalendarSetting(api: $0, baseURL: nil) }
        try workspace.profiles.save(
            Profile(
                name: name,
                preset: choice.storedName,
                provider: configuration,
                sealedClientSecret: sealedSecret,
                calendar: calendarSource,
                credentialHelpers: helperSetting,
                grantLifetime: grantSetting
            )
        )
        workspace.statusFile.clear(name)
        CalendarSources.statusFile(home: workspace.home).remove(name)

        // The provider chose the claim behind it (`email`, `preferred_username`): made safe for the terminal.
        let shown = UntrustedText.forTerminal(
            account.maskedDisplayIdentifier ?? (account.isUnknown ? "an unknown account" : account.providerID)
        )
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
            if !result.missingScopes.isEmpty {
                workspace.terminal.err(
                    "  Not granted: \(result.missingScopes.joined(separator: " ")) "
                        + "(the provider granted fewer scopes than asked for)."
                )
            }
            if let calendarSource {
                workspace.terminal.err(
                    "  A calendar source (\(calendarSource.api.rawValue), \(calendarSource.baseURL.absoluteString)): see `tether calendar events`."
                )
            }
        }
    }

    static func accountHint(_ status: ConnectionStatus) -> String? {
        guard case .needsSignIn(_, let hint?) = status else { return nil }
        return hint.displayIdentifier
    }

    func browserSignIn(_ client: OAuthClient, _ hint: String?, _ workspace: Workspace) async throws -> SignInResult {
        let terminal = workspace.terminal
        let browser = BrowserLauncher.system(environment: workspace.environment) { url in
            terminal.err("Open this URL in a browser to sign in:\n\n  \(url.absoluteString)\n")
        }
        let presenter = LoopbackPresenter(
            configuration: LoopbackPresenter.Configuration(
                timeout: .seconds(max(1, timeout.seconds)),
                browser: browser
            ),
            logger: workspace.logger
        )
        terminal.err("Waiting for the sign-in in the browser (Ctrl-C to cancel)…")
        return try await client.signIn(using: presenter, loginHint: hint)
    }

    func deviceSignIn(_ client: OAuthClient, workspace: Workspace) async throws -> SignInResult {
        let authorization = try await client.startDeviceAuthorization()
        let terminal = workspace.terminal
        let style = Style(enabled: terminal.colors(onStandardError: true))
        // The provider chose this text: no escape sequence of its own reaches the terminal.
        let verification = UntrustedText.sanitized(authorization.verificationURI.absoluteString)
        terminal.err("To sign in, open \(style.bold(verification))")
        terminal.err("and enter the code \(style.bold(UntrustedText.sanitized(authorization.userCode)))")
        if let complete = authorization.verificationURIComplete {
            terminal.err("(or open \(UntrustedText.sanitized(complete.absoluteString)), which has the code in it)")
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
