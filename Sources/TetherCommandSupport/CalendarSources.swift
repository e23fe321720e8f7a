package import Foundation
import Logging
package import Tether
package import TetherCalendar

/// The calendar sources of the saved connections (those with a ``CalendarSetting``), opened the way
/// `tether status` opens connections: each from its profile and its vault record.
package struct CalendarSources: Sendable {
    package let workspace: any CommandWorkspace
    package let profiles: [Profile]
    package let statusFile: EntryFile<CalendarStatusEntry>

    package init(workspace: any CommandWorkspace) throws {
        self.workspace = workspace
        profiles = try workspace.profiles.load().filter { $0.calendar != nil }
        statusFile = Self.statusFile(home: workspace.home)
    }

    /// `$TETHER_HOME/calendar-status.json`: how the last fetch of each source went, when it did not load.
    package static func statusFile(home: URL) -> EntryFile<CalendarStatusEntry> {
        EntryFile(home: home, fileName: "calendar-status.json")
    }

    /// Stops with exit status 3 when no connection is a calendar source.
    package func requireAny() throws {
        guard profiles.isEmpty else { return }
        throw CLIFailure(
            .needsSignIn,
            "No connection is a calendar source",
            fix: "Sign in with `tether login PROVIDER --calendar google` (or microsoft); see `tether login --help`"
        )
    }

    /// The calendar source named `name`.
    /// - Throws: ``CLIFailure`` (needs sign-in) when no connection of that name is a calendar source.
    package func profile(named name: String) throws -> Profile {
        if let profile = profiles.first(where: { $0.name == name }) { return profile }
        let known = profiles.map(\.name)
        throw CLIFailure(
            .needsSignIn,
            "No calendar source is named '\(name)'",
            fix: known.isEmpty
                ? "Sign in with `tether login PROVIDER --calendar google` (or microsoft)"
                : NameSuggestion.didYouMean(name, among: known)
                    + "The calendar sources are \(known.joined(separator: ", ")); `tether calendar sources` lists them"
        )
    }

    /// The zone of the main calendar of the first source (in the order of connections.json) whose cache names one,
    /// read without the network and without the events (``TetherCalendar/CalendarCache/primaryTimeZone(of:)``).
    package func cachedTimeZone() -> (zone: TimeZone, source: String)? {
        guard case .success(let cache) = openCache() else { return nil }
        for profile in profiles {
            if let zone = cache.primaryTimeZone(of: CalendarSourceID(profile.name)) { return (zone, profile.name) }
        }
        return nil
    }

    /// The offline cache beside the vault; `nil` (and a note on standard error) when its folder cannot be made.
    package func cache() -> CalendarCache? {
        switch openCache() {
        case .success(let cache): return cache
        case .failure(let error):
            noteCacheUnavailable(error)
            return nil
        }
    }

    /// The offline cache beside the vault, or why its folder cannot be made. A command lives a moment: it maps the
    /// cache's events files rather than reading them (docs/decisions.md §50).
    private func openCache() -> Result<CalendarCache, any Error> {
        Result {
            try CalendarCache(
                directory: workspace.vault.directory.appendingPathComponent("calendar-cache", isDirectory: true),
                vault: workspace.vault,
                mappingEventsFiles: true
            )
        }
    }

    private func noteCacheUnavailable(_ error: any Error) {
        workspace.terminal.err("tether: the calendar cache is not available (\(error)); nothing is cached.")
    }

    /// The session of a profile, its record read (no network), or the row that says why it cannot be opened.
    package func open(_ profile: Profile) async -> Result<Session, CLIFailure> {
        do {
            let session = try await workspace.session(for: profile)
            // Reading the record is enough for the status; no refresh starts here.
            _ = try? await session.connection()
            return .success(session)
        } catch {
            return .failure(CLIFailure.from(error, connection: profile.name))
        }
    }

    /// The library's source for a profile's session.
    package func source(_ profile: Profile, session: Session) -> any CalendarSource {
        let setting = profile.calendar ?? CalendarSetting(api: .google)
        let id = CalendarSourceID(profile.name)
        switch setting.api {
        case .google:
            return GoogleCalendarClient(
                session: session,
                transport: workspace.transport,
                id: id,
                configuration: GoogleCalendarClient.Configuration(baseURL: setting.baseURL),
                logger: workspace.logger
            )
        case .microsoft:
            return GraphCalendarClient(
                session: session,
                transport: workspace.transport,
                id: id,
                configuration: GraphCalendarClient.Configuration(baseURL: setting.baseURL),
                logger: workspace.logger
            )
        }
    }

    // MARK: - Without network

    /// Each source as the vault, the cache and the last fetch left it; nothing is sent to a provider.
    package func rows() async -> [CalendarSourceRow] {
        let cache = cache()
        let recorded = statusFile.load()
        var rows: [CalendarSourceRow] = []
        for profile in profiles {
            let api = profile.calendar?.api ?? .google
            let session: Session
            switch await open(profile) {
            case .failure(let failure):
                rows.append(CalendarSourceRow(name: profile.name, api: api, failure: failure))
                continue
            case .success(let opened):
                session = opened
            }
            let connection = await session.status
            let access = CalendarSourceStatus(connection)
            var cacheError: String?
            var lastSync: Date?
            do {
                lastSync = try cache?.load(CalendarSourceID(profile.name))?.lastSuccessfulSync
            } catch {
                cacheError = (error as? CalendarCacheError)?.message ?? "The calendar cache could not be read"
            }
            let record = try? await session.connection()
            let account = access.account ?? record?.account
            var row = CalendarSourceRow(
                name: profile.name,
                api: api,
                state: CalendarSourceRow.state(access.kind),
                account: account.map { $0.maskedDisplayIdentifier ?? $0.providerID },
                lastSync: lastSync,
                stale: true,
                error: CalendarSourceRow.reason(access)
            )
            row.selection = profile.calendar?.selection ?? .default
            // A sign-in that needs the user says what to do; otherwise the last fetch says how it went.
            let signInDecides: Set<CalendarSourceStatus.Kind> = [
                .needsSignIn, .notConnected, .storageUnavailable, .misconfigured, .accessDenied,
            ]
            if !signInDecides.contains(access.kind), let last = recorded[profile.name] {
                row.state = last.state
                row.error = last.error
            }
            row.error = row.error ?? cacheError
            // A source whose chosen calendars are partly gone loaded the others: fresh, not stale.
            let loaded = ["connected", "refreshing", CalendarSourceRow.calendarsUnavailable]
            let failed = recorded[profile.name].map { $0.state != CalendarSourceRow.calendarsUnavailable } ?? false
            row.stale = lastSync == nil || failed || !loaded.contains(row.state)
            rows.append(row)
        }
        return rows
    }

    // MARK: - Fetching

    /// What a fetch across every source gave: a row per source, the events served, and the exit status.
    package struct Fetch: Sendable {
        package var rows: [CalendarSourceRow]
        package var events: [CalendarEvent]

        /// 3 when a source needs sign-in; else 5, 1 or 4 for the worst failure (4: served from the cache, or a
        /// transient failure); 0 when every source loaded fresh.
        package var status: ExitStatus {
            let statuses = Set(rows.map(\.exitStatus))
            let order: [ExitStatus] = [.needsSignIn, .configuration, .failure, .unavailable]
            return order.first(where: statuses.contains) ?? .success
        }
    }

    /// Syncs every source through ``TetherCalendar/CalendarConnections`` (tokens refreshed as needed, the cache
    /// used for a source that does not load) and records each source's outcome for `tether calendar sources`.
    /// - Parameters:
    ///   - window: The days to sync.
    ///   - opened: Sessions already opened (by ``open(_:)``) for some of the profiles, such as those a background
    ///     refresh just used; the others are opened here.
    ///   - listing: Whether to list the window's events; without, the rows only count them
    ///     (``CalendarSourceRow/events``) and ``Fetch/events`` is empty.
    package func fetch(
        window: DateInterval,
        opened: [String: Result<Session, CLIFailure>] = [:],
        listing: Bool = true
    ) async -> Fetch {
        var sources: [any CalendarSource] = []
        var failures: [String: CLIFailure] = [:]
        for profile in profiles {
            let session: Result<Session, CLIFailure>
            if let known = opened[profile.name] { session = known } else { session = await open(profile) }
            switch session {
            case .success(let session): sources.append(source(profile, session: session))
            case .failure(let failure): failures[profile.name] = failure
            }
        }
        let cache = openCache()
        let connections = CalendarConnections(sources: sources, cache: try? cache.get(), logger: workspace.logger)
        // The choice lives in the profile; the cache keeps a copy (a failure to write it is the report's). It is
        // applied as each source's cache is read, while its first request is on the way.
        var selections: [CalendarSourceID: CalendarSelection] = [:]
        for profile in profiles where failures[profile.name] == nil {
            selections[CalendarSourceID(profile.name)] = profile.calendar?.selection ?? .default
        }
        let reports: [CalendarSourceReport]
        var events: [CalendarEvent] = []
        if listing {
            let result = await connections.fetch(window: window, selecting: selections)
            reports = result.sources
            events = result.events
        } else {
            reports = await connections.sync(window: window, selecting: selections)
        }
        // Said once the sources were fetched: a refresh that `tether calendar sync` hands to `tether-cli` on the way
        // (docs/decisions.md §49) has not printed it yet.
        if case .failure(let error) = cache { noteCacheUnavailable(error) }
        var rows: [CalendarSourceRow] = []
        for profile in profiles {
            let api = profile.calendar?.api ?? .google
            if let failure = failures[profile.name] {
                rows.append(CalendarSourceRow(name: profile.name, api: api, failure: failure))
            } else if let report = reports.first(where: { $0.source == CalendarSourceID(profile.name) }) {
                var row = CalendarSourceRow(name: profile.name, api: api, report: report)
                row.selection = profile.calendar?.selection ?? .default
                rows.append(row)
            }
        }
        record(rows)
        return Fetch(rows: rows, events: events)
    }

    /// Keeps the outcome of each source's last fetch: removed when it loaded in full, its state and error when
    /// not (or when chosen calendars of it are gone).
    private func record(_ rows: [CalendarSourceRow]) {
        let notable = rows.filter { $0.served != .fresh || $0.state == CalendarSourceRow.calendarsUnavailable }
        guard !notable.isEmpty || !statusFile.load().isEmpty else { return }
        statusFile.update { entries in
            for row in rows {
                if row.served == .fresh && row.state != CalendarSourceRow.calendarsUnavailable {
                    entries[row.name] = nil
                } else {
                    entries[row.name] = CalendarStatusEntry(
                        state: row.state,
                        error: row.error,
                        since: entries[row.name]?.since ?? Date()
                    )
                }
            }
        }
    }

    /// One line on standard error per source that did not load fresh — what happened and what is shown instead —
    /// and per chosen calendar that is gone from a source that did.
    package func reportProblems(_ rows: [CalendarSourceRow]) {
        let style = Style(enabled: workspace.terminal.colors(onStandardError: true))
        for row in rows where row.served == .fresh {
            // One line per chosen calendar that is gone, by name; the source's other calendars loaded.
            for message in row.unavailable {
                let safe = UntrustedText.forTerminal(message)
                workspace.terminal.err(
                    "\(style.yellow("tether:")) '\(row.name)': \(safe); its other calendars loaded. "
                        + "See `tether calendar calendars \(row.name)`."
                )
            }
        }
        for row in rows where row.served != .fresh {
            var line = "\(style.yellow("tether:")) '\(row.name)' \(Self.phrase(row.state))"
            if let error = row.error {
                // The provider's words (or calendar-status.json's copy of them), made safe for the terminal.
                let safe = UntrustedText.forTerminal(error)
                line += ": \(safe.hasSuffix(".") ? String(safe.dropLast()) : safe)"
            }
            switch row.served {
            case .cache:
                let last = row.lastSync.map { "last synced \(Format.relative($0))" } ?? "from an earlier sync"
                line += "; its events are shown from the cache, \(last)"
            case .standIn(let other): line += "; \(other) stands in for it"
            default: line += "; none of its events are shown"
            }
            if row.exitStatus == .needsSignIn { line += ". Run `tether login \(row.name)`" }
            workspace.terminal.err(line + ".")
        }
    }
}

