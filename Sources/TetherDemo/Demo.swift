import Foundation
import Logging
import Tether
import TetherTesting

/// Walks one connection through its whole life against an in-process token issuer and an encrypted vault in a
/// temporary folder, printing a timeline of status changes. Exits 0 when every step behaved as expected.
@main
struct Demo {
    static func main() async {
        let options = Options(CommandLine.arguments.dropFirst())
        if options.help {
            print(Options.usage)
            return
        }
        let demo: Demo
        do {
            demo = try Demo(options: options)
        } catch {
            FileHandle.standardError.write(Data("tether-demo: could not set up the vault: \(error)\n".utf8))
            exit(1)
        }
        let passed = await demo.run()
        demo.cleanUp()
        exit(passed ? 0 : 1)
    }

    let options: Options
    let directory: URL
    let store: VaultStore
    let issuer: TestIssuer
    let account = Account(providerID: "demo", subject: "user-42", displayIdentifier: "ada@example.com")
    let timeline = Timeline()

    init(options: Options) throws {
        self.options = options
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tether-demo-\(UUID().uuidString)")
        var environment = ProcessInfo.processInfo.environment
        environment["TETHER_VAULT_KEY"] = nil
        store = try VaultStore(directory: directory, environment: environment, logger: options.logger)
        issuer = TestIssuer(lifetime: options.lifetime)
    }

    func makeSession() -> Session {
        Session(
            id: "demo",
            store: store,
            refresher: issuer,
            revoker: issuer,
            configuration: Session.Configuration(
                restoreBudget: .seconds(2),
                retry: Session.RetryPolicy(initialDelay: .milliseconds(200), jitter: 0.1)
            ),
            logger: options.logger
        )
    }

    func run() async -> Bool {
        timeline.say("Vault: \(directory.path) (encrypted, AES-GCM; removed at the end)")
        timeline.say("Issuer: in-process, access tokens live \(options.lifetime), refresh tokens rotate")
        var passed = true
        for step in steps() {
            timeline.step(step.title)
            do {
                try await step.run()
                // Let the status watchers print before the next step's header.
                try await Task.sleep(for: .milliseconds(30))
            } catch {
                timeline.fail(step.title, "\(error)")
                passed = false
                break
            }
        }
        if passed {
            let counters = (try? issuer.counters()) ?? TestIssuer.Counters()
            timeline.say(
                "Issuer saw \(counters.signIns) sign-ins, \(counters.refreshes) refreshes, "
                    + "\(counters.reuseDetections) reused refresh tokens, \(counters.revocations) revocations"
            )
            timeline.say("All steps behaved as expected.")
        }
        return passed
    }

    struct Step {
        let title: String
        let run: () async throws -> Void
    }

    func steps() -> [Step] {
        let firstLaunch = makeSession()
        let secondLaunch = makeSession()
        return [
            Step(title: "Sign in") {
                let watcher = await timeline.watch(firstLaunch, label: "launch 1")
                try await firstLaunch.signIn(
                    account: account,
                    tokens: try issuer.signInTokens(subject: account.subject)
                )
                try await expect(firstLaunch, is: .connected, watcher)
            },
            Step(title: "A fresh launch restores the session without signing in") {
                let watcher = await timeline.watch(secondLaunch, label: "launch 2")
                let status = await secondLaunch.restore()
                try check(status.kind == .connected, "restore gave \(status)")
                try check(try issuer.counters().refreshes == 0, "restore refreshed a valid token")
                _ = watcher
            },
            Step(title: "The token nears expiry and is refreshed silently, once") {
                try await Task.sleep(for: options.lifetime)
                async let a = secondLaunch.validAccessToken()
                async let b = secondLaunch.validAccessToken()
                async let c = secondLaunch.validAccessToken()
                let tokens = try await [a, b, c]
                try check(Set(tokens).count == 1, "callers got different tokens")
                try check(try issuer.counters().refreshes == 1, "expected exactly one refresh")
                try check(try issuer.accepts(tokens[0]), "the provider rejects the refreshed token")
                timeline.say("3 callers, 1 refresh; the rotated refresh token was stored before use")
            },
            Step(title: "A resource server answers 401: one forced refresh, one retry") {
                let rejected = try await secondLaunch.validAccessToken()
                let retried = try await secondLaunch.forceRefresh(rejecting: rejected)
                try check(retried != rejected, "forced refresh returned the rejected token")
                try check(try issuer.accepts(retried), "the retried token is not accepted")
                timeline.say("the retry carried a new token")
            },
            Step(title: "The provider is down: offline, then recovery") {
                issuer.failNextRefreshes(with: Array(repeating: .transient("HTTP 503 from the provider"), count: 3))
                try await Task.sleep(for: options.lifetime)
                do {
                    _ = try await secondLaunch.validAccessToken()
                    try check(false, "expected the outage to surface")
                } catch let error as SessionError where error == .offline {
                    timeline.say("callers see a typed offline error; tokens kept")
                }
                try check(await secondLaunch.status.kind == .offline, "status is not offline")
                try check(try await store.read("demo")?.tokens.refreshToken != nil, "the outage lost the grant")
                try await Task.sleep(for: .seconds(1))
                _ = try await secondLaunch.validAccessToken()
                try check(await secondLaunch.status.kind == .connected, "no recovery")
            },
            Step(title: "The grant is revoked at the provider: needs sign-in, with the account hint") {
                try issuer.revokeAllGrants()
                _ = try await secondLaunch.forceRefresh()
            }.expectingNeedsSignIn(session: secondLaunch, account: account),
            Step(title: "Sign in again with the hint") {
                guard case .needsSignIn(_, let hint?) = await secondLaunch.status else {
                    throw DemoFailure("no account hint")
                }
                timeline.say("signing in again as \(hint)")
                try await secondLaunch.signIn(account: hint, tokens: try issuer.signInTokens(subject: hint.subject))
                try check(await secondLaunch.status.kind == .connected, "not connected after signing in again")
            },
            Step(title: "Sign out everywhere") {
                try await secondLaunch.signOut()
                try await secondLaunch.signOut()
                try check(try await store.list().isEmpty, "the vault still holds a record")
                try check(await secondLaunch.status == .notConnected, "status is not notConnected")
                try check(try issuer.counters().revocations == 1, "the tokens were not revoked once")
                let third = makeSession()
                try check(await third.restore() == .notConnected, "a new launch still finds a session")
                try check(try issuer.counters().reuseDetections == 0, "a refresh token was used twice")
            },
        ]
    }

