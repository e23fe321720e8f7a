public import Foundation

/// A place events come from: a Google Calendar or Microsoft Graph account, or the device's calendar.
///
/// ## When to implement
/// Tether ships ``GoogleCalendarClient``, ``GraphCalendarClient`` and, on Apple platforms,
/// `AppleCalendarSource`. Implement the protocol for another service, or as a test double (a struct whose
/// closures return canned statuses and outcomes).
///
/// ## The contract
/// - ``accessStatus()`` answers at once, without network: the status of the sign-in or permission behind the
///   source. ``CalendarConnections`` combines it with the outcome of the last fetch.
/// - ``sync(from:window:calendars:)`` takes the state of the last successful sync and returns the next. It throws
///   ``CalendarError`` when the source as a whole could not be read; single malformed events are skipped and
///   listed in ``CalendarSyncOutcome/skipped``, never thrown.
public protocol CalendarSource: Sendable {
    /// The source's name.
    var id: CalendarSourceID { get }
    /// The kind of service.
    var kind: CalendarSourceKind { get }
    /// The status of the sign-in or permission behind the source, without network.
    func accessStatus() async -> CalendarSourceStatus
    /// The calendars the source offers.
    /// - Throws: ``CalendarError``.
    func calendars() async throws -> [CalendarInfo]
    /// Brings `state` up to date for `window`.
    /// - Parameters:
    ///   - state: The state of the last successful sync (empty for the first).
    ///   - window: The events wanted; sources may keep more.
    ///   - calendars: The calendars to read; `nil` for the source's default (the primary calendar and those the
    ///     provider marks as shown). ``CalendarConnections`` passes the identifiers of its ``CalendarSelection``.
    /// - Returns: The new state and what happened.
    /// - Throws: ``CalendarError``, or `CancellationError`.
    func sync(
        from state: CalendarSyncState,
        window: DateInterval,
        calendars: Set<String>?
    ) async throws
        -> CalendarSyncOutcome
}

extension CalendarSource {
    /// Syncs the default calendars from an empty state.
    /// - Parameter window: The events wanted.
    /// - Returns: The new state and what happened.
    /// - Throws: ``CalendarError``.
    public func sync(window: DateInterval) async throws -> CalendarSyncOutcome {
        try await sync(from: CalendarSyncState(), window: window, calendars: nil)
    }
}

/// A source that reads a ``CalendarSelection`` itself — every calendar, those added later included — and reports
/// the chosen calendars that are gone. ``CalendarConnections`` hands it the selection as it is; another source gets
/// the identifiers the selection stands for.
///
/// Its sync starts with the calendar list (``CalendarSource/calendars()``), which depends on nothing the last sync
/// left: ``CalendarSource/syncSelected(window:inputs:)`` reads it while the state is read.
protocol CalendarSelectionSyncing: CalendarSource {
    func sync(
        from state: CalendarSyncState,
        window: DateInterval,
        selection: CalendarSelection
    ) async throws -> CalendarSyncOutcome

    /// The same with the calendar list already read.
    func sync(
        from state: CalendarSyncState,
        window: DateInterval,
        selection: CalendarSelection,
        available: [CalendarInfo]
    ) async throws -> CalendarSyncOutcome
}

extension CalendarSource {
    /// ``syncSelected(from:window:selection:)`` with the state and the selection from `inputs` (the cache, read
    /// on the caller's side): a source that reads selections asks for its calendar list at once, so that the
    /// request overlaps reading them.
    func syncSelected(
        window: DateInterval,
        inputs: @Sendable () async -> (state: CalendarSyncState, selection: CalendarSelection)
    ) async throws -> CalendarSyncOutcome {
        guard let source = self as? any CalendarSelectionSyncing else {
            let (state, selection) = await inputs()
            return try await syncSelected(from: state, window: window, selection: selection)
        }
        async let available = source.calendars()
        let (state, selection) = await inputs()
        return try await source.sync(from: state, window: window, selection: selection, available: try await available)
    }

    /// Syncs the calendars `selection` takes: through the source itself when it reads selections, otherwise with
    /// the identifiers the selection stands for (for ``CalendarSelection/all``, every calendar it lists now).
    func syncSelected(
        from state: CalendarSyncState,
        window: DateInterval,
        selection: CalendarSelection
    ) async throws -> CalendarSyncOutcome {
        if let source = self as? any CalendarSelectionSyncing {
            return try await source.sync(from: state, window: window, selection: selection)
        }
        if selection.isDefault { return try await sync(from: state, window: window, calendars: nil) }
        var identifiers = selection.calendarIDs
        if identifiers == nil { identifiers = Set(try await calendars().map(\.id)) }
        return try await sync(from: state, window: window, calendars: identifiers)
    }
}