extension CalendarSources {
    /// A state as the verb of a sentence: "needs sign-in", "is offline".
    package static func phrase(_ state: String) -> String {
        switch state {
        case "needs-sign-in": "needs sign-in"
        case "not-connected": "is not signed in"
        case "access-denied": "may not read calendars"
        case "api-error": "failed"
        case "storage-unavailable": "cannot read its credentials"
        default: "is \(state)"
        }
    }

    /// One line on standard error per source with events that could not be read, such as
    /// "tether: 'work': 3 events skipped (malformed)"; with --verbose, one more line per event naming the field
    /// and the type expected (never the event's content).
    package func reportSkipped(_ rows: [CalendarSourceRow]) {
        let style = Style(enabled: workspace.terminal.colors(onStandardError: true))
        let verbose = workspace.logger.logLevel <= .debug
        for row in rows where !row.skipped.isEmpty {
            var kinds: [String: Int] = [:]
            for record in row.skipped { kinds[Self.kind(of: record.reason), default: 0] += 1 }
            let counts = kinds.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            let summary =
                kinds.count == 1 ? counts[0].key : counts.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            let events = row.skipped.count == 1 ? "1 event" : "\(row.skipped.count) events"
            workspace.terminal.err("\(style.yellow("tether:")) '\(row.name)': \(events) skipped (\(summary))")
            guard verbose else { continue }
            for record in row.skipped {
                let reason = UntrustedText.forTerminal(record.reason.message)
                workspace.terminal.err("\(style.yellow("tether:")) '\(row.name)': skipped an event: \(reason)")
            }
        }
    }

