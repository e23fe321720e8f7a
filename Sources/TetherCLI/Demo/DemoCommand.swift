import ArgumentParser
import Foundation
import HTTPTypes
import Logging
import Tether
import TetherCommandSupport
import TetherDevProvider
import TetherOAuth

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Walk one connection through its whole life against a local provider.",
        discussion: """
            Starts the development provider in this process on a free 127.0.0.1 port, with access tokens that \
            live a few seconds, and a vault in a temporary folder. Then, with a timeline of every status change:

              1. sign in through the provider's page (loopback redirect, PKCE)
              2. a fresh `tether` process restores the session, no refresh
              3. the token nears expiry: one silent refresh for three callers
              4. the API answers 401: one refresh, one retry, success
              5. the provider is down: offline, tokens kept, then recovery
              6. the grant is revoked: needs sign-in, with the account as hint
              7. sign in again with the hint
              8. sign out: revoked at the provider, nothing left in the vault
              9. two calendar sources (Google Calendar API for ada, Microsoft Graph for
                 grace) load; grace's grant is revoked: that source needs sign-in and
                 shows its cached events, marked stale, while ada's keeps loading

            Exits 0 when every step behaved as expected; otherwise 1, naming the step that failed.

            EXAMPLES
              tether demo
              tether demo --lifetime 5 --keep
            """
    )

    @Option(help: "Access token lifetime in seconds.")
    var lifetime: Int = 3

    @Flag(help: "Keep the temporary folder (vault, connections.json) and print where it is.")
    var keep = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (2...60).contains(lifetime) else { throw ValidationError("--lifetime must be from 2 to 60 seconds") }
    }

    func run() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, visionOS 1, *) else {
            throw CLIFailure(.configuration, "The demo needs macOS 14 or later")
        }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("tether-demo-\(UUID().uuidString)")
        var environment = ProcessInfo.processInfo.environment
        environment["TETHER_HOME"] = home.path
        environment["TETHER_VAULT_KEY"] = nil
        // The demo's vault is thrown away: its key must not stay behind in the user's keyring.
        environment["TETHER_SECRET_SERVICE"] = "off"
        environment["TETHER_CONNECTION"] = nil
        // The demo's connection lives and dies in its own vault, never in a shared store.
        environment[StoreLocation.variable] = nil
        var options = global
        options.store = nil
        let workspace = try Workspace(options, environment: environment)
        let terminal = Terminal()
        let timeline = Timeline(terminal: terminal, style: Style(enabled: terminal.colors(onStandardError: false)))
        let running = try await DevProvider(
            DevProvider.Configuration(accessTokenLifetime: .seconds(lifetime), accessTokenFormat: .jwt)
        ).start()
        let demo = DemoRun(
            workspace: workspace,
            provider: running,
            lifetime: .seconds(lifetime),
            timeline: timeline,
            environment: environment
        )
        timeline.say("Provider: \(running.issuer.absoluteString) (in this process; access tokens live \(lifetime) s)")
        timeline.say("Vault:    \(home.path) (AES-GCM; \(keep ? "kept" : "removed at the end"))")
        let passed = await demo.run()
        await running.stop()
        if !keep { try? FileManager.default.removeItem(at: home) }
        guard let failed = passed else {
            timeline.done()
            return
        }
        throw CLIFailure(.failure, "The demo failed at step '\(failed)'")
    }
}

/// The steps of `tether demo`.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
struct DemoRun: Sendable {
    let workspace: Workspace
    let provider: RunningDevProvider
    let lifetime: Duration
    let timeline: Timeline
    let environment: [String: String]
    let name = "dev"

    typealias Failure = DemoFailure

