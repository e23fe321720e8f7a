import ArgumentParser
import Dispatch
import Foundation
import Tether
import TetherCommandSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print each connection's status changes as they happen, whichever process caused them.",
        discussion: """
            Computes every connection's status as `tether status` does, then again whenever the vault's records, \
            connections.json or status.json change (inotify on Linux; once a second elsewhere, and with \
            TETHER_STORE=postgresql://…), and once an hour, and prints one line per change until interrupted \
            (Ctrl-C, SIGTERM). A change is a new state, a new last error, a grant that came to end within 14 days \
            (expiresSoon) or no longer does, or a connection that appeared or went away (state `removed`). \
            Nothing is sent to a provider.

            --json prints one object per line with the keys of a `tether status --json` row, plus previous (the \
            state before, or null for a connection that appeared) and at (ISO 8601).

            --exec CMD runs `/bin/sh -c CMD` for each change, with TETHER_CONNECTION, TETHER_STATUS, \
            TETHER_PREVIOUS_STATUS, TETHER_PROVIDER, TETHER_ACCOUNT (masked), TETHER_MESSAGE, TETHER_EXPIRES_AT, \
            TETHER_GRANT_ENDS_AT, TETHER_GRANT_ENDS_SOON (1 or empty) and TETHER_AT in its environment, and without any other TETHER_* variable: no token, key or secret reaches \
            it. One run at a time: changes that arrive meanwhile wait, a connection's waiting changes become one, \
            and a run longer than --exec-timeout is stopped (SIGTERM, then SIGKILL). Its standard output \
            goes to standard error. Text from providers in these variables has its control characters removed.

            A line on standard error says when the watch has started.

            EXAMPLES
              tether watch
              tether watch --json | jq -c 'select(.state == "needs-sign-in")'
              tether watch --exec \\
                'notify-send "tether: $TETHER_CONNECTION" "$TETHER_STATUS $TETHER_MESSAGE"'
            """
    )

    @Argument(help: "Only this connection.")
    var connection: String?

    @Flag(help: "Print one JSON object per line.")
    var json = false

    @Option(name: .customLong("exec"), help: "A shell command to run for each change.")
    var command: String?

    @Option(
        help: ArgumentHelp(
            "How long an --exec run may take: 30s, 2m (a bare number is seconds).",
            valueName: "duration"
        )
    )
    var execTimeout = DurationArgument(seconds: 30)

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard execTimeout.seconds > 0 else { throw ValidationError("--exec-timeout must be at least 1 second") }
    }

    func run() async throws {
        let workspace = try Workspace(global, createsHome: false)
        let exec = command.map {
            WatchExec(command: $0, timeout: execTimeout.duration, environment: workspace.environment)
        }
        let home = workspace.vault.directory.path
        let files = WatchFiles(folders: [home, home + "/records"])
        let stop = Self.handleSignals(exec: exec)
        defer { withExtendedLifetime(stop) {} }

        var known = Dictionary(
            try await Self.rows(workspace, only: connection).map { ($0.name, $0) }
        ) { first, _ in first }
        let polled: Bool
        if case .postgres = workspace.location { polled = true } else { polled = false }
        let store = workspace.location.displayName(home: workspace.home)
        if let connection, known.isEmpty {
            // A mistyped name would otherwise be watched, silently, forever.
            let names = (try? workspace.profiles.names()) ?? []
            let list = names.joined(separator: ", ")
            let others = names.isEmpty ? "there are no connections yet" : "the connections are \(list)"
            workspace.terminal.err(
                UntrustedText.forTerminal(
                    "No connection is named '\(connection)' (\(others)); watching for one to appear."
                )
            )
        }
        workspace.terminal.err("Watching \(known.count) connection(s) in \(store). Ctrl-C ends.")

        // Files say when a process changed something; time alone brings a grant's end closer, so the watch also
        // looks once an hour.
        let ticks = polled ? Self.every(.seconds(1)) : Self.merged(files.changes, Self.every(.seconds(3600)))
        for await _ in ticks {
            // Changes come in bursts (a record and status.json): one look after the burst.
            try? await Task.sleep(for: .milliseconds(50))
            let now = Date()
            let rows: [StatusRow]
            do {
                rows = try await Self.rows(workspace, only: connection)
            } catch {
                continue
            }
            let changes = WatchChange.changes(from: known, to: rows, at: now)
            known = Dictionary(rows.map { ($0.name, $0) }) { first, _ in first }
            for change in changes {
                Self.print(change, json: json, terminal: workspace.terminal)
                await exec?.submit(change)
            }
        }
    }

    static func rows(_ workspace: Workspace, only connection: String?) async throws -> [StatusRow] {
        // A connection named but not there yet is watched for: no error.
        let only = connection
        let all = try await StatusCommand.rows(workspace: workspace, only: nil, check: false).rows
        return only.map { name in all.filter { $0.name == name } } ?? all
    }

    /// A wake-up every `interval`: every second for stores that cannot be watched, every hour beside the files.
    static func every(_ interval: Duration) -> AsyncStream<Void> {
        AsyncStream { continuation in
            let task = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    continuation.yield()
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The wake-ups of both streams, as they come; it ends when both have.
    static func merged(_ first: AsyncStream<Void>, _ second: AsyncStream<Void>) -> AsyncStream<Void> {
        AsyncStream { continuation in
            let task = Task {
                await withTaskGroup(of: Void.self) { group in
                    for stream in [first, second] {
                        group.addTask { for await _ in stream { continuation.yield() } }
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    static func print(_ change: WatchChange, json: Bool, terminal: Terminal) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(change) else { return }
            terminal.out(String(decoding: data, as: UTF8.self))
            return
        }
        let row = change.row
        let message = row.lastError ?? row.detail
        let parts = [
            Format.iso8601(change.at) ?? "",
            row.name,
            "\(change.previous ?? "new") → \(row.state)",
            row.account ?? "",
            message.map { String($0.prefix(200)) } ?? "",
        ]
        terminal.out(UntrustedText.forTerminal(parts.filter { !$0.isEmpty }.joined(separator: "  ")))
    }

    /// Ends the process on `SIGINT` or `SIGTERM` by that signal, after asking a running `--exec` command to stop.
    static func handleSignals(exec: WatchExec?) -> [any DispatchSourceSignal] {
        let queue = DispatchQueue(label: "tether.watch.signals")
        return [SIGINT, SIGTERM].map { signo in
            signal(signo, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signo, queue: queue)
            source.setEventHandler {
                Task {
                    await exec?.terminateRunning()
                    SignalDeferral.terminate(by: signo)
                }
            }
            source.resume()
            return source
        }
    }
}

/// One change `tether watch` reports: the connection's row now, the state before, and when it was seen.
struct WatchChange: Encodable, Sendable {
    var row: StatusRow
    var previous: String?
    var at: Date

    /// The changes between two looks: a new state or last error, a grant that came to end soon (or no longer
    /// does, after a sign-in), a connection that appeared (previous `nil`) or went away (state `removed`). Expiry
    /// and refresh times alone are not changes: every refresh moves them.
    static func changes(from before: [String: StatusRow], to rows: [StatusRow], at now: Date) -> [WatchChange] {
        var changes: [WatchChange] = []
        for row in rows {
            guard let old = before[row.name] else {
                changes.append(WatchChange(row: row, previous: nil, at: now))
                continue
            }
            let endsSoon = { (row: StatusRow) in row.grantEnd?.isSoon ?? false }
            if old.state != row.state || old.lastError != row.lastError || endsSoon(old) != endsSoon(row) {
                changes.append(WatchChange(row: row, previous: old.state, at: now))
            }
        }
        let names = Set(rows.map(\.name))
        for (name, old) in before.sorted(by: { $0.key < $1.key }) where !names.contains(name) {
            var gone = old
            gone.state = "removed"
            gone.expiresAt = nil
            gone.lastRefresh = nil
            changes.append(WatchChange(row: gone, previous: old.state, at: now))
        }
        return changes
    }

    enum CodingKeys: String, CodingKey {
        case previous, at
    }

    func encode(to encoder: any Encoder) throws {
        try row.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(previous, forKey: .previous)
        try container.encode(Format.iso8601(at), forKey: .at)
    }
}
