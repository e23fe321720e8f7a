public import Foundation
import HTTPTypes
public import Logging
public import Tether

/// Reads Outlook calendars through Microsoft Graph v1.0 and an ``Tether/AuthorizedClient``: calendars,
/// `calendarView` for a range, and delta sync.
///
/// ```swift
/// let outlook = GraphCalendarClient(session: session, transport: URLSessionTransport())
/// let batch = try await outlook.events(in: DateInterval(start: from, end: to))
/// ```
///
/// - Every events request sends `Prefer: outlook.timezone="UTC"` and `odata.maxpagesize` ("Get incremental
///   changes to events in a calendar view", <https://learn.microsoft.com/graph/delta-query-events>), so times
///   arrive in UTC; an event's own zone comes from `originalStartTimeZone`, a Windows or IANA name.
/// - Paging follows `@odata.nextLink`, only on the base URL's origin; a listing that gives a link it gave before,
///   or more than ``Configuration/maximumPages`` pages, fails with ``CalendarError/api`` naming the source.
/// - `429` and `503` are retried with bounded backoff, honouring `Retry-After` ("Microsoft Graph throttling
///   guidance", <https://learn.microsoft.com/graph/throttling>); `403` is ``CalendarError/accessDenied``.
/// - HTML bodies become plain text; malformed events are skipped and listed in the result.
///
/// As a ``CalendarSource`` it syncs each selected calendar with its own delta round
/// ("Get incremental changes to events in a calendar view", <https://learn.microsoft.com/graph/delta-query-events>:
/// "To track the changes in multiple calendars, you need to track each calendar individually"): the default
/// calendar with `/me/calendarView/delta`, another with `/me/calendars/{id}/calendarView/delta`. The first round
/// follows `@odata.nextLink` to the `@odata.deltaLink`, which is kept; later rounds start from it and apply
/// changes and `@removed` items; `410 Gone`, `syncStateNotFound` or `resyncRequired` drops that calendar's link
/// and syncs it in full. A delta round is bound to its window: a window the kept one does not cover starts a new
/// round (rounded out to whole UTC days plus ``Configuration/deltaWindowPadding``).
///
/// By default it reads the default calendar (`isDefaultCalendar`; Graph marks no other calendar as shown);
/// ``sync(from:window:selection:)`` reads every calendar (`GET /me/calendars`) or the ones named instead (see
/// <doc:ChoosingCalendars>). A chosen calendar that is gone is reported, by name, and the others are read.
public struct GraphCalendarClient: CalendarSource {
    /// Where and how the client reads.
    public struct Configuration: Sendable {
        /// The API's base URL; `https://graph.microsoft.com/v1.0` by default.
        public var baseURL: URL
        /// `Prefer: odata.maxpagesize`: 100 events per page by default. Event bodies can be large; smaller pages
        /// stay within a transport's response size limit.
        public var pageSize: Int
        /// How far a new delta round reaches beyond the window asked for, so that the next days' windows are
        /// still covered; 7 days by default.
        public var deltaWindowPadding: Duration
        /// Backoff for rate limits and server errors; ``Tether/Backoff/calendar`` by default.
        public var retry: Backoff
        /// The most pages one listing may have — the calendars, one `calendarView`, one delta round: 2,000 by
        /// default (200,000 events at the default page size). A listing that would go on, or that gives a link it
        /// gave before, fails with ``CalendarError/api`` instead of being read forever.
        public var maximumPages: Int

        /// Microsoft Graph v1.0.
        public static let defaultBaseURL = URL(string: "https://graph.microsoft.com/v1.0")!

