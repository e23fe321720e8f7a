import Foundation
import HTTPTypes
import Hummingbird

/// Microsoft Graph v1.0 under `/v1.0`: calendars, `calendarView` and `calendarView/delta`
/// (https://learn.microsoft.com/graph/api/user-list-calendarview,
/// https://learn.microsoft.com/graph/api/event-delta), honouring `Prefer: outlook.timezone`,
/// `outlook.body-content-type` and `odata.maxpagesize`.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension Endpoints {
    static let graphDefaultPageSize = 10
    static let graphMaximumPageSize = 1000
    static let preferenceApplied = HTTPField.Name("Preference-Applied")!
    static let prefer = HTTPField.Name("Prefer")!

    func registerGraphCalendar(on router: Router<DevRequestContext>) {
        let api = router.group("v1.0/me")
        api.get("calendars") { request, _ in try await self.graphCalendars(request) }
        api.get("calendarView") { request, _ in try await self.graphCalendarView(request, calendarID: nil) }
        api.get("calendar/calendarView") { request, _ in try await self.graphCalendarView(request, calendarID: nil) }
        api.get("calendars/:calendarId/calendarView") { request, context in
            try await self.graphCalendarView(request, calendarID: Self.pathParameter(context, "calendarId"))
        }
        api.get("calendarView/delta") { request, _ in try await self.graphDelta(request, calendarID: nil) }
        api.get("calendar/calendarView/delta") { request, _ in try await self.graphDelta(request, calendarID: nil) }
        api.get("calendars/:calendarId/calendarView/delta") { request, context in
            try await self.graphDelta(request, calendarID: Self.pathParameter(context, "calendarId"))
        }
    }

    /// The `Prefer` preferences of a request (RFC 7240), which may be repeated or comma-separated.
    struct GraphPreferences {
        var timeZoneName = "UTC"
        var timeZone = CalendarTime.utc
        var textBody = false
        var maxPageSize: Int?
        var applied: [String] = []

        init(_ request: Request) {
            let values = request.headers[values: Endpoints.prefer].flatMap { $0.split(separator: ",") }
            for value in values {
                let parts = value.split(separator: "=", maxSplits: 1).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                guard parts.count == 2 else { continue }
                let argument = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                switch parts[0].lowercased() {
                case "outlook.timezone":
                    if let zone = Self.zone(argument) {
                        self.timeZoneName = argument
                        self.timeZone = zone
                        self.applied.append(#"outlook.timezone="\#(argument)""#)
                    }
                case "outlook.body-content-type":
                    self.textBody = argument.lowercased() == "text"
                    self.applied.append(#"outlook.body-content-type="\#(argument.lowercased())""#)
                case "odata.maxpagesize":
                    if let size = Int(argument), size > 0 {
                        self.maxPageSize = min(size, Endpoints.graphMaximumPageSize)
                        self.applied.append("odata.maxpagesize=\(self.maxPageSize ?? size)")
                    }
                default:
                    continue
                }
            }
        }

        /// IANA names, and the Windows names of the zones the seeded events use.
        static func zone(_ name: String) -> TimeZone? {
            let windows = [
                "Pacific Standard Time": "America/Los_Angeles",
                "W. Europe Standard Time": "Europe/Berlin",
                "Tokyo Standard Time": "Asia/Tokyo",
                "GMT Standard Time": "Europe/London",
                "China Standard Time": "Asia/Shanghai",
            ]
            return TimeZone(identifier: windows[name] ?? name)
        }

        var headers: HTTPFields {
            var headers = HTTPFields()
            if !self.applied.isEmpty {
                headers[Endpoints.preferenceApplied] = self.applied.joined(separator: ", ")
            }
            return headers
        }
    }

    private static func graphPageSize(_ query: FormData, _ preferences: GraphPreferences, now: Date) throws -> Int {
        if let top = query["$top"] {
            guard let size = Int(top), size > 0 else {
                throw CalendarAPIError.graphInvalid("Invalid value for $top: \(top).", now: now)
            }
            return min(size, Self.graphMaximumPageSize)
        }
        return preferences.maxPageSize ?? Self.graphDefaultPageSize
    }

    private static func graphSkip(_ query: FormData, now: Date) throws -> Int {
        guard let text = query["$skip"] else { return 0 }
        guard let skip = Int(text), skip >= 0 else {
            throw CalendarAPIError.graphInvalid("Invalid value for $skip: \(text).", now: now)
        }
        return skip
    }

    /// `GET /v1.0/me/calendars`.
    func graphCalendars(_ request: Request) async throws -> Response {
        let caller = try await self.graphCalendarCaller(request)
        let now = self.configuration.now()
        let query = FormData(request.uri.query)
        let preferences = GraphPreferences(request)
        let pageSize = try Self.graphPageSize(query, preferences, now: now)
        let skip = try Self.graphSkip(query, now: now)
        let calendars = await self.state.calendarStore.calendars(of: caller.username)
        let page = calendars.dropFirst(skip).prefix(pageSize)
        var body: [String: JSONOutput] = [
            "@odata.context": .string(caller.issuer + "/v1.0/$metadata#users('\(caller.email)')/calendars"),
            "value": .array(
                page.map { calendar -> JSONOutput in
                    [
                        "@odata.id": .string(caller.issuer + "/v1.0/me/calendars/\(calendar.id)"),
                        "id": .string(calendar.id),
                        "name": .string(calendar.name),
                        "color": "auto",
                        "hexColor": .string(calendar.color),
                        "isDefaultCalendar": .bool(calendar.isPrimary),
                        "changeKey": .string(String(CalendarStore.makeID(calendar.id, "key").prefix(16))),
                        // Only the calendar's creator may share it; a shared one names its sharer as owner.
                        "canShare": .bool(calendar.canEdit && calendar.sharedBy == nil),
                        "canViewPrivateItems": .bool(calendar.sharedBy == nil),
                        "canEdit": .bool(calendar.canEdit),
                        "allowedOnlineMeetingProviders": [],
                        "defaultOnlineMeetingProvider": "none",
                        "isTallyingResponses": false,
                        "isRemovable": .bool(!calendar.isPrimary),
                        "owner": calendar.sharedBy.map { sharer -> JSONOutput in
                            ["name": .string(sharer), "address": .string(sharer)]
                        } ?? ["name": .string(caller.name), "address": .string(caller.email)],
                    ]
                }
            ),
        ]
        if skip + page.count < calendars.count {
            body["@odata.nextLink"] = .string(
                FormData.append(
                    [("$top", query["$top"]), ("$skip", String(skip + page.count))],
                    to: caller.issuer + "/v1.0/me/calendars"
                )
            )
        }
        return HTTPResponses.json(.object(body), headers: preferences.headers)
    }

    /// The required `startDateTime` and `endDateTime`; without an offset they are UTC.
    private static func graphWindow(_ query: FormData, now: Date) throws -> (start: Date, end: Date) {
        guard let startText = query["startDateTime"], let endText = query["endDateTime"] else {
            throw CalendarAPIError.graphInvalid(
                "This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.",
                now: now
            )
        }
        guard let start = Self.queryInstant(startText, assumedZone: CalendarTime.utc),
            let end = Self.queryInstant(endText, assumedZone: CalendarTime.utc)
        else {
            throw CalendarAPIError.graphInvalid("The value of StartDateTime or EndDateTime is not valid.", now: now)
        }
        return (start, end)
    }

    /// The occurrences, exceptions and single events of a calendar overlapping a window, by start.
    static func graphInstances(
        store: CalendarStore,
        calendar: StoredCalendar,
        start: Date,
        end: Date,
        changedSince: Int? = nil
    ) -> [EventInstance] {
        store.storedEvents(in: calendar)
            .filter { changedSince == nil || $0.sequence > changedSince! }
            .flatMap { CalendarStore.instances(of: $0, in: calendar) }
            .sorted { ($0.startInstant, $0.id) < ($1.startInstant, $1.id) }
            .filter { changedSince != nil || (!$0.isRemoved && Self.overlaps($0, start, end)) }
    }

    static func overlaps(_ instance: EventInstance, _ start: Date, _ end: Date) -> Bool {
        instance.startInstant < end && instance.endInstant > start
    }

    /// `GET /v1.0/me/calendarView`, `/me/calendar/calendarView`, `/me/calendars/{id}/calendarView`.
    func graphCalendarView(_ request: Request, calendarID: String?) async throws -> Response {
        let caller = try await self.graphCalendarCaller(request)
        let now = self.configuration.now()
        let query = FormData(request.uri.query)
        let preferences = GraphPreferences(request)
        let (start, end) = try Self.graphWindow(query, now: now)
        let pageSize = try Self.graphPageSize(query, preferences, now: now)
        let skip = try Self.graphSkip(query, now: now)
        let store = await self.state.calendarStore
        let calendar = try Self.graphReadable(store, calendarID ?? "primary", of: caller.username, now: now)
        let instances = Self.graphInstances(store: store, calendar: calendar, start: start, end: end)
        let page = instances.dropFirst(skip).prefix(pageSize)
        let path = request.uri.path
        var body: [String: JSONOutput] = [
            "@odata.context": .string(caller.issuer + "/v1.0/$metadata#users('\(caller.email)')/calendarView"),
            "value": .array(
                page.map { self.graphEvent($0, calendar: calendar, caller: caller, preferences: preferences) }
            ),
        ]
        if skip + page.count < instances.count {
            body["@odata.nextLink"] = .string(
                FormData.append(
                    [
                        ("startDateTime", query["startDateTime"]), ("endDateTime", query["endDateTime"]),
                        ("$top", query["$top"]), ("$skip", String(skip + page.count)),
                    ],
                    to: caller.issuer + path
                )
            )
        }
        return HTTPResponses.json(.object(body), headers: preferences.headers)
    }

    /// A calendar the user may read: unknown or removed is `404 ErrorItemNotFound`, no longer shared
    /// `403 ErrorAccessDenied` (the list still has it).
    static func graphReadable(
        _ store: CalendarStore,
        _ calendarID: String,
        of username: String,
        now: Date
    ) throws -> StoredCalendar {
        guard let calendar = store.calendar(calendarID, of: username) else {
            throw CalendarAPIError.graphNotFound(now: now)
        }
        guard !calendar.isUnshared else { throw CalendarAPIError.graphAccessDenied(now: now) }
        return calendar
    }

    /// `GET /v1.0/me/calendarView/delta` (the default calendar) and
    /// `/v1.0/me/calendars/{id}/calendarView/delta`: the first round with `startDateTime`/`endDateTime`,
    /// then `$skiptoken` pages, ending with `@odata.deltaLink` (`$deltatoken`) for the next round. Each
    /// calendar has its own rounds; a token of one calendar is refused by another.
    func graphDelta(_ request: Request, calendarID: String?) async throws -> Response {
        let caller = try await self.graphCalendarCaller(request)
        let now = self.configuration.now()
        let query = FormData(request.uri.query)
        let preferences = GraphPreferences(request)
        let store = await self.state.calendarStore
        let calendar = try Self.graphReadable(store, calendarID ?? "primary", of: caller.username, now: now)
        let generation = store.generation(of: caller.username, calendar: calendar.id)
        let pageSize = preferences.maxPageSize ?? Self.graphDefaultPageSize
        let base = caller.issuer + request.uri.path

        var state: CalendarToken.GraphDelta
        if let tokenText = query["$skiptoken"] ?? query["$deltatoken"] {
            let kind = query["$skiptoken"] != nil ? CalendarToken.skipKind : CalendarToken.deltaKind
            let decoded = CalendarToken.graphDelta(tokenText, kind: kind)
            guard let token = decoded, token.username == caller.username, token.calendarID == calendar.id,
                token.generation == generation, token.snapshot <= store.sequence
            else {
                let restart = decoded.map { token in
                    FormData.append(
                        [
                            (
                                "startDateTime",
                                CalendarTime.utcSeconds(Date(timeIntervalSince1970: Double(token.start)))
                            ),
                            ("endDateTime", CalendarTime.utcSeconds(Date(timeIntervalSince1970: Double(token.end)))),
                        ],
                        to: base
                    )
                }
                throw CalendarAPIError.graphSyncStateNotFound(restart: restart, now: now)
            }
            state = token
            if kind == CalendarToken.deltaKind {
                // A new round: changes after the last round's snapshot, up to now.
                state.since = token.snapshot
                state.snapshot = store.sequence
                state.offset = 0
            }
            state.pageSize = preferences.maxPageSize ?? token.pageSize
        } else {
            let (start, end) = try Self.graphWindow(query, now: now)
            state = CalendarToken.GraphDelta(
                username: caller.username,
                calendarID: calendar.id,
                generation: generation,
                start: Int(start.timeIntervalSince1970.rounded(.down)),
                end: Int(end.timeIntervalSince1970.rounded(.up)),
                since: nil,
                snapshot: store.sequence,
                offset: 0,
                pageSize: pageSize
            )
        }

        let start = Date(timeIntervalSince1970: Double(state.start))
        let end = Date(timeIntervalSince1970: Double(state.end))
        let instances = Self.graphInstances(
            store: store,
            calendar: calendar,
            start: start,
            end: end,
            changedSince: state.since
        )
        // Changes after the round's snapshot wait for the next round.
        .filter { $0.stored.sequence <= state.snapshot }
        let page = instances.dropFirst(state.offset).prefix(state.pageSize)
        let items: [JSONOutput] = page.map { instance in
            if instance.isRemoved || !Self.overlaps(instance, start, end) {
                return [
                    "@odata.type": "#microsoft.graph.event",
                    "id": .string(instance.id),
                    "@removed": ["reason": "deleted"],
                ]
            }
            return self.graphEvent(instance, calendar: calendar, caller: caller, preferences: preferences)
        }
        var body: [String: JSONOutput] = [
            "@odata.context": .string(caller.issuer + "/v1.0/$metadata#Collection(event)"),
            "value": .array(items),
        ]
        if state.offset + page.count < instances.count {
            var next = state
            next.offset += page.count
            body["@odata.nextLink"] = .string(
                FormData.append([("$skiptoken", CalendarToken.encode(next, kind: CalendarToken.skipKind))], to: base)
            )
        } else {
            var next = state
            next.offset = 0
            body["@odata.deltaLink"] = .string(
                FormData.append([("$deltatoken", CalendarToken.encode(next, kind: CalendarToken.deltaKind))], to: base)
            )
        }
        return HTTPResponses.json(.object(body), headers: preferences.headers)
    }

    /// A time as Graph's `dateTimeTimeZone`: local time without offset in the preferred zone;
    /// all-day dates stay midnight of their date, never shifted.
    static func graphTime(_ time: DevProvider.CalendarEvent.Time, _ preferences: GraphPreferences) -> JSONOutput {
        switch time {
        case .date(let day):
            return ["dateTime": .string(day + "T00:00:00.0000000"), "timeZone": .string(preferences.timeZoneName)]
        case .dateTime(let date, _):
            return [
                "dateTime": .string(CalendarTime.graphLocal(date, in: preferences.timeZone)),
                "timeZone": .string(preferences.timeZoneName),
            ]
        }
    }

    static func html(_ text: String) -> String {
        let escaped =
            text
            .replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\n", with: "<br>\r\n")
        return "<html>\r\n<head>\r\n<meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\">\r\n"
            + "</head>\r\n<body>\r\n<div>\(escaped)</div>\r\n</body>\r\n</html>\r\n"
    }

    func graphEvent(
        _ instance: EventInstance,
        calendar: StoredCalendar,
        caller: CalendarCaller,
        preferences: GraphPreferences
    ) -> JSONOutput {
        let event = instance.event
        let stored = instance.stored
        let type =
            instance.seriesID == nil ? "singleInstance" : instance.isException ? "exception" : "occurrence"
        let showAs =
            event.status == .tentative ? "tentative" : (event.isAllDay || instance.isCancelled) ? "free" : "busy"
        let description = event.description ?? ""
        let location: JSONOutput = [
            "displayName": .string(event.location ?? ""),
            "locationType": "default",
            "uniqueIdType": "unknown",
            "address": [:],
            "coordinates": [:],
        ]
        let zoneNames: (String, String) =
            switch (event.start, event.end) {
            case (.dateTime(_, let startZone), .dateTime(_, let endZone)): (startZone, endZone)
            default: (calendar.timeZone, calendar.timeZone)
            }
        let body: JSONOutput =
            preferences.textBody
            ? ["contentType": "text", "content": .string(description)]
            : ["contentType": "html", "content": .string(Self.html(description))]
        let json: [String: JSONOutput] = [
            "@odata.etag": .string("W/\"\(stored.sequence)\""),
            "id": .string(instance.id),
            "createdDateTime": .string(CalendarTime.rfc3339Milliseconds(stored.created)),
            "lastModifiedDateTime": .string(CalendarTime.rfc3339Milliseconds(stored.updated)),
            "changeKey": .string(String(stored.sequence)),
            "categories": [],
            "transactionId": .null,
            "originalStartTimeZone": .string(zoneNames.0),
            "originalEndTimeZone": .string(zoneNames.1),
            // Graph's `iCalUId` differs per occurrence; `uid` is the series' (event resource, Graph v1.0).
            "iCalUId": .string("040000008200E00074C5B7101A82E008" + CalendarStore.makeID(instance.id).uppercased()),
            "uid": .string("040000008200E00074C5B7101A82E008" + CalendarStore.makeID(event.id).uppercased()),
            "reminderMinutesBeforeStart": 15,
            "isReminderOn": .bool(!event.isAllDay),
            "hasAttachments": false,
            "subject": .string(instance.summary),
            "bodyPreview": .string(String(description.prefix(255))),
            "importance": "normal",
            "sensitivity": "normal",
            "isAllDay": .bool(event.isAllDay),
            "isCancelled": .bool(instance.isCancelled),
            "isOrganizer": true,
            "responseRequested": true,
            "seriesMasterId": instance.seriesID.map(JSONOutput.string) ?? .null,
            "showAs": .string(showAs),
            "type": .string(type),
            "webLink": .string(
                caller.issuer + "/owa/?itemid=\(FormData.encode(instance.id))&exvsurl=1&path=/calendar/item"
            ),
            "onlineMeetingUrl": .null,
            "isOnlineMeeting": false,
            "onlineMeetingProvider": "unknown",
            "allowNewTimeProposals": true,
            "isDraft": false,
            "hideAttendees": false,
            "responseStatus": ["response": "organizer", "time": "0001-01-01T00:00:00Z"],
            "body": body,
            "start": Self.graphTime(instance.start, preferences),
            "end": Self.graphTime(instance.end, preferences),
            "location": location,
            "locations": .array(event.location == nil ? [] : [location]),
            "recurrence": .null,
            "attendees": [],
            "organizer": ["emailAddress": ["name": .string(caller.name), "address": .string(caller.email)]],
            "onlineMeeting": .null,
        ]
        return .object(json)
    }
}
