public import Foundation
public import Logging
public import Tether

/// Several calendar sources at once — Google and Microsoft accounts, the device's calendar — each with its own
/// status, none ever hiding another.
///
/// ```swift
/// let connections = CalendarConnections(
///     sources: [googleClient, graphClient],
///     fallbacks: ["personal-google": [appleCalendar]],
///     cache: try CalendarCache(vault: vault)
/// )
/// let cached = await connections.loadCached(window: week)   // at launch, no network: stale events at once
/// let result = await connections.fetch(window: week)        // every source concurrently
/// for report in result.sources { print(report.source, report.status, report.served) }
/// ```
///
/// ## Fetching
/// ``fetch(window:)`` syncs every source concurrently from its last state. A source that fails is reported —
/// its error, since when, its last successful sync — and never affects the others. Its events are then served,
/// marked stale, from:
/// 1. a stand-in (``init(sources:fallbacks:cache:timeZone:dateSource:logger:)``'s `fallbacks`) when the source
///    needs the user (sign-in, permission, configuration) or has nothing cached;
/// 2. otherwise its own cache, as of its last successful sync;
/// 3. otherwise a stand-in, or nothing.
///
/// ``sync(window:)`` does the same and only counts the events, for a sync that keeps the cache fresh.
///
/// Every report says which source served. Malformed events are skipped and listed per source
/// (``CalendarSourceReport/skipped``): those the source's calendars hold, not only those of the last sync.
///
/// ## Status
/// Each source's ``CalendarSourceStatus`` is derived from its sign-in or permission and its last fetch (see
/// ``CalendarSourceStatus/derive(access:lastError:failingSince:)``); ``statuses()`` reads them without network.
///
/// ## Choosing calendars
/// Each source reads its default calendars until ``select(_:for:)`` chooses others: every calendar, including
/// those added later, or calendars by identifier (see <doc:ChoosingCalendars>). The choice is kept in the cache
/// with the source's events. A chosen calendar that is gone — deleted, unsubscribed, no longer shared — is named in
/// the report (``CalendarSourceReport/unavailableCalendars``) and the status
/// (``CalendarSourceStatus/calendarsUnavailable(account:calendars:)``); the source's other calendars load.
///
/// ## Cache
/// With a ``CalendarCache``, each successful sync stores the source's events, cursors, selected calendars and
/// the time; ``loadCached(window:)`` shows them at launch before any network.
public actor CalendarConnections {
    private let sources: [any CalendarSource]
    private let fallbacks: [CalendarSourceID: [any CalendarSource]]
    private let cache: CalendarCache?
    private let timeZone: TimeZone
    private let dateSource: DateSource
    private let logger: Logger
    private var memory: [CalendarSourceID: Memory] = [:]
    /// The fetch started last; the next one waits for it.
    private var lastFetch: Task<Void, Never>?

    /// What the connections remember of one source.
    private struct Memory {
        var entry: CalendarCache.Entry?
        var isCacheRead = false
        var cacheError: CalendarCacheError?
        var lastError: CalendarError?
        var failingSince: Date?
        /// The selection chosen in this process; `nil` when none was, and the cache's holds.
        var selected: CalendarSelection?
        /// The chosen calendars the last successful sync found gone.
        var unavailable: [UnavailableCalendar] = []
    }

    /// What one sync attempt gave.
    private struct Attempt: Sendable {
        var outcome: CalendarSyncOutcome?
        var error: CalendarError?
    }

    /// Creates the connections.
    /// - Parameters:
    ///   - sources: The sources, in the order reports list them; their identifiers must differ.
    ///   - fallbacks: For a source, the sources that may stand in for it, in order of preference. A stand-in
    ///     is synced only when needed.
    ///   - cache: Where each source's last good state is kept; `nil` for none.
    ///   - timeZone: Where all-day events are placed when selecting a window (the user's zone).
    ///   - dateSource: The wall clock for last-sync and failing-since times.
    ///   - logger: Receives one debug line per source and fetch: its name, kind, status and counts — never an
    ///     event.
    public init(
        sources: [any CalendarSource],
        fallbacks: [CalendarSourceID: [any CalendarSource]] = [:],
        cache: CalendarCache? = nil,
        timeZone: TimeZone = .current,
        dateSource: DateSource = .system,
        logger: Logger = .current
    ) {
        self.sources = sources
        self.fallbacks = fallbacks
        self.cache = cache
        self.timeZone = timeZone
        self.dateSource = dateSource
        self.logger = logger
    }

    /// The identifiers of the sources, in order.
    public nonisolated var sourceIDs: [CalendarSourceID] { sources.map(\.id) }

    /// Chooses the calendars a source reads: ``CalendarSelection/default``, ``CalendarSelection/all`` (including
    /// calendars added later) or ``CalendarSelection/calendars(_:)``.
    ///
    /// The choice holds from the next fetch. With a cache, it is stored at once when the source has an entry —
    /// whose events of calendars the choice no longer reads are dropped — and otherwise with the source's first
    /// successful sync. Choosing what is already chosen writes nothing.
    /// - Parameters:
    ///   - selection: The calendars to read.
    ///   - source: The source.
    /// - Throws: ``CalendarCacheError`` when the cache could not store it; the choice still holds in this process
    ///   and is stored with the next successful sync.
    public func select(_ selection: CalendarSelection, for source: CalendarSourceID) throws {
        readCacheIfNeeded(source)
        try apply(selection, to: source)
    }

    /// ``select(_:for:)`` once the source's cache was read.
    private func apply(_ selection: CalendarSelection, to source: CalendarSourceID) throws {
        let unchanged = self.selection(source) == selection
        memory[source, default: Memory()].selected = selection
        guard !unchanged else { return }
        // A new choice: what the last sync found gone no longer holds.
        memory[source]?.unavailable = []
        guard var entry = memory[source]?.entry else { return }
        entry.selection = selection
        entry.state.calendars = entry.state.calendars.filter { selection.includes($0.value.info) }
        memory[source]?.entry = entry
        guard let cache else { return }
        do {
            try cache.save(entry)
        } catch let error as CalendarCacheError {
            memory[source]?.cacheError = error
            throw error
        }
    }

    /// Chooses the calendars a source reads by identifier; `nil` returns to the source's default. As
    /// ``select(_:for:)``; a failure of the cache is reported in the next ``CalendarSourceReport/cacheError``.
    /// - Parameters:
    ///   - calendars: The calendar identifiers.
    ///   - source: The source.
    public func select(calendars: Set<String>?, for source: CalendarSourceID) {
        try? select(CalendarSelection(calendars), for: source)
    }

    /// The calendars a source reads: chosen with ``select(_:for:)`` in this process, else as the cache keeps
    /// them, else the source's default.
    /// - Parameter source: The source.
    /// - Returns: The selection.
    public func selection(for source: CalendarSourceID) -> CalendarSelection {
        readCacheIfNeeded(source)
        return selection(source)
    }

    /// The calendars a source reads when they were chosen one by one; `nil` for the source's default and for every
    /// calendar (see ``selection(for:)``).
    /// - Parameter source: The source.
    /// - Returns: The chosen calendars.
    public func selectedCalendars(for source: CalendarSourceID) -> Set<String>? {
        selection(for: source).calendarIDs
    }

    /// The status of every source, without network: the sign-in or permission and the last fetch.
    /// - Returns: The statuses, in the order of the sources.
    public func statuses() async -> [(source: CalendarSourceID, status: CalendarSourceStatus)] {
        var result: [(CalendarSourceID, CalendarSourceStatus)] = []
        for source in sources {
            let remembered = memory[source.id]
            let status = CalendarSourceStatus.derive(
                access: await source.accessStatus(),
                lastError: remembered?.lastError,
                failingSince: remembered?.failingSince,
                unavailableCalendars: remembered?.unavailable ?? []
            )
            result.append((source.id, status))
        }
        return result
    }

    /// Shows what the cache holds, without network: each source's last good events, marked stale, with the
    /// time of its last successful sync. Call it at launch, then ``fetch(window:)``.
    /// - Parameter window: The events wanted.
    /// - Returns: The cached events and a report per source.
    public func loadCached(window: DateInterval) async -> CalendarFetchResult {
        var reports: [CalendarSourceReport] = []
        var events: [CalendarEvent] = []
        for source in sources {
            readCacheIfNeeded(source.id)
            let remembered = memory[source.id] ?? Memory()
            let cached = remembered.entry?.state.unsortedEvents(in: window, timeZone: timeZone) ?? []
            events += cached
            reports.append(
                CalendarSourceReport(
                    source: source.id,
                    kind: source.kind,
                    status: CalendarSourceStatus.derive(
                        access: await source.accessStatus(),
                        lastError: remembered.lastError,
                        failingSince: remembered.failingSince,
                        unavailableCalendars: remembered.unavailable
                    ),
                    served: remembered.entry == nil ? .nothing : .cache,
                    eventCount: cached.count,
                    error: remembered.lastError,
                    failingSince: remembered.failingSince,
                    lastSuccessfulSync: remembered.entry?.lastSuccessfulSync,
                    skipped: remembered.entry?.state.skipped ?? [],
                    modes: [:],
                    cacheError: remembered.cacheError,
                    unavailableCalendars: remembered.unavailable,
                    timeZoneIdentifier: remembered.entry?.state.primaryTimeZoneIdentifier
                )
            )
        }
        return CalendarFetchResult(sources: reports, events: CalendarEvent.sorted(events, in: timeZone), window: window)
    }

    /// Syncs every source concurrently and reports, per source, what loaded, what did not, why and since when.
    /// It never throws: failures are in the reports. Fetches run one after another, so that a later one always
    /// starts from the state an earlier one stored.
    /// - Parameter window: The events wanted.
    /// - Returns: The events served and a report per source.
    public func fetch(window: DateInterval) async -> CalendarFetchResult {
        await fetch(window: window, selecting: [:])
    }

    /// ``fetch(window:)`` after ``select(_:for:)`` for each source of `selections`, each applied as the source's
    /// sync reads its cache, so that reading it overlaps the source's first request. A selection the cache cannot
    /// store is reported in ``CalendarSourceReport/cacheError`` (and holds all the same).
    package func fetch(
        window: DateInterval,
        selecting selections: [CalendarSourceID: CalendarSelection]
    ) async -> CalendarFetchResult {
        await serialized { await self.performFetch(window: window, listing: true, selections: selections) }
    }

    /// Syncs every source as ``fetch(window:)`` does — the same reports, the same cache — without listing the
    /// events: for a sync that keeps the cache fresh, such as a background refresh. Each report's
    /// ``CalendarSourceReport/eventCount`` still counts the window's events, reading of a cached month only what it
    /// takes to count them.
    /// - Parameter window: The events to count.
    /// - Returns: A report per source, in the order the sources were given.
    public func sync(window: DateInterval) async -> [CalendarSourceReport] {
        await sync(window: window, selecting: [:])
    }

    /// ``sync(window:)`` with selections applied as ``fetch(window:selecting:)`` applies them.
    package func sync(
        window: DateInterval,
        selecting selections: [CalendarSourceID: CalendarSelection]
    ) async -> [CalendarSourceReport] {
        await serialized { await self.performFetch(window: window, listing: false, selections: selections) }.sources
    }

    /// Runs `body` once the fetch started before it ended, so that it starts from the state that one stored.
    private func serialized(
        _ body: @escaping @Sendable () async -> CalendarFetchResult
    ) async -> CalendarFetchResult {
        let previous = lastFetch
        let task = Task {
            await previous?.value
            return await body()
        }
        lastFetch = Task { _ = await task.value }
        return await task.value
    }

    /// Syncs the sources; with `listing`, collects the window's events too (else each report counts them).
    private func performFetch(
        window: DateInterval,
        listing: Bool,
        selections: [CalendarSourceID: CalendarSelection]
    ) async -> CalendarFetchResult {
        let attempts = await syncAll(sources, window: window, selections: selections)
        var reports: [CalendarSourceReport] = []
        for source in sources {
            reports.append(await record(source, attempts[source.id] ?? Attempt(), window: window))
        }
        // Stand-ins for the sources that did not load.
        let primaryIDs = Set(sources.map(\.id))
        var standIns: [CalendarSourceID: any CalendarSource] = [:]
        for report in reports where report.served != .fresh {
            for candidate in fallbacks[report.source] ?? [] where !primaryIDs.contains(candidate.id) {
                standIns[candidate.id] = candidate
            }
        }
        var standInAttempts: [CalendarSourceID: Attempt] = [:]
        if !standIns.isEmpty {
            standInAttempts = await syncAll(Array(standIns.values), window: window)
            for (id, attempt) in standInAttempts {
                if let standIn = standIns[id] { _ = await record(standIn, attempt, window: window) }
            }
        }
        var events: [CalendarEvent] = []
        var served: Set<CalendarSourceID> = []
        // Each source's events unsorted (the whole list is sorted once, below), or, without a listing, how many.
        func windowEvents(of source: CalendarSourceID) -> (events: [CalendarEvent], count: Int) {
            guard let state = memory[source]?.entry?.state else { return ([], 0) }
            guard listing else { return ([], state.count(in: window, timeZone: timeZone)) }
            let events = state.unsortedEvents(in: window, timeZone: timeZone)
            return (events, events.count)
        }
        for index in reports.indices {
            reports[index].timeZoneIdentifier = memory[reports[index].source]?.entry?.state.primaryTimeZoneIdentifier
            var report = reports[index]
            if report.served == .fresh {
                // A fresh report counted its events when the sync was recorded.
                if listing { events += windowEvents(of: report.source).events }
                served.insert(report.source)
                continue
            }
            let prefersStandIn = report.status.requiresUserAction || memory[report.source]?.entry == nil
            let standIn = (fallbacks[report.source] ?? []).first { candidate in
                !primaryIDs.contains(candidate.id) && standInAttempts[candidate.id]?.outcome != nil
            }
            if let standIn, prefersStandIn {
                let standInEvents = windowEvents(of: standIn.id)
                report.served = .standIn(standIn.id)
                report.eventCount = standInEvents.count
                if served.insert(standIn.id).inserted { events += standInEvents.events }
            } else if let entry = memory[report.source]?.entry {
                let own = windowEvents(of: report.source)
                report.served = .cache
                report.eventCount = own.count
                report.skipped = entry.state.skipped
                events += own.events
            } else {
                report.served = .nothing
                report.eventCount = 0
            }
            reports[index] = report
        }
        for report in reports {
            logger.debug(
                "Calendar source fetched",
                metadata: [
                    "calendar.source": "\(report.source)", "calendar.kind": "\(report.kind.rawValue)",
                    "calendar.status": "\(report.status.kind.rawValue)", "calendar.served": "\(report.served)",
                    "calendar.events": "\(report.eventCount)", "calendar.skipped": "\(report.skipped.count)",
                ]
            )
        }
        return CalendarFetchResult(sources: reports, events: CalendarEvent.sorted(events, in: timeZone), window: window)
    }

    /// Syncs `list` concurrently, each from its remembered state. Each source's cache is read as its sync starts,
    /// so that a source's first request (its calendar list) overlaps reading it.
    private func syncAll(
        _ list: [any CalendarSource],
        window: DateInterval,
        selections: [CalendarSourceID: CalendarSelection] = [:]
    ) async -> [CalendarSourceID: Attempt] {
        let attempts = await withTaskGroup(of: (CalendarSourceID, Attempt).self) { group in
            for source in list {
                group.addTask {
                    do {
                        let outcome = try await source.syncSelected(window: window) {
                            await self.syncInputs(source.id, selecting: selections[source.id])
                        }
                        return (source.id, Attempt(outcome: outcome))
                    } catch let error as CalendarError {
                        return (source.id, Attempt(error: error))
                    } catch is CancellationError {
                        return (
                            source.id, Attempt(error: CalendarError.offline.with(message: "The fetch was cancelled"))
                        )
                    } catch {
                        return (
                            source.id,
                            Attempt(
                                error: CalendarError.api.with(
                                    message: "The source failed: \(type(of: error))",
                                    cause: error
                                )
                            )
                        )
                    }
                }
            }
            var attempts: [CalendarSourceID: Attempt] = [:]
            for await (id, attempt) in group { attempts[id] = attempt }
            return attempts
        }
        // Every source's cache is read and its selection applied, whatever its sync did.
        for source in list { _ = syncInputs(source.id, selecting: selections[source.id]) }
        return attempts
    }

    /// What a source syncs from: its remembered state (the cache read first) and its selection, `selection` applied
    /// first when given (once).
    private func syncInputs(
        _ source: CalendarSourceID,
        selecting selection: CalendarSelection?
    ) -> (state: CalendarSyncState, selection: CalendarSelection) {
        readCacheIfNeeded(source)
        if let selection, memory[source]?.selected != selection {
            // A failure to store it is the cache's error in the report; the choice holds.
            try? apply(selection, to: source)
        }
        return (memory[source]?.entry?.state ?? CalendarSyncState(), self.selection(source))
    }

    /// Remembers an attempt (and caches a success), and reports it as if the source served itself.
    private func record(
        _ source: any CalendarSource,
        _ attempt: Attempt,
        window: DateInterval
    ) async
        -> CalendarSourceReport
    {
        let now = dateSource.now
        var remembered = memory[source.id] ?? Memory()
        var report = CalendarSourceReport(
            source: source.id,
            kind: source.kind,
            status: .notConnected,
            served: .nothing,
            eventCount: 0,
            error: nil,
            failingSince: nil,
            lastSuccessfulSync: remembered.entry?.lastSuccessfulSync,
            skipped: [],
            modes: [:],
            cacheError: remembered.cacheError
        )
        if let outcome = attempt.outcome {
            let entry = CalendarCache.Entry(
                source: source.id,
                state: outcome.state,
                selection: selection(source.id),
                lastSuccessfulSync: now
            )
            remembered.entry = entry
            remembered.lastError = nil
            remembered.failingSince = nil
            remembered.unavailable = outcome.unavailable
            if let cache {
                do {
                    try cache.save(entry)
                    remembered.cacheError = nil
                } catch let error as CalendarCacheError {
                    remembered.cacheError = error
                } catch {
                    remembered.cacheError = CalendarCacheError.io.with(message: "The cache failed", cause: error)
                }
            }
            report.served = .fresh
            report.eventCount = outcome.state.count(in: window, timeZone: timeZone)
            report.lastSuccessfulSync = now
            // The state keeps what is still unreadable; a source that keeps nothing there reports this sync's.
            let kept = Set(outcome.state.skipped)
            report.skipped = outcome.state.skipped + outcome.skipped.filter { !kept.contains($0) }
            report.modes = outcome.modes
            report.cacheError = remembered.cacheError
            report.unavailableCalendars = outcome.unavailable
        } else {
            remembered.lastError = attempt.error
            remembered.failingSince = remembered.failingSince ?? now
            report.error = attempt.error
            report.failingSince = remembered.failingSince
        }
        memory[source.id] = remembered
        report.status = CalendarSourceStatus.derive(
            access: await source.accessStatus(),
            lastError: remembered.lastError,
            failingSince: remembered.failingSince,
            unavailableCalendars: remembered.unavailable
        )
        return report
    }

    private func selection(_ source: CalendarSourceID) -> CalendarSelection {
        memory[source]?.selected ?? memory[source]?.entry?.selection ?? .default
    }

    private func readCacheIfNeeded(_ source: CalendarSourceID) {
        guard let cache, memory[source]?.isCacheRead != true else { return }
        var remembered = memory[source] ?? Memory()
        remembered.isCacheRead = true
        do {
            if remembered.entry == nil { remembered.entry = try cache.load(source) }
        } catch let error as CalendarCacheError {
            remembered.cacheError = error
            logger.debug(
                "Calendar cache could not be read; left untouched",
                metadata: ["calendar.source": "\(source)", "calendar.cache.error": "\(error.message)"]
            )
        } catch {
            remembered.cacheError = CalendarCacheError.io.with(message: "The cache failed", cause: error)
        }
        memory[source] = remembered
    }
}
