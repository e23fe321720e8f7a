public import Foundation
import HTTPTypes
public import Logging
public import Tether

/// Reads Google Calendar API v3 through an ``Tether/AuthorizedClient``: the calendar list, events in a range, and
/// incremental sync with sync tokens.
///
/// ```swift
/// let google = GoogleCalendarClient(session: session, transport: URLSessionTransport())
/// let batch = try await google.events(calendarID: "primary", in: DateInterval(start: from, end: to))
/// ```
///
/// - Requests carry a bearer token from the session, refreshed before expiry; a `401` refreshes once and
///   retries once.
/// - Rate limits — `403` with `rateLimitExceeded` or `userRateLimitExceeded`, and `429` — are retried with
///   bounded exponential backoff on the injected clock, honouring `Retry-After` ("Handle API errors",
///   <https://developers.google.com/calendar/api/guides/errors>). Any other `403` is
///   ``CalendarError/accessDenied`` (the calendar scope was not granted).
/// - Malformed events are skipped and listed in the result; they never fail the read.
/// - A listing that gives a page token it gave before, or more than ``Configuration/maximumPages`` pages, fails
///   with ``CalendarError/api`` naming the source.
///
/// As a ``CalendarSource`` it syncs each selected calendar with a sync token ("Synchronize resources
/// efficiently", <https://developers.google.com/calendar/api/guides/sync>): the first sync reads the calendar
/// without a time range (Google does not accept `timeMin`/`timeMax` with a sync token), later ones read the
/// changes, deleted events arrive as `cancelled` and are removed, and `410 Gone` drops that calendar's token and
/// syncs it in full. The window only selects which of the kept events a caller sees.
///
/// By default it reads the primary calendar and those the calendar list marks `selected` (shown in Google
/// Calendar); ``sync(from:window:selection:)`` reads every calendar or the ones named instead (see
/// <doc:ChoosingCalendars>). A chosen calendar that is gone is reported, by name, and the others are read.
public struct GoogleCalendarClient: CalendarSource {
    /// Where and how the client reads.
    public struct Configuration: Sendable {
        /// The API's base URL; `https://www.googleapis.com/calendar/v3` by default. Point it at the development
        /// provider or any compatible server.
        public var baseURL: URL
        /// `maxResults` per page: 250 by default (Google's default; at most 2,500). Pages of a few hundred events
        /// stay within a transport's response size limit.
        public var pageSize: Int
        /// Backoff for rate limits and server errors; ``Tether/Backoff/calendar`` by default.
        public var retry: Backoff
        /// The most pages one listing may have — the calendar list, one calendar's events, one sync-token round:
        /// 2,000 by default (500,000 events at the default page size). A listing that would go on, or that gives
        /// a page token it gave before, fails with ``CalendarError/api`` instead of being read forever.
        public var maximumPages: Int

        /// Google Calendar API v3.
        public static let defaultBaseURL = URL(string: "https://www.googleapis.com/calendar/v3")!

        /// Creates a configuration.
        /// - Parameters:
        ///   - baseURL: The API's base URL.
        ///   - pageSize: Events per page, 1–2,500.
        ///   - retry: Backoff for rate limits and server errors.
        ///   - maximumPages: The most pages one listing may have; at least 1.
        public init(
            baseURL: URL = defaultBaseURL,
            pageSize: Int = 250,
            retry: Backoff = .calendar,
            maximumPages: Int = 2_000
        ) {
            self.baseURL = baseURL
            self.pageSize = min(max(pageSize, 1), 2_500)
            self.retry = retry
            self.maximumPages = max(maximumPages, 1)
        }
    }

    /// The source's name; the session's connection identifier by default.
    public let id: CalendarSourceID
    /// ``CalendarSourceKind/google``.
    public var kind: CalendarSourceKind { .google }

    private let session: Session
    private let http: CalendarHTTP
    private let configuration: Configuration