        /// Creates a configuration.
        /// - Parameters:
        ///   - baseURL: The API's base URL.
        ///   - pageSize: Events per page.
        ///   - deltaWindowPadding: How far a new delta round reaches beyond the window.
        ///   - retry: Backoff for rate limits and server errors.
        ///   - maximumPages: The most pages one listing may have; at least 1.
        public init(
            baseURL: URL = defaultBaseURL,
            pageSize: Int = 100,
            deltaWindowPadding: Duration = .seconds(7 * 86_400),
            retry: Backoff = .calendar,
            maximumPages: Int = 2_000
        ) {
            self.baseURL = baseURL
            self.pageSize = max(pageSize, 1)
            self.deltaWindowPadding = deltaWindowPadding
            self.retry = retry
            self.maximumPages = max(maximumPages, 1)
        }
    }

    /// The source's name; the session's connection identifier by default.
    public let id: CalendarSourceID
    /// ``CalendarSourceKind/microsoft``.
    public var kind: CalendarSourceKind { .microsoft }

    private let session: Session
    private let http: CalendarHTTP
    private let configuration: Configuration

    /// Creates a client.
    /// - Parameters:
    ///   - session: The signed-in connection, with `Calendars.Read` granted.
    ///   - transport: How requests are sent.
    ///   - id: The source's name; the session's identifier by default.
    ///   - configuration: Base URL, page size, backoff.
    ///   - clock: The clock backoff sleeps on.
    ///   - logger: Where requests are logged at debug level, without queries, headers or events.
    public init(
        session: Session,
        transport: any HTTPTransport,
        id: CalendarSourceID? = nil,
        configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current
    ) {
        self.id = id ?? CalendarSourceID(session.id.rawValue)
        self.session = session
        self.configuration = configuration
        self.http = CalendarHTTP(
            session: session,
            transport: transport,
            baseURL: configuration.baseURL,
            retry: configuration.retry,
            clock: clock,
            logger: logger
        )
    }

    /// The status of the session behind the source.
    public func accessStatus() async -> CalendarSourceStatus { CalendarSourceStatus(await session.status) }

    /// The `Prefer` header (RFC 7240).
    private static let prefer = HTTPField.Name("Prefer")!

    private var preferHeaders: HTTPFields {
        var fields = HTTPFields()
        fields[Self.prefer] = "outlook.timezone=\"UTC\", odata.maxpagesize=\(configuration.pageSize)"
        return fields
    }

    /// Lists the user's calendars (`GET /me/calendars`), following `@odata.nextLink`.
    ///
    /// Each ``CalendarInfo`` carries `isDefaultCalendar` (as ``CalendarInfo/isPrimary``), `canEdit` and `hexColor`
    /// ("calendar resource type", <https://learn.microsoft.com/graph/api/resources/calendar>).
    /// - Returns: The calendars; the default one has ``CalendarInfo/isPrimary`` set.
    /// - Throws: ``CalendarError``.
    public func calendars() async throws -> [CalendarInfo] {
        var result: [CalendarInfo] = []
        var next: URL? = http.url(["me", "calendars"])
        var trail = pageTrail("calendars")
        while let url = next {
            let page: GraphWire.CalendarsPage = try await http.json(url)
            result += (page.value ?? []).map(Self.info)
            next = try link(trail.next(after: page.nextLink))
        }
        return result
    }

    /// A calendar as the library describes it.
    static func info(_ calendar: GraphWire.Calendar) -> CalendarInfo {
        var info = CalendarInfo(
            id: calendar.id,
            name: GoogleCalendarClient.nonEmpty(calendar.name) ?? calendar.id,
            isPrimary: calendar.isDefaultCalendar ?? false
        )
        info.canEdit = calendar.canEdit
        info.color = GoogleCalendarClient.nonEmpty(calendar.hexColor)
        return info
    }

    /// Reads the occurrences, exceptions and single events of a calendar in `window` (`calendarView` with
    /// `startDateTime` and `endDateTime`), following `@odata.nextLink`.
    /// - Parameters:
    ///   - calendar: The calendar's identifier; `nil` for the default calendar.
    ///   - window: The range.
    /// - Returns: The events and the skipped ones.
    /// - Throws: ``CalendarError``.
    public func events(calendarID calendar: String? = nil, in window: DateInterval) async throws -> CalendarEventBatch {
        try await events(
            calendar: CalendarInfo(id: calendar ?? "default", name: calendar ?? "default"),
            isDefault: calendar == nil,
            in: window
        )
    }

