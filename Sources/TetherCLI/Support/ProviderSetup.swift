import Foundation
import Tether
import TetherCommandSupport
import TetherOAuth

/// How `tether login` turns its options into a provider configuration: which provider, which client, which
/// endpoints. Free of ArgumentParser and of the vault, so tests call it directly.
struct ProviderSetup: Sendable {
    /// The login argument as given: a preset (see ``ProviderPreset``) or the name of a saved connection.
    var provider: String?
    /// `--issuer`, or `TETHER_ISSUER`.
    var issuer: String?
    /// `--client-id`, or `TETHER_CLIENT_ID`.
    var clientID: String?
    /// `--client-secret`, `--client-secret-file`, or `TETHER_CLIENT_SECRET`.
    var clientSecret: ClientSecret?
    /// The scopes given, split; `nil` for the preset's.
    var scopes: [String]?
    /// `--name`.
    var name: String?
    /// `--tenant`.
    var tenant: String?
    /// `--authorization-endpoint`.
    var authorizationEndpoint: String?
    /// `--token-endpoint`.
    var tokenEndpoint: String?
    /// `--revocation-endpoint`.
    var revocationEndpoint: String?
    /// `--device-authorization-endpoint`.
    var deviceAuthorizationEndpoint: String?
    /// `--client-auth-method`: `client_secret_basic` or `client_secret_post`.
    var clientAuthMethod: String?

    /// The loopback redirect; the presenter replaces the port with the one it listens on.
    static let loopbackRedirect = URL(string: "http://127.0.0.1/callback")

    /// Where `tether dev-provider` listens by default.
    static let developmentIssuer = "http://127.0.0.1:8123"

    /// Options given on the command line win over the environment; an empty variable counts as unset.
    init(
        provider: String? = nil,
        issuer: String? = nil,
        clientID: String? = nil,
        clientSecret: String? = nil,
        scope: [String] = [],
        name: String? = nil,
        tenant: String? = nil,
        authorizationEndpoint: String? = nil,
        tokenEndpoint: String? = nil,
        revocationEndpoint: String? = nil,
        deviceAuthorizationEndpoint: String? = nil,
        clientAuthMethod: String? = nil,
        environment: [String: String] = [:]
    ) {
        func variable(_ key: String) -> String? { environment[key].flatMap { $0.isEmpty ? nil : $0 } }
        self.provider = provider
        self.issuer = issuer ?? variable("TETHER_ISSUER")
        self.clientID = clientID ?? variable("TETHER_CLIENT_ID")
        self.clientSecret = (clientSecret ?? environment["TETHER_CLIENT_SECRET"]).flatMap {
            $0.isEmpty ? nil : ClientSecret($0)
        }
        self.scopes = Self.scopes(scope, environment: environment)
        self.name = name
        self.tenant = tenant
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.clientAuthMethod = clientAuthMethod
    }

    /// The largest client secret file read, in bytes.
    static let maximumSecretFileSize = 64 * 1024

    /// Reads `--client-secret-file`: the file at `path`, or standard input for `-`. One trailing newline (what
    /// `echo` and editors add) is removed; an empty secret is refused. Errors name the file, never its content.
    /// - Parameters:
    ///   - path: The file's path, or `-`.
    ///   - standardInput: Reads standard input to its end.
    /// - Returns: The secret.
    static func clientSecret(fromFile path: String, standardInput: () throws -> Data) throws -> String {
        let source = path == "-" ? "standard input" : "'\(path)'"
        let data: Data
        do {
            data = try path == "-" ? standardInput() : Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIFailure(
                .usage,
                "Could not read the client secret from \(source)",
                fix: "Give --client-secret-file a readable file, or - for standard input"
            )
        }
        guard data.count <= maximumSecretFileSize else {
            throw CLIFailure(.usage, "The client secret in \(source) is longer than \(maximumSecretFileSize) bytes")
        }
        guard var secret = String(data: data, encoding: .utf8) else {
            throw CLIFailure(.usage, "The client secret in \(source) is not UTF-8 text")
        }
        // "\r\n" is one Character, so one removal takes either line ending.
        if secret.hasSuffix("\n") || secret.hasSuffix("\r\n") { secret.removeLast() }
        guard !secret.isEmpty else {
            throw CLIFailure(.usage, "The client secret in \(source) is empty", fix: "Write the secret into it")
        }
        return secret
    }