    /// Creates a client.
    /// - Parameters:
    ///   - session: The signed-in connection; its scopes must include a calendar scope such as
    ///     `https://www.googleapis.com/auth/calendar.readonly`.
    ///   - transport: How requests are sent.
    ///   - id: The source's name; the session's identifier by default.
    ///   - configuration: Base URL, page size, backoff.
    ///   - clock: The clock backoff sleeps on.
    ///   - logger: Where requests are logged at debug level: method, host and path, status — never a query,
    ///     header or event.
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

    /// Lists the user's calendars (`GET /users/me/calendarList`), following `nextPageToken`: every entry of the
    /// calendar list but those the user hid from it (Google leaves them out unless `showHidden` is set).
    ///
    /// Each ``CalendarInfo`` carries the entry's `primary`, `selected` (absent means not shown, "The default is
    /// False"), `accessRole` (``CalendarInfo/canEdit`` for `writer` and `owner`), `backgroundColor` and `timeZone`
    /// ("CalendarList resource", <https://developers.google.com/calendar/api/v3/reference/calendarList>).
    /// - Returns: The calendars.
    /// - Throws: ``CalendarError``.
    public func calendars() async throws -> [CalendarInfo] {
        var result: [CalendarInfo] = []
        var pageToken: String?
        var trail = pageTrail("calendars")
        repeat {
            var query = [("maxResults", "250")]
            if let pageToken { query.append(("pageToken", pageToken)) }
            let page: GoogleWire.CalendarListPage = try await http.json(
                http.url(["users", "me", "calendarList"], query: query)
            )
            result += (page.items ?? []).map(Self.info)
            pageToken = try trail.next(after: page.nextPageToken)
        } while pageToken != nil
        return result
    }

    /// A calendar list entry as the library describes a calendar.
    static func info(_ entry: GoogleWire.CalendarListEntry) -> CalendarInfo {
        var info = CalendarInfo(
            id: entry.id,
            name: nonEmpty(entry.summaryOverride) ?? nonEmpty(entry.summary) ?? entry.id,
            isPrimary: entry.primary ?? false,
            isSelectedByDefault: entry.selected ?? false
        )
        info.accessRole = nonEmpty(entry.accessRole)
        info.canEdit = info.accessRole.map { ["writer", "owner"].contains($0) }
        info.color = nonEmpty(entry.backgroundColor)
        info.timeZone = nonEmpty(entry.timeZone)
        return info
    }

    /// Reads the events of one calendar that overlap `window` (`timeMin` is compared with an event's end,
    /// `timeMax` with its start), recurring events expanded into instances (`singleEvents=true`), in order of
    /// start (`orderBy=startTime`), following `nextPageToken`.
    /// - Parameters:
    ///   - calendar: The calendar; `primary` is the account's main calendar.
    ///   - window: The range.
    /// - Returns: The events and the skipped ones.
    /// - Throws: ``CalendarError``.
    public func events(
        calendarID calendar: String = "primary",
        in window: DateInterval
    ) async throws
        -> CalendarEventBatch
    {
        try await events(calendar: CalendarInfo(id: calendar, name: calendar), in: window)
    }

    func events(calendar: CalendarInfo, in window: DateInterval) async throws -> CalendarEventBatch {
        let base: [(String, String)] = [
            ("timeMin", DateParsing.rfc3339String(window.start)),
            ("timeMax", DateParsing.rfc3339String(window.end)),
            ("singleEvents", "true"),
            ("orderBy", "startTime"),
            ("maxResults", String(configuration.pageSize)),
        ]
        var batch = CalendarEventBatch.empty
        var pageToken: String?
        var trail = pageTrail("events")
        repeat {
            let page = try await eventsPage(calendar.id, query: base + (pageToken.map { [("pageToken", $0)] } ?? []))
            batch.add(page: GoogleEventMapping.map(page, source: id, calendar: calendar))
            pageToken = try trail.next(after: page.nextPageToken)
        } while pageToken != nil
        return batch
    }