    func events(calendar: CalendarInfo, isDefault: Bool, in window: DateInterval) async throws -> CalendarEventBatch {
        let path = isDefault ? ["me", "calendarView"] : ["me", "calendars", calendar.id, "calendarView"]
        var next: URL? = http.url(path, query: Self.range(window))
        var batch = CalendarEventBatch.empty
        var trail = pageTrail("events")
        while let url = next {
            let page: GraphWire.EventsPage = try await http.json(url, headers: preferHeaders)
            batch.add(page: GraphEventMapping.map(page, source: id, calendar: calendar))
            next = try link(trail.next(after: page.nextLink))
        }
        return batch
    }

    /// Runs one delta round of the default calendar: from `deltaLink`, or a new round for `window` when it is
    /// `nil`, following `@odata.nextLink` to the `@odata.deltaLink`.
    /// - Parameters:
    ///   - window: The window of a new round (ignored when continuing: the link carries it).
    ///   - deltaLink: The `@odata.deltaLink` of the last round, or `nil`.
    /// - Returns: The changes (removed items in ``CalendarChanges/removedIDs``) and the next delta link.
    /// - Throws: ``CalendarError/syncStateExpired`` when Graph answers `410 Gone` or `syncStateNotFound`; other
    ///   ``CalendarError``s.
    public func delta(in window: DateInterval, deltaLink: String?) async throws -> CalendarChanges {
        try await delta(
            calendar: CalendarInfo(id: "default", name: "default", isPrimary: true),
            window: window,
            deltaLink: deltaLink
        )
    }

    /// One delta round of `calendar`: `/me/calendarView/delta` for the default calendar, otherwise
    /// `/me/calendars/{id}/calendarView/delta`.
    func delta(calendar: CalendarInfo, window: DateInterval, deltaLink: String?) async throws -> CalendarChanges {
        let path =
            calendar.isPrimary
            ? ["me", "calendarView", "delta"] : ["me", "calendars", calendar.id, "calendarView", "delta"]
        var next: URL? =
            try deltaLink.map { try link($0) ?? http.url(path) } ?? http.url(path, query: Self.range(window))
        var result = CalendarChanges(isFullSync: deltaLink == nil)
        var trail = pageTrail("changes")
        while let url = next {
            let page: GraphWire.EventsPage = try await http.json(url, headers: preferHeaders)
            result.add(page: GraphEventMapping.map(page, source: id, calendar: calendar))
            if let nextLink = try link(trail.next(after: page.nextLink)) {
                next = nextLink
                continue
            }
            guard let delta = GoogleCalendarClient.nonEmpty(page.deltaLink), try link(delta) != nil else {
                throw CalendarError.api.with(message: "The last page of a Graph delta round had no @odata.deltaLink")
            }
            result.cursor = delta
            next = nil
        }
        return result
    }

    /// A trail for one listing, bounded by ``Configuration/maximumPages``.
    private func pageTrail(_ listing: String) -> PageTrail {
        PageTrail(
            source: id,
            api: "Microsoft Graph",
            listing: listing,
            marker: "@odata.nextLink",
            limit: configuration.maximumPages
        )
    }

    private func link(_ text: String?) throws -> URL? {
        guard let text = GoogleCalendarClient.nonEmpty(text) else { return nil }
        guard let url = URL(string: text), http.isSameOrigin(url) else {
            throw CalendarError.api.with(
                message: "A Graph paging link led away from \(configuration.baseURL.host ?? "the API"); not followed"
            )
        }
        return url
    }

    private static func range(_ window: DateInterval) -> [(String, String)] {
        [
            ("startDateTime", DateParsing.rfc3339String(window.start)),
            ("endDateTime", DateParsing.rfc3339String(window.end)),
        ]
    }

