import ArgumentParser
import CoreFoundation
import Foundation
import Tether
import TetherCommandSupport
import TetherPostgres

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tether refresh-worker NAME --home PATH`: the detached process that ``DetachedRefresher`` starts. Not for
/// people; hidden from the help.
///
/// It finds the connection's refresh lease on descriptor 3 (the caller's `flock`-ed open file description), the
/// vault key on standard input with `--key-on-stdin`, refreshes once, stores the answer, prints one
/// ``WorkerOutcome`` line and exits. `SIGINT` and `SIGTERM` wait until it is done; it ends after
/// ``lifetime`` whatever happens.
struct RefreshWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh-worker",
        abstract: "Refresh a connection for another tether process (internal).",
        shouldDisplay: false
    )

    /// The longest a worker lives: one refresh request (the transport times out after 30 s) and a write.
    static let lifetime: UInt32 = 120

    /// How long a worker whose refreshed tokens the store refused goes on trying to store them, holding the lease so
    /// that nobody refreshes with the refresh token they replace (docs/decisions.md §36).
    static let unsavedLifetime: UInt32 = 600

    /// The descriptor the lease arrives on.
    static let leaseDescriptor: Int32 = 3

    @Argument(help: "The connection.")
    var connection: String

    @Option(help: "The vault folder.")
    var home: String

    @Flag(help: "Read the vault key from standard input.")
    var keyOnStdin = false

    @Option(help: "Adopt the PostgreSQL lease of this holder; read the store's variables from standard input.")
    var leaseHolder: String?

    @Option(help: "Seconds since 1970 when the caller's unanswered attempt with this refresh token was sent.")
    var answerMayDateFrom: Double?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        alarm(Self.lifetime)
        signal(SIGPIPE, SIG_IGN)
        // The whole run is one refresh: a signal waits for its end (the alarm still ends a hung worker).
        SignalDeferral.shared.install(bound: .seconds(Int64(Self.lifetime)))
        SignalDeferral.shared.enter()
        let outcome = await refresh()
        if let outcome { Self.answer(outcome) }
        SignalDeferral.shared.leave()
        if outcome?.outcome != WorkerOutcome.stored.outcome { throw ExitCode(ExitStatus.failure.rawValue) }
    }

    /// Prints the one line the caller reads.
    static func answer(_ outcome: WorkerOutcome) {
        if let line = try? JSONEncoder().encode(outcome) {
            // The caller may be gone (killed while the worker refreshed): the write then fails with EPIPE, which
            // must not crash the worker. A crash would keep the lease until the runtime's backtrace is written.
            try? FileHandle.standardOutput.write(contentsOf: line + Data("\n".utf8))
        }
    }

    /// The outcome to print, or `nil` when it was printed already (tokens the worker kept until it stored them).
    private func refresh() async -> WorkerOutcome? {
        let parent = getppid()
        var adopted: (any RefreshLease)?
        let outcome = await refresh(adopting: &adopted)
        // The caller releases the lease it took; when it is gone (killed meanwhile), the worker does, rather than
        // leave it to lapse.
        if let adopted, getppid() != parent { await adopted.release() }
        return outcome
    }

    private func refresh(adopting adopted: inout (any RefreshLease)?) async -> WorkerOutcome? {
        do {
            var environment = ProcessInfo.processInfo.environment
            environment["TETHER_HOME"] = home
            if keyOnStdin, let key = readLine(strippingNewline: true), !key.isEmpty {
                environment["TETHER_VAULT_KEY"] = key
            }
            if leaseHolder != nil {
                guard let line = readLine(strippingNewline: true),
                    let variables = try? JSONDecoder().decode([String: String].self, from: Data(line.utf8))
                else {
                    return WorkerOutcome(outcome: "transient", message: "The refresh worker was not given its store")
                }
                environment.merge(variables.filter { DetachedRefresher.storeVariables.contains($0.key) }) { $1 }
            }
            let workspace = try Workspace(global, environment: environment)
            let name = try Workspace.validatedName(connection)
            if let leaseHolder {
                guard let store = workspace.store as? PostgresStore,
                    let lease = try await store.adoptRefreshLease(for: ConnectionID(name), holder: leaseHolder)
                else {
                    return WorkerOutcome(
                        outcome: "transient",
                        message: "The refresh worker did not get the refresh lease"
                    )
                }
                adopted = lease
            } else if !Self.holdsLease(of: name, home: workspace.home) {
                return WorkerOutcome(outcome: "transient", message: "The refresh worker did not get the refresh lease")
            }
            let session = try await workspace.session(
                for: try workspace.profile(named: name),
                leaseHeldByParent: true
            )
            if let answerMayDateFrom {
                await session.assumeUnansweredRefresh(since: Date(timeIntervalSince1970: answerMayDateFrom))
            }
            _ = try await session.forceRefresh()
            // Tokens the store refused stay in memory; try the write again a few times before answering.
            for _ in 0..<3 {
                guard await session.holdsUnsavedTokens else { break }
                try await Task.sleep(for: .milliseconds(200))
                _ = await session.storeUnsavedTokens()
            }
            guard await session.holdsUnsavedTokens else { return .stored }
            await keepUnsavedTokens(of: session)
            return nil
        } catch let failure as CLIFailure {
            return WorkerOutcome(
                outcome: failure.status == .configuration ? "configuration" : "transient",
                message: failure.message
            )
        } catch {
            return WorkerOutcome.failure(error)
        }
    }

    /// Answers the caller at once (it exits with "storage unavailable" and prints no token), then goes on holding the
    /// lease and the refreshed tokens, trying to store them with a growing pause, until they are stored or
    /// ``unsavedLifetime`` ends. The refresh token they replace may be spent: while this worker holds the lease, no
    /// other process refreshes with it.
    private func keepUnsavedTokens(of session: Session) async {
        var problem = "the store refused them"
        var noSpace = false
        if case .storageUnavailable(let failure) = await session.status {
            problem = failure.message
            noSpace = failure.isOutOfSpace
        }
        Self.answer(
            WorkerOutcome(
                outcome: "unsaved",
                message: "The refreshed tokens could not be stored (\(problem)); a refresh worker keeps them and "
                    + "stores them as soon as it can, for up to \(Self.unsavedLifetime / 60) minutes",
                reason: noSpace ? WorkerOutcome.noSpace : nil
            )
        )
        // The caller reads to the end of the output: close it, so that it can go.
        let null = open("/dev/null", O_WRONLY)
        if null >= 0 {
            dup2(null, STDOUT_FILENO)
            close(null)
        }
        alarm(Self.unsavedLifetime)
        var pause: Duration = .milliseconds(500)
        while await session.holdsUnsavedTokens {
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(10))
            _ = await session.storeUnsavedTokens()
        }
    }

    /// Whether descriptor 3 is the connection's lease file, locked by this open file description.
    static func holdsLease(of name: String, home: URL) -> Bool {
        let path = home.path + "/locks/" + VaultStore.fileStem(for: ConnectionID(name)) + ".lease"
        var expected = stat()
        var inherited = stat()
        guard stat(path, &expected) == 0, fstat(leaseDescriptor, &inherited) == 0,
            expected.st_dev == inherited.st_dev, expected.st_ino == inherited.st_ino
        else { return false }
        // Locking again through the same open file description succeeds; another holder would make it fail.
        return flock(leaseDescriptor, LOCK_EX | LOCK_NB) == 0
    }
}

/// The vault seen by a refresh worker: the lease is the one it inherited, already held, and released by its exit.
struct InheritedLeaseStore: ForwardingStore {
    let base: any CredentialStore

    func acquireRefreshLease(for id: ConnectionID, timeout: Duration) async throws -> any RefreshLease {
        Held()
    }

    struct Held: RefreshLease {
        func release() async {}
    }
}