    /// The scopes from `--scope` (repeatable), else from `TETHER_SCOPE`.
    ///
    /// Each value is split on spaces and commas: providers document their scopes as one space-delimited string
    /// (RFC 6749 section 3.3), and that string pasted as a single `--scope` or into `TETHER_SCOPE` must not reach
    /// the provider as one scope with spaces in it. Nothing given is `nil`, which means the preset's defaults,
    /// not "no scopes".
    static func scopes(_ given: [String], environment: [String: String]) -> [String]? {
        let values = given.isEmpty ? (environment["TETHER_SCOPE"].map { [$0] } ?? []) : given
        let split = values.flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init) }
        return split.isEmpty ? nil : split
    }

    /// The connection's name: `--name`, else the argument, else the issuer's host.
    func connectionName() throws -> String {
        try Workspace.validatedName(name ?? provider ?? issuer.flatMap { URL(string: $0)?.host } ?? "default")
    }

    /// What to sign in to. `tether login NAME` signs in again to a saved connection; `tether login PRESET` creates
    /// or reuses one; `--issuer` alone means any server.
    func choice(existing: Profile?) throws -> ProviderChoice {
        let given = provider?.lowercased()
        if let given, let preset = ProviderPreset(argument: given) {
            return .preset(preset)
        } else if given == nil, issuer != nil {
            return .issuer
        } else if let existing, given == nil || given == existing.name.lowercased() {
            guard let choice = ProviderChoice(storedName: existing.preset) else {
                throw CLIFailure(.usage, "Unknown provider '\(existing.preset)'", fix: Self.knownProviders)
            }
            return choice
        } else if given == nil {
            throw CLIFailure(.usage, "Name a provider or give --issuer", fix: "See `tether providers`")
        } else {
            throw CLIFailure(.usage, "Unknown provider or connection '\(provider ?? "")'", fix: Self.knownProviders)
        }
    }

    static let knownProviders =
        "Use google, microsoft, github or dev, or --issuer URL for any other server (see `tether providers`)"

    /// The configuration to sign in with: the preset's or the discovered one, what a saved connection of the same
    /// provider kept, and the endpoints given on the command line.
    ///
    /// - Parameters:
    ///   - existing: the saved connection of this name, if any.
    ///   - openSecret: opens a client secret sealed in connections.json (sealed value, connection name).
    ///   - transport: fetches discovery documents.
    func configuration(
        for choice: ProviderChoice,
        existing: Profile?,
        openSecret: (String, String) throws -> String,
        transport: any HTTPTransport
    ) async throws -> ProviderConfiguration {
        let sameProvider = existing?.preset == choice.storedName ? existing : nil
        var configuration = try await baseConfiguration(
            for: choice,
            existing: sameProvider,
            openSecret: openSecret,
            transport: transport
        )
        if let sameProvider {
            // Endpoints given by hand last time stay when discovery still leaves them out.
            configuration.revocationEndpoint =
                configuration.revocationEndpoint ?? sameProvider.provider.revocationEndpoint
            configuration.deviceAuthorizationEndpoint =
                configuration.deviceAuthorizationEndpoint ?? sameProvider.provider.deviceAuthorizationEndpoint
            // A method chosen last time stays, as long as the client still has a secret.
            let stored = sameProvider.provider.clientAuthentication
            if configuration.clientSecret != nil, stored == .secretBasic || stored == .secretPost {
                configuration.clientAuthentication = stored
            }
        }
        try applyEndpointOverrides(&configuration)
        return configuration
    }

    func baseConfiguration(
        for choice: ProviderChoice,
        existing: Profile?,
        openSecret: (String, String) throws -> String,
        transport: any HTTPTransport
    ) async throws -> ProviderConfiguration {
        // Signing in again to a saved connection keeps its settings; options given now replace them.
        if let existing, issuer == nil, clientID == nil || clientID == existing.provider.clientID,
            scopes == nil || scopes == existing.provider.scopes, tenant == nil
        {
            var configuration = existing.provider
            if let clientSecret {
                configuration.clientSecret = clientSecret
            } else if let sealed = existing.sealedClientSecret {
                configuration.clientSecret = ClientSecret(try openSecret(sealed, existing.name))
            }
            return configuration
        }
        let clientID = self.clientID ?? existing?.provider.clientID
        let secret =
            try clientSecret
            ?? existing?.sealedClientSecret.map { ClientSecret(try openSecret($0, existing?.name ?? "")) }
        func requireClientID() throws -> String {
            guard let clientID else {
                throw CLIFailure(
                    .configuration,
                    "\(choice.storedName) needs a client id",
                    fix: "Pass --client-id (or set TETHER_CLIENT_ID); `tether providers` says where to get one"
                )
            }
            return clientID
        }
        switch choice {
        case .preset(.google):
            return ProviderConfiguration.google(
                clientID: try requireClientID(),
                clientSecret: secret,
                redirectURI: Self.loopbackRedirect,
                scopes: scopes ?? ["openid", "email", "profile"]
            )
        case .preset(.microsoft):
            return ProviderConfiguration.microsoft(
                tenant: .init(tenant ?? "common"),
                clientID: try requireClientID(),
                redirectURI: Self.loopbackRedirect,
                scopes: scopes ?? ["openid", "email", "profile", "offline_access", "User.Read"]
            )
        case .preset(.github):
            // `--issuer` names the server for GitHub: a GitHub Enterprise Server (its API under /api/v3) or a
            // development provider speaking the GitHub dialect.
            guard let serverURL = URL(string: issuer ?? "https://github.com"), serverURL.host != nil else {
                throw CLIFailure(.usage, "--issuer '\(issuer ?? "")' is not a URL")
            }
            return ProviderConfiguration.github(
                clientID: try requireClientID(),
                clientSecret: secret,
                redirectURI: Self.loopbackRedirect,
                scopes: scopes ?? ["read:user", "user:email"],
                serverURL: serverURL
            )
        case .preset(.dev):
            let issuer = issuer ?? Self.developmentIssuer
            return try await discover(
                issuer: issuer,
                clientID: clientID ?? "tether-dev-client",
                secret: secret,
                choice: choice,
                transport: transport
            )
        case .issuer:
            guard let issuer else {
                throw CLIFailure(.usage, "--issuer is needed without a preset", fix: "See `tether login --help`")
            }
            return try await discover(
                issuer: issuer,
                clientID: try requireClientID(),
                secret: secret,
                choice: choice,
                transport: transport
            )
        case .preset(.firebase):
            throw CLIFailure(
                .configuration,
                "Firebase signs users in through its own SDK or REST API, not a browser redirect",
                fix:
                    "Keep Firebase sessions with the Tether library (ProviderConfiguration.firebase); see `tether providers`"
            )
        case .preset(.apple):
            throw CLIFailure(
                .configuration,
                "Sign in with Apple does not accept loopback redirects, so it cannot sign in from a terminal",
                fix: "Sign in on an Apple device or a web page; see `tether providers`"
            )
        }
    }

    func discover(
        issuer: String,
        clientID: String,
        secret: ClientSecret?,
        choice: ProviderChoice,
        transport: any HTTPTransport
    ) async throws -> ProviderConfiguration {
        let isDev = choice == .preset(.dev)
        do {
            var configuration = try await ProviderConfiguration.discover(
                issuer: issuer,
                clientID: clientID,
                clientSecret: secret,
                scopes: scopes,
                redirectURI: Self.loopbackRedirect,
                providerID: isDev ? "dev" : URL(string: issuer)?.host ?? issuer,
                transport: transport
            )
            if secret != nil, configuration.clientAuthentication == .none {
                configuration.clientAuthentication = .secretBasic
            }
            return configuration
        } catch {
            // Only a server that publishes no metadata (404 at every location) may go on with the endpoints given
            // by hand. Any other failure (an outage, a malformed document, another issuer) could be an attacker
            // stripping discovery to turn off the `iss` and ID token checks, so it is reported as it is.
            let failure = CLIFailure.from(error)
            let hasNoMetadata = (error as? OAuthError).map { $0 == .discoveryFailed && $0.httpStatus == 404 } ?? false
            guard let tokenEndpoint = tokenEndpoint.flatMap(URL.init(string:)), hasNoMetadata else {
                let fix =
                    if isDev {
                        "Start it with `tether dev-provider` (or pass --issuer with its URL)"
                    } else if tokenEndpoint != nil {
                        "Discovery failed for another reason than a missing document, so --token-endpoint is not "
                            + "used in its place; check --issuer and the server"
                    } else {
                        "Check --issuer, or give --authorization-endpoint and --token-endpoint"
                    }
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
                redirectURI: Self.loopbackRedirect
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
        if let clientAuthMethod {
            let methods: [String: ProviderConfiguration.ClientAuthentication] = [
                "client_secret_basic": .secretBasic, "client_secret_post": .secretPost,
            ]
            guard let method = methods[clientAuthMethod] else {
                throw CLIFailure(
                    .usage,
                    "--client-auth-method '\(clientAuthMethod)' is not client_secret_basic or client_secret_post"
                )
            }
            guard configuration.clientSecret != nil else {
                throw CLIFailure(
                    .usage,
                    "--client-auth-method needs a client secret",
                    fix: "Give --client-secret-file (or TETHER_CLIENT_SECRET)"
                )
            }
            configuration.clientAuthentication = method
        }
    }
}

extension ProviderChoice {
    /// The choice a saved connection was made with; `nil` for a name this version does not know.
    init?(storedName: String) {
        if storedName == ProviderChoice.issuer.storedName {
            self = .issuer
        } else if let preset = ProviderPreset(rawValue: storedName) {
            self = .preset(preset)
        } else {
            return nil
        }
    }
}