    /// A skipped event's reason in two words: "malformed", "missing field".
    package static func kind(of reason: CalendarDecodingError) -> String {
        switch reason {
        case .missingField: "missing field"
        case .unknownTimeZone: "unknown time zone"
        case .invalidDate: "invalid date"
        default: "malformed"
        }
    }
}

/// What the last fetch of a source left when it did not load: kept in `$TETHER_HOME/calendar-status.json` for
/// `tether calendar sources`. Messages only, never a secret.
package struct CalendarStatusEntry: Codable, Sendable {
    package var state: String
    package var error: String?
    package var since: Date
}

/// One calendar source as `tether calendar sources` and `tether calendar events --json` show it. No token, ever.
package struct CalendarSourceRow: Sendable, Encodable {
    package var name: String
    package var api: CalendarAPI
    package var state: String
    package var account: String?
    package var lastSync: Date?
    package var stale: Bool
    package var error: String?
    /// Where the events shown came from, after a fetch.
    package var served: CalendarSourceReport.Served?
    /// The exit status this source alone calls for.
    package var exitStatus: ExitStatus = .success
    /// The events of the source that could not be read (not in the JSON: standard error names them).
    package var skipped: [SkippedEvent] = []
    /// The calendars the source reads (`tether calendar select`); in the JSON of `tether calendar sources`.
    package var selection: CalendarSelection = .default
    /// One sentence per chosen calendar that is gone, naming it (the provider's name, not yet made safe).
    package var unavailable: [String] = []
    /// How many events of the window the source served, after a fetch (not in the JSON).
    package var events = 0
    /// The time zone of the source's main calendar, when its provider names one (not in the JSON; see
    /// ``TetherCalendar/CalendarSourceReport/timeZone``). Made when asked for: a sync does not.
    package var timeZone: TimeZone? { timeZoneIdentifier.flatMap(TimeZone.init(identifier:)) }
    /// The identifier of ``timeZone``.
    package var timeZoneIdentifier: String?

    /// The state of a source that loaded while chosen calendars of it are gone.
    package static let calendarsUnavailable = "calendars-unavailable"
}