    func expect(_ session: Session, is kind: ConnectionStatus.Kind, _ watcher: Task<Void, Never>) async throws {
        let status = await session.status
        try check(status.kind == kind, "status is \(status), expected \(kind)")
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: directory)
    }
}

extension Demo.Step {
    /// The step must end in ``SessionError/needsSignIn`` with the account as hint.
    func expectingNeedsSignIn(session: Session, account: Account) -> Demo.Step {
        Demo.Step(title: title) {
            do {
                try await run()
                throw DemoFailure("expected needs sign-in")
            } catch let error as SessionError where error == .needsSignIn {
                try check(error.accountHint == account, "no account hint")
                let stored = try await session.connection()
                try check(stored?.tokens.refreshToken == nil, "revoked tokens were kept")
            }
        }
    }
}

struct DemoFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func check(_ condition: Bool, _ message: String) throws {
    guard condition else { throw DemoFailure(message) }
}

/// Prints the timeline: steps, status changes with their time, and notes.
final class Timeline: Sendable {
    private let start = ContinuousClock.now

    private var elapsed: String {
        let duration = ContinuousClock.now - start
        let millis = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return String(format: "%6.2fs", Double(millis) / 1000)
    }

    func step(_ title: String) { emit("\n\(elapsed)  ▶ \(title)") }
    func say(_ text: String) { emit("\(elapsed)      \(text)") }
    func fail(_ title: String, _ reason: String) { emit("\(elapsed)  ✘ \(title): \(reason)") }

    /// Prints each status change of `session` until the program ends.
    func watch(_ session: Session, label: String) async -> Task<Void, Never> {
        let stream = await session.statusUpdates(bufferingPolicy: .unbounded)
        return Task {
            for await status in stream { self.emit("\(self.elapsed)      [\(label)] \(Self.render(status))") }
        }
    }

    /// A status as a settings row would show it.
    static func render(_ status: ConnectionStatus) -> String {
        func seconds(until date: Date) -> String { String(format: "%.1fs", max(0, date.timeIntervalSinceNow)) }
        switch status {
        case .connected(let account, let until):
            return "connected as \(account.maskedDisplayIdentifier ?? account.providerID)"
                + (until.map { ", token valid for \(seconds(until: $0))" } ?? "")
        case .offline(_, let next, let error):
            return "offline (\(error.message))" + (next.map { ", next attempt in \(seconds(until: $0))" } ?? "")
        case .needsSignIn(let reason, let hint):
            return "needs sign-in: \(reason.message)"
                + (hint.map { " (hint: \($0.maskedDisplayIdentifier ?? ""))" } ?? "")
        default:
            return "\(status)"
        }
    }

    private func emit(_ line: String) {
        print(line)
        fflush(nil)
    }
}

struct Options {
    var help = false
    var verbose = false
    var lifetime = Duration.seconds(2)

    static let usage = """
        USAGE: tether-demo [--verbose] [--lifetime SECONDS]

        Walks one connection through sign-in, restore at a new launch, silent refresh, a forced refresh after a
        401, a provider outage, a revoked grant, signing in again and signing out, against an in-process token
        issuer and an encrypted vault in a temporary folder. Exits 0 when every step behaved as expected.

        OPTIONS:
          --lifetime SECONDS   Access token lifetime (default 2).
          --verbose            Debug logs (secrets are always redacted).
        """

    init(_ arguments: ArraySlice<String>) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "-h", "--help": help = true
            case "-v", "--verbose": verbose = true
            case "--lifetime":
                if let value = iterator.next().flatMap(Double.init), value > 0 {
                    lifetime = .milliseconds(Int(value * 1000))
                }
            default: help = true
            }
        }
    }

    var logger: Logger {
        var logger = Logger(label: "tether-demo")
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }
}
