import ArgumentParser
import Foundation
import TetherCommandSupport

/// `tether calendar sources`: each calendar source and how its last fetch went, without network.
struct CalendarSourcesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sources",
        abstract: "Show every calendar source: API, account, state, last successful sync, stale or not, last error.",
        discussion: """
            Reads the vault, the calendar cache and how the last `tether calendar events` or `flights` went; \
            nothing is sent to a provider (as with `tether status`).

            States: connected, calendars-unavailable, refreshing, offline, needs-sign-in, not-connected, \
            storage-unavailable, access-denied, api-error, misconfigured. calendars-unavailable: the last fetch \
            loaded, but chosen calendars are gone (deleted, unsubscribed, no longer shared); the error names them. \
            A source is stale unless its last fetch loaded fresh events and its sign-in still stands. Accounts are \
            masked (j***@example.com). CALENDARS says which calendars are read: default, all, or how many were \
            chosen (`tether calendar select`; `tether calendar calendars` lists them).

            --json prints an array of objects with the keys name, api, state, account, lastSync (ISO 8601, or \
            null), stale, error (or null) and calendars ("default", "all", or an array of calendar \
            identifiers), and nothing else on standard output.

            EXAMPLES
              tether calendar sources
              tether calendar sources --json | jq -r '.[] | select(.stale) | .name'
            """
    )

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        // Reading creates nothing: a missing TETHER_HOME is no sources.
        let workspace = try Workspace(global, createsHome: false)
        let sources = try CalendarSources(workspace: workspace)
        // Without sources there is no cache to open (opening it would create its folder).
        let rows = sources.profiles.isEmpty ? [] : await sources.rows()
        if json {
            workspace.terminal.out(try CalendarOutput.encoder(includesAccount: true).encode(rows))
            workspace.terminal.out("")
        } else if rows.isEmpty {
            workspace.terminal.err(
                "No calendar sources. Sign in with `tether login PROVIDER --calendar google` (or microsoft)."
            )
        } else {
            let style = Style(enabled: workspace.terminal.colors(onStandardError: false))
            let header = ["NAME", "API", "ACCOUNT", "STATE", "LAST SYNC", "EVENTS", "CALENDARS", "LAST ERROR"]
            var table = [Format.cells(header, style: style.bold)]
            table += rows.map { $0.cells(style: style) }
            for line in Format.table(table) { workspace.terminal.out(line) }
        }
    }
}
