import ArgumentParser
import Foundation
import Tether
import TetherCalendar
import TetherCommandSupport

/// `tether calendar select`: choose the calendars a calendar source reads.
struct CalendarSelectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "select",
        abstract: "Choose the calendars a calendar source reads: every one, the default ones, or those named.",
        discussion: """
            The choice is kept with the source's settings in connections.json and holds for `tether calendar \
            events`, `flights`, `sync` and `sources` until it is changed.

            --all reads every calendar of the account, including calendars added or shared with it later. \
            --default returns to what the provider shows: for Google, the primary calendar and those shown in \
            Google Calendar (the calendar list's `selected`); for Microsoft, the default calendar. Otherwise \
            name the calendars by identifier, as `tether calendar calendars SOURCE` lists them; they are \
            checked against the provider's list first, and nothing is changed when one is not on it.

            A chosen calendar that is later deleted, unsubscribed or no longer shared is named on standard \
            error by `events` and `flights`, and its source shows calendars-unavailable in `tether calendar \
            sources`, while its other calendars keep loading; choosing again ends it.

            --json prints one object instead of the sentence: source, calendars ("default", "all", or the \
            identifiers chosen, as `tether calendar sources --json` writes them) and chosen (each calendar named, \
            {id, name}; empty for --all and --default).

            EXAMPLES
              tether calendar select work --all
              tether calendar select personal --default
              tether calendar select work AAMkAGI2… AAMkAGI3…
            """
    )

    @Argument(help: "The calendar source.")
    var source: String

    @Argument(help: ArgumentHelp("Calendar identifiers, as `tether calendar calendars` lists them.", valueName: "id"))
    var calendars: [String] = []

    @Flag(help: "Read every calendar, including those that appear later.")
    var all = false

    @Flag(name: .customLong("default"), help: "Read the provider's default calendars.")
    var useDefault = false

    @Flag(help: "Print the choice as JSON instead of a sentence.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        let choices = [all, useDefault, !calendars.isEmpty].filter { $0 }.count
        guard choices == 1 else {
            throw ValidationError("Give --all, --default, or calendar identifiers (one of them)")
        }
    }

    func run() async throws {
        let workspace = try Workspace(global, createsHome: false)
        let sources = try CalendarSources(workspace: workspace)
        var profile = try sources.profile(named: source)
        let selection: CalendarSelection
        var chosen: [CalendarInfo] = []
        if all {
            selection = .all
        } else if useDefault {
            selection = .default
        } else {
            chosen = try await listed(profile, sources: sources)
            selection = .calendars(Set(chosen.map(\.id)))
        }
        profile.calendar?.calendars = selection.isDefault ? nil : selection
        try workspace.profiles.save(profile)
        // The cache keeps a copy of the choice, and drops the events of calendars no longer read.
        let connections = CalendarConnections(sources: [], cache: sources.cache(), logger: workspace.logger)
        try? await connections.select(selection, for: CalendarSourceID(source))
        // What the last fetch said about calendars gone no longer holds for a new choice.
        if sources.statusFile.load()[source]?.state == CalendarSourceRow.calendarsUnavailable {
            sources.statusFile.update { $0[source] = nil }
        }
        if json {
            let named = chosen.map { Chosen(id: $0.id, name: $0.name) }
            workspace.terminal.out(
                try CalendarOutput.encoder().encode(Choice(source: source, calendars: selection, chosen: named))
            )
            workspace.terminal.out("")
            return
        }
        let isMicrosoft = profile.calendar?.api == .microsoft
        workspace.terminal.out(
            Self.sentence(source: source, selection: selection, names: chosen.map(\.name), isMicrosoft: isMicrosoft)
        )
    }

    /// The choice as --json prints it.
    struct Choice: Encodable {
        let source: String
        let calendars: CalendarSelection
        let chosen: [Chosen]
    }

    /// A calendar named, as the provider lists it.
    struct Chosen: Encodable {
        let id: String
        let name: String
    }

    /// The calendars named, as the provider lists them.
    /// - Throws: ``CLIFailure``: usage when an identifier is not on the list (nothing is changed); the source's
    ///   failure when the list could not be read.
    private func listed(_ profile: Profile, sources: CalendarSources) async throws -> [CalendarInfo] {
        let session: Session
        switch await sources.open(profile) {
        case .failure(let failure): throw failure
        case .success(let opened): session = opened
        }
        let available: [CalendarInfo]
        do {
            available = try await sources.source(profile, session: session).calendars()
        } catch {
            throw CalendarSources.failure(error, source: source)
        }
        var chosen: [CalendarInfo] = []
        for identifier in calendars where !chosen.contains(where: { $0.id == identifier }) {
            if let calendar = available.first(where: { $0.id == identifier }) {
                chosen.append(calendar)
                continue
            }
            let byName = available.first { $0.name == identifier }
            throw CLIFailure(
                .usage,
                "'\(source)' has no calendar with the identifier '\(identifier)'; nothing was changed",
                fix: byName.map { "'\($0.name)' is a name; its identifier is \($0.id)" }
                    ?? "`tether calendar calendars \(source)` lists the identifiers"
            )
        }
        return chosen
    }

    /// What the source reads now, in one sentence.
    static func sentence(
        source: String,
        selection: CalendarSelection,
        names: [String],
        isMicrosoft: Bool
    )
        -> String
    {
        if selection.includesEveryCalendar {
            return "'\(source)' now reads every calendar, including calendars added later."
        }
        if selection.isDefault {
            let what =
                isMicrosoft
                ? "the default calendar"
                : "the primary calendar and those shown in Google Calendar"
            return "'\(source)' now reads its default calendars: \(what)."
        }
        let list = names.map { "'\(UntrustedText.forTerminal($0))'" }.joined(separator: ", ")
        return "'\(source)' now reads \(names.count == 1 ? "1 calendar" : "\(names.count) calendars"): \(list)."
    }
}