extension CalendarSourceRow {
    /// A source whose connection could not be opened: a damaged record, a wrong vault key, a bad profile.
    package init(name: String, api: CalendarAPI, failure: CLIFailure) {
        self.init(
            name: name,
            api: api,
            state: failure.status == .configuration ? "misconfigured" : "storage-unavailable",
            account: nil,
            lastSync: nil,
            stale: true,
            error: failure.message,
            served: CalendarSourceReport.Served.nothing,
            exitStatus: failure.status == .configuration ? .configuration : .failure
        )
    }

    /// A source as a fetch reported it.
    package init(name: String, api: CalendarAPI, report: CalendarSourceReport) {
        self.init(
            name: name,
            api: api,
            state: Self.state(report.status.kind),
            account: report.status.account.map { $0.maskedDisplayIdentifier ?? $0.providerID },
            lastSync: report.lastSuccessfulSync,
            stale: report.isStale,
            error: report.error?.message
                ?? (report.served == .fresh && report.status.kind != .calendarsUnavailable
                    ? nil : Self.reason(report.status))
        )
        served = report.served
        events = report.eventCount
        timeZoneIdentifier = report.timeZoneIdentifier
        skipped = report.skipped
        unavailable = report.unavailableCalendars.map(\.message)
        switch report.status.kind {
        case .needsSignIn, .notConnected: exitStatus = .needsSignIn
        case _ where report.served == .fresh: exitStatus = .success
        case _ where report.served != .nothing || report.error?.isTransient == true: exitStatus = .unavailable
        case .offline, .refreshing: exitStatus = .unavailable
        case .misconfigured: exitStatus = .configuration
        default: exitStatus = .failure
        }
    }

