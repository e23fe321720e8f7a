import ArgumentParser

/// `tether calendar`: what the calendar connections hold.
struct CalendarCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "Calendar events and the flights among them.",
        discussion: """
            A connection becomes a calendar source with `tether login … --calendar google|microsoft` (implied for \
            the google and microsoft presets when a calendar scope is granted). Each source's last good events \
            are kept in an offline cache sealed with the vault key ($TETHER_HOME/calendar-cache), so a source that \
            cannot be read still shows them, marked stale.

            EXAMPLES
              tether calendar sources
              tether calendar events --from 2026-11-23 --to 2026-11-30
              tether calendar flights --json
            """,
        subcommands: [
            CalendarSourcesCommand.self, CalendarEventsCommand.self, FlightsCommand.self, CalendarSyncCommand.self,
            CalendarTripsCommand.self,
        ]
    )
}
