import ArgumentParser
import Foundation
import TetherCommandSupport

/// `tether calendar events`: the events of every calendar source in a window.
struct CalendarEventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Show the events of every calendar source.",
        discussion: """
            Syncs every calendar source (tokens are refreshed as needed); a source that cannot be read is \
            served from the offline cache, marked stale, and named on standard error with the reason. Events a \
            source sends in a form that cannot be read (a field of the wrong type, a missing field) are left \
            out and counted on standard error, one line per source ("tether: 'work': 3 events skipped \
            (malformed)"); --verbose names the field of each, never its content.

            --json prints one object, and nothing else on standard output:
              {"sources": [{"name", "api", "state", "lastSync", "stale", "error"}],
               "events": [{"source", "calendar", "id", "title", "start", "end",
                           "allDay", "timeZone", "status", "location"}]}
            Instants are ISO 8601 in UTC; an all-day event's start and end are dates (the end not included); \
            missing values are null. `calendar` is the calendar's identifier within its source.

            Exits 0 when every source loaded, 4 when a source was served from the cache or failed for a \
            moment, 3 when a source needs sign-in (3 wins over 4); the events that loaded are printed in every \
            case.

            EXAMPLES
              tether calendar events
              tether calendar events --from 2026-11-23 --to 2026-11-24
              tether calendar events --json | jq -r '.events[].title'
            """
    )

    @OptionGroup var window: CalendarWindowOptions

    @Flag(help: "Print JSON instead of a table per day.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await CalendarSources.fetchAndShow(global, window: window) { fetch, interval, workspace in
            if json {
                let events = fetch.events.map(CalendarOutput.Event.init)
                let document = CalendarOutput.Events(sources: fetch.rows, events: events)
                workspace.terminal.out(try CalendarOutput.encoder().encode(document))
                workspace.terminal.out("")
            } else if fetch.events.isEmpty {
                workspace.terminal.out(
                    "No events from \(Format.iso8601(interval.start) ?? "") to \(Format.iso8601(interval.end) ?? "")."
                )
            } else {
                let style = Style(enabled: workspace.terminal.colors(onStandardError: false))
                let lines = CalendarOutput.days(
                    fetch.events,
                    rows: fetch.rows,
                    window: interval,
                    timeZone: .current,
                    style: style
                )
                for line in lines { workspace.terminal.out(line) }
            }
        }
    }
}