    /// Reads one calendar's changes since `syncToken`, or all of it when `syncToken` is `nil`, following
    /// `nextPageToken` to the page that carries `nextSyncToken`.
    ///
    /// With a token, only the parameters Google allows are sent (no `timeMin`, `timeMax`, `orderBy` or
    /// `showDeleted=false`; `singleEvents` as in the first sync); deletions arrive as `cancelled` items and are
    /// listed in ``CalendarChanges/removedIDs``.
    /// - Parameters:
    ///   - calendar: The calendar.
    ///   - syncToken: The `nextSyncToken` of the last sync, or `nil`.
    /// - Returns: The changes and the next sync token.
    /// - Throws: ``CalendarError/syncStateExpired`` when Google answers `410 Gone` (drop the token and call
    ///   again without one); other ``CalendarError``s.
    public func changes(calendarID calendar: String, syncToken: String?) async throws -> CalendarChanges {
        try await changes(calendar: CalendarInfo(id: calendar, name: calendar), syncToken: syncToken)
    }

    func changes(calendar: CalendarInfo, syncToken: String?) async throws -> CalendarChanges {
        var base: [(String, String)] = [("singleEvents", "true"), ("maxResults", String(configuration.pageSize))]
        if let syncToken { base.append(("syncToken", syncToken)) }
        var result = CalendarChanges(isFullSync: syncToken == nil)
        var pageToken: String?
        var trail = pageTrail("changes")
        while true {
            let page = try await eventsPage(calendar.id, query: base + (pageToken.map { [("pageToken", $0)] } ?? []))
            result.add(page: GoogleEventMapping.map(page, source: id, calendar: calendar))
            if let next = try trail.next(after: page.nextPageToken) {
                pageToken = next
                continue
            }
            guard let token = Self.nonEmpty(page.nextSyncToken) else {
                throw CalendarError.api.with(message: "The last page of a Google events list had no nextSyncToken")
            }
            result.cursor = token
            return result
        }
    }

    /// A trail for one listing, bounded by ``Configuration/maximumPages``.
    private func pageTrail(_ listing: String) -> PageTrail {
        PageTrail(
            source: id,
            api: "Google Calendar",
            listing: listing,
            marker: "page token",
            limit: configuration.maximumPages
        )
    }

    private func eventsPage(_ calendarID: String, query: [(String, String)]) async throws -> GoogleWire.EventsPage {
        try await http.json(http.url(["calendars", calendarID, "events"], query: query))
    }

    /// Syncs each selected calendar with its sync token; see the type's discussion.
    /// - Parameters:
    ///   - state: The state of the last successful sync.
    ///   - window: The events wanted (Google's sync is not bound to it).
    ///   - calendars: The calendars; `nil` for the primary calendar and those marked `selected`.
    /// - Returns: The new state and what happened.
    /// - Throws: ``CalendarError``.
    public func sync(
        from state: CalendarSyncState,
        window: DateInterval,
        calendars selection: Set<String>?
    ) async throws -> CalendarSyncOutcome {
        try await sync(from: state, window: window, selection: CalendarSelection(selection))
    }

    /// Syncs the calendars `selection` takes, each with its own sync token; see the type's discussion.
    ///
    /// A chosen calendar that is gone — no longer in the calendar list, or answering `404` or `410 Gone` (other
    /// than an expired sync token) — is listed in ``CalendarSyncOutcome/unavailable`` by its last known name, and
    /// the others are read. An expired sync token (`410 fullSyncRequired`) resyncs that calendar only.
    /// - Parameters:
    ///   - state: The state of the last successful sync.
    ///   - window: The events wanted (Google's sync is not bound to it).
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
            do {
                let (changes, mode) = try await CalendarSyncOutcome.changes(from: entry.cursor) { cursor in
                    try await self.changes(calendar: calendar, syncToken: cursor)
                }
                outcome.apply(changes, mode: mode, to: entry, window: nil)
            } catch let error as CalendarError where error.meansCalendarIsGone(statuses: [404, 410]) {
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

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}

extension GoogleCalendarClient: CalendarSelectionSyncing {}
