import ArgumentParser
import Foundation
import Tether
import TetherCalendar

/// `tether calendar sync`: what a timer runs to keep calendar sources signed in and their cache current.
struct CalendarSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Refresh the sign-ins of calendar sources that end soon and sync their events into the cache.",
        discussion: """
            For a timer (systemd, launchd, cron): the same run an app makes from its background refresh task. \
            Every calendar source whose access token ends within --lead is refreshed (the soonest first, one \
            refresh per connection however many processes ask), within --budget seconds; then every source is \
            synced for --days days from today into the offline cache that `tether calendar events` falls back \
            on. A source that needs sign-in or is offline is reported, never signed out.

            The last line says when the next run is due: the first expiry less the lead, between 15 minutes \
            and 4 hours away (sooner after a failure). A fixed timer every 15 minutes to an hour is fine: a run \
            with nothing due sends only the calendar sync.

            --json prints {"connections": [{"name", "token", "calendar", "events"}], "nextRun"} and nothing else \
            on standard output. token is fresh, refreshed, needs-sign-in, not-connected, failed or not-reached; \
            calendar is the source's state as in `tether calendar sources`.

            Exits 0 when every source is fresh and synced, 3 when one needs sign-in, 4 when one was offline or \
            not reached in time.

            A systemd user timer (~/.config/systemd/user/tether-calendar-sync.service and .timer):
              [Service]
              Type=oneshot
              ExecStart=%h/.local/bin/tether calendar sync
              [Timer]
              OnCalendar=*:0/30
              Persistent=true
              [Install]
              WantedBy=timers.target
            then `systemctl --user enable --now tether-calendar-sync.timer`.

            EXAMPLES
              tether calendar sync
              tether calendar sync --budget 60 --days 30 --json
            """
    )

    @Option(help: ArgumentHelp("How long refreshing may take, in seconds.", valueName: "seconds"))
    var budget: Int = 120

    @Option(help: ArgumentHelp("Refresh a token that ends within this many minutes.", valueName: "minutes"))
    var lead: Int = 30

    @Option(help: ArgumentHelp("How many days from today to sync.", valueName: "days"))
    var days: Int = 14

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (1...3600).contains(budget) else { throw ValidationError("--budget must be 1 to 3600 seconds") }
        guard (0...1440).contains(lead) else { throw ValidationError("--lead must be 0 to 1440 minutes") }
        guard (1...366).contains(days) else { throw ValidationError("--days must be 1 to 366") }
    }

    func run() async throws {
        let workspace = try Workspace(global, createsHome: false)
        let sources = try CalendarSources(workspace: workspace)
        try sources.requireAny()
        var sessions: [Session] = []
        for profile in sources.profiles {
            if case .success(let session) = await sources.open(profile) { sessions.append(session) }
        }
        let refresh = BackgroundRefresh(
            sessions: sessions,
            configuration: BackgroundRefresh.Configuration(lead: .seconds(lead * 60), reserve: .zero),
            logger: workspace.logger
        )
        let report = await refresh.run(budget: .seconds(budget))
        let start = CalendarDay(Date(), in: .current).start(in: .current)
        let fetch = await sources.fetch(window: DateInterval(start: start, duration: Double(days) * 86_400))

        var counts: [String: Int] = [:]
        for event in fetch.events { counts[event.source.rawValue, default: 0] += 1 }
        let lines = fetch.rows.map { row in
            SyncLine(
                name: row.name,
                token: Self.word(report.outcomes[ConnectionID(row.name)]),
                calendar: row.state,
                events: counts[row.name] ?? 0
            )
        }
        if json {
            let document = SyncDocument(connections: lines, nextRun: Format.iso8601(report.nextRun) ?? "")
            workspace.terminal.out(try CalendarOutput.encoder().encode(document))
            workspace.terminal.out("")
        } else {
            let style = Style(enabled: workspace.terminal.colors(onStandardError: false))
            var table = [Format.cells(["NAME", "TOKEN", "CALENDAR", "EVENTS"], style: style.bold)]
            table += lines.map { Format.cells([$0.name, $0.token, $0.calendar, "\($0.events)"]) }
            for line in Format.table(table) { workspace.terminal.out(line) }
            workspace.terminal.out(
                "Next run due \(Format.relative(report.nextRun)) (\(Format.iso8601(report.nextRun) ?? ""))."
            )
        }
        sources.reportProblems(fetch.rows)
        sources.reportSkipped(fetch.rows)
        let tokenStatus: ExitStatus =
            report.outcomes.values.contains { if case .needsSignIn = $0 { true } else { false } }
            ? .needsSignIn : report.succeeded ? .success : .unavailable
        let order: [ExitStatus] = [.needsSignIn, .configuration, .failure, .unavailable]
        let status = order.first { $0 == tokenStatus || $0 == fetch.status } ?? .success
        if status != .success { throw ExitCode(status.rawValue) }
    }

    /// An outcome as one word of the table and the JSON.
    static func word(_ outcome: BackgroundRefresh.Outcome?) -> String {
        switch outcome {
        case .fresh: "fresh"
        case .refreshed: "refreshed"
        case .notConnected: "not-connected"
        case .needsSignIn: "needs-sign-in"
        case .failed: "failed"
        case .notReached: "not-reached"
        case nil: "not-connected"
        }
    }
}

/// One source in `tether calendar sync`'s output. No token, ever.
private struct SyncLine: Encodable {
    var name: String
    var token: String
    var calendar: String
    var events: Int
}

private struct SyncDocument: Encodable {
    var connections: [SyncLine]
    /// ISO 8601, in UTC.
    var nextRun: String
}
