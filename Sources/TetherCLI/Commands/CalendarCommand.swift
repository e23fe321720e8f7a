import ArgumentParser
import TetherCommandSupport

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

            Each source reads its default calendars — for Google the primary calendar and those shown in Google \
            Calendar, for Microsoft the default calendar — until `tether calendar select` chooses every calendar \
            (--all, including those added later) or some by identifier; `tether calendar calendars` lists them \
            all and says which are read.

            EXAMPLES
              tether calendar sources
              tether calendar calendars
              tether calendar select work --all
              tether calendar events --from 2026-11-23 --to 2026-11-30
              tether calendar flights --json
            """,
        subcommands: [
            CalendarSourcesCommand.self, CalendarEventsCommand.self, FlightsCommand.self, CalendarSyncCommand.self,
            CalendarCalendarsCommand.self, CalendarSelectCommand.self, CalendarTripsCommand.self,
        ]
    )
}
