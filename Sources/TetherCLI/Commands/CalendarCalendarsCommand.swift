import ArgumentParser
import Foundation
import Tether
import TetherCalendar
import TetherCommandSupport

/// `tether calendar calendars`: every calendar of every calendar source (or of one), and which of them are read.
struct CalendarCalendarsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendars",
        abstract: "List the calendars of every calendar source, or of one, and which of them are read.",
        discussion: """
            Asks each source's provider for its calendar list (Google's calendarList, Graph's /me/calendars; \
            tokens are refreshed as needed) and shows every calendar: its name, identifier, whether it is the \
            account's primary (Google) or default (Graph) calendar, whether it is read, the access the provider \
            names (Google's accessRole: owner, writer, reader, freeBusyReader; Graph's canEdit) and its colour.

            Which calendars are read is chosen with `tether calendar select`. By default: for Google, the \
            primary calendar and those shown in Google Calendar (the list's `selected`); for Microsoft, the \
            default calendar. A chosen calendar the list no longer has is shown as gone, by the last name the \
            cache knows.

            --json prints an array with one object per calendar, and nothing else on standard output: source, \
            id, name, primary, read, listed (false for a chosen calendar that is gone), accessRole (or null), \
            canEdit (or null), color ("#rrggbb", or null) and timeZone (the calendar's IANA zone as Google names \
            it, or null; Graph names none).

            Exits 0 when every source answered, 3 when one needs sign-in, 4 when one could not be reached; the \
            calendars of the others are printed in every case.

            EXAMPLES
              tether calendar calendars
              tether calendar calendars work --json | jq -r '.[] | select(.read) | .name'
            """
    )

    @Argument(help: "The calendar source; default: every one.")
    var source: String?

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @OptionGroup var global: GlobalOptions

    /// One calendar as the command prints it. Names and colours come from the provider.
    struct Row: Encodable {
        var source: String
        var calendar: CalendarInfo
        var read: Bool
        var listed: Bool

        enum CodingKeys: String, CodingKey {
            case source, id, name, primary, read, listed, accessRole, canEdit, color, timeZone
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(source, forKey: .source)
            try container.encode(calendar.id, forKey: .id)
            try container.encode(calendar.name, forKey: .name)
            try container.encode(calendar.isPrimary, forKey: .primary)
            try container.encode(read, forKey: .read)
            try container.encode(listed, forKey: .listed)
            try container.encode(calendar.accessRole, forKey: .accessRole)
            try container.encode(calendar.canEdit, forKey: .canEdit)
            try container.encode(calendar.color, forKey: .color)
            try container.encode(calendar.timeZone, forKey: .timeZone)
        }

        /// The access for people: the provider's role, else whether events can be changed.
        var access: String {
            if let role = calendar.accessRole { return role }
            return calendar.canEdit.map { $0 ? "can edit" : "read only" } ?? "—"
        }

        func cells(style: Style) -> [Format.Cell] {
            let readCell =
                listed ? Format.Cell(read ? "yes" : "no") : Format.Cell("gone", style: { style.yellow($0) })
            let primary = calendar.isPrimary ? "yes" : ""
            return [
                Format.Cell(source), Format.Cell(calendar.name), Format.Cell(calendar.id), Format.Cell(primary),
                readCell, Format.Cell(access), Format.Cell(calendar.color ?? "—"),
            ]
        }
    }

    func run() async throws {
        let workspace = try Workspace(global, createsHome: false)
        let sources = try CalendarSources(workspace: workspace)
        try sources.requireAny()
        let profiles = try source.map { [try sources.profile(named: $0)] } ?? sources.profiles
        let cache = sources.cache()
        var rows: [Row] = []
        var failures: [CLIFailure] = []
        for profile in profiles {
            let session: Session
            switch await sources.open(profile) {
            case .failure(let failure):
                failures.append(failure)
                continue
            case .success(let opened):
                session = opened
            }
            let available: [CalendarInfo]
            do {
                available = try await sources.source(profile, session: session).calendars()
            } catch {
                failures.append(CalendarSources.failure(error, source: profile.name))
                continue
            }
            let selection = profile.calendar?.selection ?? .default
            let read = Set(selection.chosen(from: available).map(\.id))
            rows += available.map { Row(source: profile.name, calendar: $0, read: read.contains($0.id), listed: true) }
            // Chosen calendars the list no longer has, by the last name the cache knows.
            let listed = Set(available.map(\.id))
            let cached = try? cache?.load(CalendarSourceID(profile.name))?.state
            for id in (selection.calendarIDs ?? []).subtracting(listed).sorted() {
                let info = cached?.calendars[id]?.info ?? CalendarInfo(id: id, name: id)
                rows.append(Row(source: profile.name, calendar: info, read: false, listed: false))
            }
        }
        if json {
            workspace.terminal.out(try CalendarOutput.encoder().encode(rows))
            workspace.terminal.out("")
        } else if !rows.isEmpty {
            let style = Style(enabled: workspace.terminal.colors(onStandardError: false))
            let header = ["SOURCE", "CALENDAR", "ID", "PRIMARY", "READ", "ACCESS", "COLOR"]
            var table = [Format.cells(header, style: style.bold)]
            table += rows.map { $0.cells(style: style) }
            for line in Format.table(table) { workspace.terminal.out(line) }
        }
        let style = Style(enabled: workspace.terminal.colors(onStandardError: true))
        for failure in failures {
            workspace.terminal.err("\(style.yellow("tether:")) \(UntrustedText.forTerminal(failure.description)).")
        }
        let order: [ExitStatus] = [.needsSignIn, .configuration, .failure, .unavailable]
        if let worst = order.first(where: { status in failures.contains { $0.status == status } }) {
            throw ExitCode(worst.rawValue)
        }
    }
}

extension CalendarSources {
    /// What a failed calendar request means for the exit status, naming the source.
    static func failure(_ error: any Error, source: String) -> CLIFailure {
        guard let error = error as? CalendarError else { return CLIFailure.from(error, connection: source) }
        let text = error.message.hasSuffix(".") ? String(error.message.dropLast()) : error.message
        let message = "'\(source)': \(text)"
        switch error {
        case .needsSignIn: return CLIFailure(.needsSignIn, message, fix: "Run `tether login \(source)`")
        case .misconfigured: return CLIFailure(.configuration, message)
        case _ where error.isTransient: return CLIFailure(.unavailable, message, fix: "Try again later")
        default: return CLIFailure(.failure, message)
        }
    }
}