    /// The state's name, as `tether status` spells its states.
    package static func state(_ kind: CalendarSourceStatus.Kind) -> String {
        switch kind {
        case .connected: "connected"
        case .calendarsUnavailable: calendarsUnavailable
        case .refreshing: "refreshing"
        case .offline: "offline"
        case .needsSignIn: "needs-sign-in"
        case .notConnected: "not-connected"
        case .storageUnavailable: "storage-unavailable"
        case .accessDenied: "access-denied"
        case .apiError: "api-error"
        case .misconfigured: "misconfigured"
        }
    }

    /// Why a source is not connected, in one sentence; `nil` when it is.
    package static func reason(_ status: CalendarSourceStatus) -> String? {
        switch status {
        case .connected, .refreshing: nil
        case .calendarsUnavailable(_, let calendars): calendars.map(\.message).joined(separator: "; ")
        case .offline(_, let reason), .needsSignIn(_, let reason), .storageUnavailable(let reason),
            .accessDenied(let reason), .apiError(let reason, _):
            reason
        case .notConnected: "not signed in"
        case .misconfigured(let problem): problem
        }
    }

    package enum CodingKeys: String, CodingKey {
        case name, api, state, account, lastSync, stale, error, calendars
    }

    /// The encoder of the calendar commands' JSON: pretty, sorted keys, slashes as they are.
    /// - Parameter includesAccount: Whether rows write the account and the calendars read (see
    ///   ``includesAccount``).
    package static func encoder(includesAccount: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.userInfo[CalendarSourceRow.includesAccount] = includesAccount
        return encoder
    }

    /// Whether ``encode(to:)`` writes the account and the calendars read: `tether calendar sources` shows them,
    /// the sources of `tether calendar events --json` do not.
    package static let includesAccount = CodingUserInfoKey(rawValue: "tether.calendar.includesAccount")!

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(api, forKey: .api)
        try container.encode(state, forKey: .state)
        let isSourcesListing = encoder.userInfo[Self.includesAccount] as? Bool == true
        if isSourcesListing {
            try container.encode(account, forKey: .account)
            try container.encode(selection, forKey: .calendars)
        }
        try container.encode(Format.iso8601(lastSync), forKey: .lastSync)
        try container.encode(stale, forKey: .stale)
        try container.encode(error, forKey: .error)
    }

    /// A selection for people: `default`, `all`, `2 chosen`.
    package static func words(_ selection: CalendarSelection) -> String {
        if let identifiers = selection.calendarIDs { return "\(identifiers.count) chosen" }
        return selection.includesEveryCalendar ? "all" : "default"
    }

    /// The row for people. The account and the error come from the provider (or from `calendar-status.json`,
    /// which keeps what it said): ``Format/table(_:)`` makes them safe.
    package func cells(style: Style) -> [Format.Cell] {
        [
            Format.Cell(name), Format.Cell(api.rawValue), Format.Cell(account ?? "—"),
            Format.Cell(state, style: style.state), Format.Cell(lastSync.map { Format.relative($0) } ?? "never"),
            Format.Cell(stale ? "stale" : "fresh"), Format.Cell(Self.words(selection)),
            Format.Cell(String((error ?? "—").prefix(80))),
        ]
    }
}
