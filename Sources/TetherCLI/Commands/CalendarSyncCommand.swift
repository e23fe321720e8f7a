import ArgumentParser
import Foundation
import Tether
import TetherCalendar
import TetherCommandSupport

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
    var budget: Int = CalendarSyncRun.defaultBudget

    @Option(help: ArgumentHelp("Refresh a token that ends within this many minutes.", valueName: "minutes"))
    var lead: Int = CalendarSyncRun.defaultLead

    @Option(help: ArgumentHelp("How many days from today to sync.", valueName: "days"))
    var days: Int = CalendarSyncRun.defaultDays

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let problem = syncRun.problem { throw ValidationError(problem) }
    }

    /// The run these options ask for.
    private var syncRun: CalendarSyncRun { CalendarSyncRun(budget: budget, lead: lead, days: days, json: json) }

    func run() async throws {
        let status = try await syncRun.run(in: Workspace(global, createsHome: false))
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