    func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        guard condition else { throw Failure(message()) }
    }

    /// Runs every step; returns the title of the step that failed, or `nil`.
    func run() async -> String? {
        let configuration: ProviderConfiguration
        let client: OAuthClient
        do {
            configuration = try await ProviderConfiguration.discover(
                issuer: provider.issuer.absoluteString,
                clientID: "tether-dev-client",
                redirectURI: URL(string: "http://127.0.0.1/callback"),
                providerID: "dev",
                transport: workspace.transport
            )
            client = try workspace.client(for: configuration)
            try workspace.profiles.save(
                Profile(name: name, preset: ProviderPreset.dev.rawValue, provider: configuration)
            )
        } catch {
            timeline.fail("Set up", "\(CLIFailure.from(error))")
            return "Set up"
        }
        let session = Session(
            id: ConnectionID(name),
            store: workspace.store,
            refresher: client,
            revoker: client,
            configuration: Session.Configuration(retry: Backoff(initialDelay: .milliseconds(200))),
            logger: workspace.logger
        )
        let steps = steps(session: session, client: client) + [calendarStep(configuration)]
        var watcher: Task<Void, Never>?
        defer { watcher?.cancel() }
        for (index, step) in steps.enumerated() {
            timeline.step(index + 1, step.title)
            if index == 0 { watcher = await timeline.watch(session) }
            do {
                try await step.run()
                // Let the watcher print the last status change before the next step's title.
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                timeline.fail(step.title, "\(error)")
                return step.title
            }
        }
        return nil
    }

    struct Step: Sendable {
        let title: String
        let run: @Sendable () async throws -> Void
    }

    func steps(session: Session, client: OAuthClient) -> [Step] {
        let account = Account(providerID: "dev", subject: "ada-0001", displayIdentifier: "ada@example.com")
        return [
            Step(title: "Sign in through the provider's sign-in page") {
                let result = try await client.signIn(using: presenter())
                try check(result.account == account, "signed in as \(String(describing: result.account))")
                try await session.signIn(account: try result.account.required("the account"), tokens: result.tokens)
                try check(await session.status.kind == .connected, "not connected after signing in")
                timeline.say("PKCE S256, state and nonce checked; the ID token's signature verified with the JWKS")
            },
            Step(title: "A fresh process restores the session") {
                let before = await provider.admin.counters()
                let status = try await cli(["status", name, "--json"], expecting: 0)
                let rows = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]]
                try check(rows?.first?["state"] as? String == "connected", "the new process saw \(status.stdout)")
                let token = try await cli(["token", name], expecting: 0)
                let current = try await session.connection()?.tokens.accessToken?.revealedValue
                try check(token.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == current, "another token")
                let after = await provider.admin.counters()
                try check(after[.refreshes] == before[.refreshes], "the new process refreshed a valid token")
                timeline.say(
                    "`tether status` and `tether token` (pids \(status.pid), \(token.pid)): connected, same token, no refresh"
                )
            },
            Step(title: "The token nears expiry and is refreshed silently, once") {
                let before = await provider.admin.counters()[.refreshes]
                try await Task.sleep(for: lifetime)
                async let first = session.validAccessToken()
                async let second = session.validAccessToken()
                async let third = session.validAccessToken()
                let tokens = try await [first, second, third]
                try check(Set(tokens).count == 1, "the callers got different tokens")
                let refreshes = await provider.admin.counters()[.refreshes] - before
                try check(refreshes == 1, "\(refreshes) refreshes for 3 callers")
                timeline.say("3 callers, 1 refresh; the rotated refresh token was stored before the token was used")
            },
            Step(title: "The API answers 401: one refresh, one retry") {
                await provider.admin.expireAccessTokens()
                let before = await provider.admin.counters()
                let api = AuthorizedClient(session: session, transport: workspace.transport, logger: workspace.logger)
                let (response, _) = try await api.send(HTTPRequest(method: .get, url: provider.url("/resource")))
                let after = await provider.admin.counters()
                let rejected =
                    after.responses(from: .resource, status: 401) - before.responses(from: .resource, status: 401)
                try check(response.status.code == 200, "GET /resource answered \(response.status.code)")
                try check(rejected == 1, "\(rejected) requests were rejected")
                try check(after[.refreshes] - before[.refreshes] == 1, "not exactly one refresh")
                timeline.say("GET /resource → 401 invalid_token → one refresh → retried once → 200")
            },
            Step(title: "The provider is down: offline, then recovery") {
                await provider.admin.failNext(3, requestsTo: .token, status: 503)
                try await Task.sleep(for: lifetime)
                do {
                    _ = try await session.validAccessToken()
                    throw Failure("the outage did not surface")
                } catch let error as SessionError where error == .offline {
                    timeline.say("3 attempts answered 503: callers get a typed offline error; the tokens are kept")
                }
                try check(await session.status.kind == .offline, "the status is not offline")
                let stored = try await workspace.store.read(ConnectionID(name))
                try check(stored?.tokens.refreshToken != nil, "the outage lost the refresh token")
                try await Task.sleep(for: .seconds(1))
                _ = try await session.validAccessToken()
                try check(await session.status.kind == .connected, "no recovery")
            },
            Step(title: "The grant is revoked at the provider: needs sign-in, with the account hint") {
                _ = await provider.admin.revokeAllGrants()
                do {
                    _ = try await session.forceRefresh()
                    throw Failure("the revoked grant still refreshed")
                } catch let error as SessionError where error == .needsSignIn {
                    try check(error.accountHint == account, "no account hint")
                }
                let stored = try await workspace.store.read(ConnectionID(name))
                try check(stored?.tokens.refreshToken == nil, "the revoked tokens were kept")
                let token = try await cli(["token", name], expecting: ExitStatus.needsSignIn.rawValue)
                timeline.say(
                    "`tether token` in a new process exits \(token.status): \(token.stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
                )
            },
            Step(title: "Sign in again with the hint") {
                guard case .needsSignIn(_, let hint?) = await session.status else { throw Failure("no account hint") }
                let result = try await client.signIn(using: presenter(), loginHint: hint.displayIdentifier)
                try await session.signIn(account: try result.account.required("the account"), tokens: result.tokens)
                try check(await session.status.kind == .connected, "not connected after signing in again")
                timeline.say(
                    "signed in again as \(hint.maskedDisplayIdentifier ?? "the same account") (login_hint sent)"
                )
            },
            Step(title: "Sign out everywhere") {
                let before = await provider.admin.counters()[.revocations]
                try await session.signOut()
                try await session.signOut()
                try check(try await workspace.store.list().isEmpty, "the vault still holds a record")
                let revocations = await provider.admin.counters()[.revocations] - before
                try check(revocations >= 1, "nothing was revoked at the provider")
                let status = try await cli(["status", name, "--json"], expecting: 0)
                try check(status.stdout.contains("\"not-connected\""), "a new process sees \(status.stdout)")
                try check(await provider.admin.counters()[.reuseDetections] == 0, "a refresh token was used twice")
                timeline.say("revoked at the provider, the record deleted; a new process sees not-connected")
            },
        ]
    }

    /// A "browser" that signs in as ada (or another user) at the provider's page and follows the redirect to the
    /// loopback listener.
    func presenter(username: String = "ada", password: String = "lovelace") -> LoopbackPresenter {
        let transport = workspace.transport
        let agent = DevProvider.SignInAgent(username: username, password: password) { request, body in
            try await transport.send(request, body: body)
        }
        let timeline = timeline
        let browser = BrowserLauncher { url in
            Task {
                do {
                    let callback = try await agent.authorize(url)
                    _ = try await transport.send(HTTPRequest(method: .get, url: callback), body: nil)
                } catch {
                    timeline.say("the sign-in page failed: \(error)")
                }
            }
        }
        return LoopbackPresenter(
            configuration: LoopbackPresenter.Configuration(timeout: .seconds(30), browser: browser),
            logger: workspace.logger
        )
    }

    struct Output: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String
        let pid: Int32
    }

    /// Runs this `tether` executable in a new process with the demo's `TETHER_HOME`.
    func cli(_ arguments: [String], expecting expected: Int32) async throws -> Output {
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        process.environment = environment
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        let finished = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in finished.continuation.finish() }
        try process.run()
        let pid = process.processIdentifier
        async let out = Self.readToEnd(stdout)
        async let err = Self.readToEnd(stderr)
        for await _ in finished.stream {}
        let output = Output(
            status: process.terminationStatus,
            stdout: String(decoding: await out, as: UTF8.self),
            stderr: String(decoding: await err, as: UTF8.self),
            pid: pid
        )
        try check(
            output.status == expected,
            "`tether \(arguments.joined(separator: " "))` exited \(output.status), not \(expected): \(output.stderr)"
        )
        return output
    }
}

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DemoRun {
    /// Reads a pipe to its end on a thread of its own: a blocking read on the concurrency pool's few threads
    /// would starve the provider, which answers the child process from this one.
    static func readToEnd(_ pipe: Pipe) async -> Data {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: pipe.fileHandleForReading.readDataToEndOfFile()) }
        }
    }
}

/// A step that did not behave as expected.
struct DemoFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Optional {
    fileprivate func required(_ what: String) throws -> Wrapped {
        guard let self else { throw DemoFailure("missing \(what)") }
        return self
    }
}
