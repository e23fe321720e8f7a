import Foundation
package import Tether
import TetherCalendar

/// `tether calendar sync`: refreshes the sign-ins of calendar sources that end soon, syncs their events into the
/// cache, prints a line per source and when the next run is due. `tether-cli` and `tether-calendar` both run it.
package struct CalendarSyncRun: Sendable, Equatable {
    /// The defaults of `--budget`, `--lead` and `--days`, for both commands that parse them.
    package static let defaultBudget = 120
    package static let defaultLead = 30
    package static let defaultDays = 14

    /// How long refreshing may take, in seconds (`--budget`).
    package var budget: Int
    /// Refresh a token that ends within this many minutes (`--lead`).
    package var lead: Int
    /// How many days from today to sync (`--days`).
    package var days: Int
    /// JSON instead of a table (`--json`).
    package var json: Bool

    package init(budget: Int = defaultBudget, lead: Int = defaultLead, days: Int = defaultDays, json: Bool = false) {
        self.budget = budget
        self.lead = lead
        self.days = days
        self.json = json
    }

    /// The problem with the options, in the words `tether-cli` prints them; `nil` when they are in range.
    package var problem: String? {
        guard (1...3600).contains(budget) else { return "--budget must be 1 to 3600 seconds" }
        guard (0...1440).contains(lead) else { return "--lead must be 0 to 1440 minutes" }
        guard (1...366).contains(days) else { return "--days must be 1 to 366" }
        return nil
    }

    /// Runs the sync and prints its result.
    /// - Returns: 0 when every source is fresh and synced, 3 when one needs sign-in, 4 when one was offline or not
    ///   reached in time (or 5 or 1 for a configuration or another failure).
    /// - Throws: ``CLIFailure`` when no connection is a calendar source, or the profiles do not read.
    package func run(in workspace: any CommandWorkspace) async throws -> ExitStatus {
        let sources = try CalendarSources(workspace: workspace)
        try sources.requireAny()
        var sessions: [Session] = []
        var opened: [String: Result<Session, CLIFailure>] = [:]
        for profile in sources.profiles {
            let result = await sources.open(profile)
            opened[profile.name] = result
            if case .success(let session) = result { sessions.append(session) }
        }
        let refresh = BackgroundRefresh(
            sessions: sessions,
            configuration: BackgroundRefresh.Configuration(lead: .seconds(lead * 60), reserve: .zero),
            logger: workspace.logger
        )
        let report = await refresh.run(budget: .seconds(budget))
        let start = CalendarDay(Date(), in: .current).start(in: .current)
        // The sessions the refresh used sync the calendars: their records are read once. The events are counted,
        // not listed.
        let fetch = await sources.fetch(
            window: DateInterval(start: start, duration: Double(days) * 86_400),
            opened: opened,
            listing: false
        )

        let lines = fetch.rows.map { row in
            SyncLine(
                name: row.name,
                token: Self.word(report.outcomes[ConnectionID(row.name)]),
                calendar: row.state,
                events: row.events
            )
        }
        if json {
            let document = SyncDocument(connections: lines, nextRun: Format.iso8601(report.nextRun) ?? "")
            workspace.terminal.out(try CalendarSourceRow.encoder().encode(document))
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
        return order.first { $0 == tokenStatus || $0 == fetch.status } ?? .success
    }

    /// An outcome as one word of the table and the JSON.
    package static func word(_ outcome: BackgroundRefresh.Outcome?) -> String {
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
