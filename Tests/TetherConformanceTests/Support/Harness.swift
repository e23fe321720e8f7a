import Foundation
import Logging
import Testing
import Tether
import TetherJWT
import TetherOAuth
import TetherTestSupport
import TetherURLSession

/// One test's view of the conformance server: the server, the library's transport and a temporary folder for
/// vaults. ``start()`` empties the server's request log, so that a test counts only its own requests.
struct Harness: Sendable {
    let server: ConformanceServer
    let transport: URLSessionTransport
    let directory: URL

    static let key = VaultKey.generate()
    static let silent = Logger(label: "tether.conformance", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The scopes a sign-in asks for unless a test says otherwise: identity, a refresh token and DOT's API scope.
    static let scopes = ["openid", "profile", "email", "offline_access", "read"]

    static func start() async throws -> Harness {
        let server = try ConformanceServer.load()
        try await server.requests()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tether-conformance-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return Harness(server: server, transport: URLSessionTransport(), directory: directory)
    }

    func stop() {
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - Client

    /// The client's configuration, discovered from the issuer's metadata.
    func discover(
        _ clientID: String = "tether-public",
        secret: ClientSecret? = nil,
        authentication: ProviderConfiguration.ClientAuthentication? = nil,
        scopes: [String]? = Harness.scopes
    ) async throws -> ProviderConfiguration {
        try await ProviderConfiguration.discover(
            issuer: server.issuer,
            clientID: clientID,
            clientSecret: secret,
            scopes: scopes,
            redirectURI: URL(string: "http://127.0.0.1/callback"),
            providerID: "dot",
            transport: transport,
            clientAuthentication: authentication
        )
    }

    /// A client that verifies ID tokens with the server's JWKS (`jwks_uri`), with the validator's default cache
    /// and re-fetch interval, as an application has them.
    func client(_ configuration: ProviderConfiguration) throws -> OAuthClient {
        try OAuthClient(
            configuration: configuration,
            transport: transport,
            idTokenValidator: configuration.jwksURI.map { validator(jwks: $0) },
            logger: Self.silent
        )
    }

    /// A validator of ID tokens signed with the keys at `jwks`, with `JWKSIDTokenValidator`'s defaults.
    func validator(jwks: URL) -> JWKSIDTokenValidator {
        JWKSIDTokenValidator(jwksURL: jwks, transport: transport, logger: Self.silent)
    }

    /// A presenter whose browser is `Conformance/form-browser.py`: it signs ada in on the server's own form and
    /// answers its consent page with `decision` (`allow` or `deny`).
    func formPresenter(decision: String = "allow") -> LoopbackPresenter {
        var environment = ProcessInfo.processInfo.environment
        environment["BROWSER"] = "'\(server.python)' '\(Self.formBrowser.path)'"
        environment["FORM_BROWSER_DECISION"] = decision
        return LoopbackPresenter(
            configuration: .init(timeout: .seconds(60), browser: .system(environment: environment)),
            logger: Self.silent
        )
    }

    /// A presenter whose browser is headless Chromium (`Scripts/headless-browser.py`) filling the sign-in form.
    func headlessPresenter() -> LoopbackPresenter {
        var environment = ProcessInfo.processInfo.environment
        environment["BROWSER"] = "python3 '\(HeadlessBrowser.script.path)'"
        environment["HEADLESS_BROWSER_USERNAME"] = "ada"
        environment["HEADLESS_BROWSER_PASSWORD"] = "lovelace"
        return LoopbackPresenter(
            configuration: .init(timeout: .seconds(90), browser: .system(environment: environment)),
            logger: Self.silent
        )
    }

    static let formBrowser = ConformanceServer.repositoryRoot.appendingPathComponent("Conformance/form-browser.py")
    static let approveDevice = ConformanceServer.repositoryRoot.appendingPathComponent("Conformance/approve-device.py")

    /// Signs ada in with the authorization code flow and PKCE through the server's form.
    func signIn(
        _ clientID: String = "tether-public",
        secret: ClientSecret? = nil,
        authentication: ProviderConfiguration.ClientAuthentication? = nil,
        scopes: [String] = Harness.scopes
    ) async throws -> (OAuthClient, SignInResult) {
        let client = try client(
            try await discover(clientID, secret: secret, authentication: authentication, scopes: scopes)
        )
        return (client, try await client.signIn(using: formPresenter()))
    }

    // MARK: - Device grant

    /// Approves (or with `decision` `deny`, denies) a user code on DOT's device page, as the person would.
    func answerDeviceCode(_ userCode: String, decision: String = "accept") async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["DEVICE_DECISION"] = decision
        let status = try await Subprocess.run(
            [server.python, Self.approveDevice.path, server.base, userCode],
            environment: environment,
            timeout: .seconds(60)
        )
        #expect(status.status == 0, "approve-device.py: \(status.stderr)")
    }

    // MARK: - Sessions

    /// A vault in this test's temporary folder.
    func vault(_ name: String = "vault") throws -> VaultStore {
        try VaultStore(
            directory: directory.appendingPathComponent(name, isDirectory: true),
            key: Self.key,
            environment: [:],
            logger: Self.silent
        )
    }

    /// A session on `store` that refreshes and revokes through `client`.
    func session(_ store: any CredentialStore, client: OAuthClient, id: ConnectionID = "dot") -> Session {
        Session(
            id: id,
            store: store,
            refresher: client,
            revoker: client,
            configuration: Session.Configuration(retry: Backoff(maximumAttempts: 1, jitter: 0)),
            logger: Self.silent
        )
    }

    /// Signs in and stores the connection in a new vault `name`, returning the session.
    func signedInSession(
        _ clientID: String = "tether-public",
        vault name: String = "vault"
    ) async throws -> (OAuthClient, Session, SignInResult) {
        let (client, result) = try await signIn(clientID)
        let account = try #require(result.account)
        let session = session(try vault(name), client: client)
        try await session.signIn(account: account, tokens: result.tokens)
        return (client, session, result)
    }
}