    /// Syncs the selected calendars, each by its own delta round; see the type's discussion.
    /// - Parameters:
    ///   - state: The state of the last successful sync.
    ///   - window: The events wanted.
    ///   - calendars: The calendars; `nil` for the default calendar.
    /// - Returns: The new state and what happened.
    /// - Throws: ``CalendarError``.
    public func sync(
        from state: CalendarSyncState,
        window: DateInterval,
        calendars selection: Set<String>?
    ) async throws -> CalendarSyncOutcome {
        try await sync(from: state, window: window, selection: CalendarSelection(selection))
    }

    /// Syncs the calendars `selection` takes, each by its own delta round; see the type's discussion.
    ///
    /// A chosen calendar that is gone — no longer in `GET /me/calendars`, or answering `404` or `403` while the
    /// list could be read (a calendar no longer shared can stay listed) — is listed in
    /// ``CalendarSyncOutcome/unavailable`` by its last known name, and the others are read. An expired delta link
    /// (`410 Gone`, `syncStateNotFound`, `resyncRequired`) resyncs that calendar only.
    /// - Parameters:
    ///   - state: The state of the last successful sync.
    ///   - window: The events wanted.
    ///   - selection: The calendars to read.
    /// - Returns: The new state and what happened.
    /// - Throws: ``CalendarError`` when the calendar list, or a calendar for another reason than being gone,
    ///   could not be read.
    public func sync(
        from state: CalendarSyncState,
        window: DateInterval,
        selection: CalendarSelection
    ) async throws -> CalendarSyncOutcome {
        try await sync(from: state, window: window, selection: selection, available: try await calendars())
    }

    /// ``sync(from:window:selection:)`` with the calendar list read already (``calendars()``).
    func sync(
        from state: CalendarSyncState,
        window: DateInterval,
        selection: CalendarSelection,
        available: [CalendarInfo]
    ) async throws -> CalendarSyncOutcome {
        let plan = CalendarReadPlan(selection, available: available, previous: state)
        var outcome = CalendarSyncOutcome(state: CalendarSyncState())
        let byIdentifier = selection.calendarIDs != nil
        for calendar in plan.read {
            var entry = state.calendars[calendar.id] ?? CalendarSyncState.Calendar(info: calendar)
            entry.info = calendar
            let covers = entry.window.map { $0.start <= window.start && $0.end >= window.end } ?? false
            if !covers { entry.cursor = nil }
            let deltaWindow = covers ? entry.window ?? window : padded(window)
            do {
                let (changes, mode) = try await CalendarSyncOutcome.changes(from: entry.cursor) { cursor in
                    try await delta(calendar: calendar, window: deltaWindow, deltaLink: cursor)
                }
                // Delta may replay an event, and reports changes outside the window: keep what overlaps it.
                let utc = TimeZone(identifier: "UTC")!
                outcome.apply(changes, mode: mode, to: entry, window: deltaWindow) {
                    $0.overlaps(deltaWindow, in: utc)
                }
            } catch let error as CalendarError where error.meansCalendarIsGone(statuses: [403, 404]) {
                let gone = UnavailableCalendar(
                    calendar: calendar,
                    httpStatus: error.httpStatus,
                    providerReason: error.providerReason
                )
                outcome.recordUnavailable(gone, keep: true)
            }
        }
        for calendar in plan.missing {
            outcome.recordUnavailable(UnavailableCalendar(calendar: calendar), keep: byIdentifier)
        }
        return outcome
    }

    /// `window` rounded out to whole UTC days, its end moved on by the padding.
    private func padded(_ window: DateInterval) -> DateInterval {
        let day = 86_400.0
        let start = (window.start.timeIntervalSince1970 / day).rounded(.down) * day
        let end =
            (window.end.timeIntervalSince1970 / day).rounded(.up) * day
            + Double(configuration.deltaWindowPadding.components.seconds)
        return DateInterval(start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: end))
    }
}

extension GraphCalendarClient: CalendarSelectionSyncing {}
