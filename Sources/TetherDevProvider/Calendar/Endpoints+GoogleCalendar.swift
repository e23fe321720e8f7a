import Foundation
import Hummingbird

/// Google Calendar API v3 under `/calendar/v3`: `calendarList.list` and `events.list`
/// (https://developers.google.com/calendar/api/v3/reference/events/list), with paging, recurring
/// instances, incremental sync (https://developers.google.com/calendar/api/guides/sync) and the
/// API's errors.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension Endpoints {
    /// Parameters `events.list` refuses together with `syncToken`.
    static let googleSyncExclusive = [
        "iCalUID", "orderBy", "privateExtendedProperty", "q", "sharedExtendedProperty", "timeMin", "timeMax",
        "updatedMin",
    ]

    func registerGoogleCalendar(on router: Router<DevRequestContext>) {
        let api = router.group("calendar/v3")
        api.get("users/me/calendarList") { request, _ in try await self.googleCalendarList(request) }
        api.get("calendars/:calendarId/events") { request, context in
            try await self.googleEvents(request, calendarID: Self.pathParameter(context, "calendarId"))
        }
    }

    /// `GET /calendar/v3/users/me/calendarList`.
    func googleCalendarList(_ request: Request) async throws -> Response {
        let caller = try await self.googleCalendarCaller(request, scopes: CalendarScopes.googleCalendarList)
        let query = FormData(request.uri.query)
        let store = await self.state.calendarStore
        // A calendar no longer shared with the user leaves the list.
        let calendars = store.calendars(of: caller.username).filter { !$0.isUnshared }
        let maxResults = try Self.googleMaxResults(query, default: 100, limit: 250)
        var offset = 0
        if let pageToken = query["pageToken"] {
            guard let page = CalendarToken.googlePage(pageToken) else {
                throw CalendarAPIError.googleInvalid("Invalid page token value.", parameter: "pageToken")
            }
            offset = page.offset
        }
        let page = calendars.dropFirst(offset).prefix(maxResults)
        var body: [String: JSONOutput] = [
            "kind": "calendar#calendarList",
            "etag": .string("\"\(store.sequence)\""),
            "items": .array(page.map { Self.googleCalendarEntry($0) }),
        ]
        if offset + page.count < calendars.count {
            body["nextPageToken"] = .string(
                CalendarToken.encode(CalendarToken.GooglePage(offset: offset + page.count, snapshot: store.sequence))
            )
        }
        return HTTPResponses.json(.object(body))
    }

    static func googleCalendarEntry(_ calendar: StoredCalendar) -> JSONOutput {
        let reminders: JSONOutput = calendar.canEdit ? [["method": "popup", "minutes": 10]] : []
        let colorID: JSONOutput = calendar.isPrimary ? "14" : "1"
        var entry: [String: JSONOutput] = [
            "kind": "calendar#calendarListEntry",
            "etag": .string("\"\(CalendarStore.makeID(calendar.id).prefix(16))\""),
            "id": .string(calendar.id),
            "summary": .string(calendar.isPrimary ? calendar.id : calendar.name),
            "timeZone": .string(calendar.timeZone),
            "colorId": colorID,
            "backgroundColor": .string(calendar.color),
            "foregroundColor": "#000000",
            "accessRole": .string(calendar.accessRole),
            "defaultReminders": reminders,
        ]
        // Both flags are left out when false ("Optional. The default is False.").
        if calendar.isSelected {
            entry["selected"] = true
        }
        if calendar.isPrimary {
            entry["primary"] = true
        }
        return .object(entry)
    }

    static func googleMaxResults(_ query: FormData, default value: Int, limit: Int) throws -> Int {
        guard let text = query["maxResults"] else { return value }
        guard let number = Int(text), number > 0 else {
            throw CalendarAPIError.googleInvalid("Invalid value for maxResults: \(text)", parameter: "maxResults")
        }
        return min(number, limit)
    }

    static func googleBool(_ query: FormData, _ name: String) throws -> Bool? {
        switch query[name] {
        case nil: nil
        case "true": true
        case "false": false
        case let other?:
            throw CalendarAPIError.googleInvalid("Invalid boolean value for \(name): \(other)", parameter: name)
        }
    }

    /// `GET /calendar/v3/calendars/{calendarId}/events`.
    func googleEvents(_ request: Request, calendarID: String) async throws -> Response {
        let caller = try await self.googleCalendarCaller(request, scopes: CalendarScopes.googleEvents)
        let query = FormData(request.uri.query)
        let store = await self.state.calendarStore
        guard let calendar = store.calendar(calendarID, of: caller.username), !calendar.isUnshared else {
            // A deleted calendar is gone; one never seen, or no longer shared, is not found.
            throw store.wasRemoved(calendarID, of: caller.username)
                ? CalendarAPIError.googleDeleted : CalendarAPIError.googleNotFound
        }
        let singleEvents = try Self.googleBool(query, "singleEvents") ?? false
        let showDeleted = try Self.googleBool(query, "showDeleted")
        let maxResults = try Self.googleMaxResults(query, default: 250, limit: 2500)
        let orderBy = query["orderBy"]
        if let orderBy, orderBy != "startTime" && orderBy != "updated" {
            throw CalendarAPIError.googleInvalid("Invalid value for orderBy: \(orderBy)", parameter: "orderBy")
        }
        if orderBy == "startTime" && !singleEvents {
            throw CalendarAPIError.googleInvalid("The requested ordering is not available for the particular query.")
        }
        var timeMin: Date?
        var timeMax: Date?
        for (name, target) in [("timeMin", 0), ("timeMax", 1)] {
            guard let text = query[name] else { continue }
            guard let instant = Self.queryInstant(text) else {
                throw CalendarAPIError.googleInvalid("Bad Request", parameter: name)
            }
            if target == 0 { timeMin = instant } else { timeMax = instant }
        }
        if let timeMin, let timeMax, timeMin >= timeMax {
            throw CalendarAPIError.googleInvalid("The specified time range is empty.", parameter: "timeMax")
        }

        // Incremental sync: only the parameters Google allows with a sync token.
        var since: Int?
        if let syncToken = query["syncToken"] {
            if let conflict = Self.googleSyncExclusive.first(where: { query[$0] != nil }) {
                throw CalendarAPIError.googleInvalid(
                    "Sync token cannot be used with other parameters: \(conflict).",
                    parameter: conflict
                )
            }
            if showDeleted == false {
                throw CalendarAPIError.googleInvalid(
                    "showDeleted=false cannot be used with a sync token; deletions are always included.",
                    parameter: "showDeleted"
                )
            }
            guard let token = CalendarToken.googleSync(syncToken), token.username == caller.username,
                token.calendarID == calendar.id,
                token.generation == store.generation(of: caller.username, calendar: calendar.id),
                token.sequence <= store.sequence
            else {
                throw CalendarAPIError.googleFullSyncRequired
            }
            since = token.sequence
        }
        var snapshot = store.sequence
        var offset = 0
        if let pageToken = query["pageToken"] {
            guard let page = CalendarToken.googlePage(pageToken), page.snapshot <= store.sequence else {
                throw CalendarAPIError.googleInvalid("Invalid page token value.", parameter: "pageToken")
            }
            offset = page.offset
            snapshot = page.snapshot
            since = page.since ?? since
        }

        let items = self.googleItems(
            store: store,
            calendar: calendar,
            caller: caller,
            singleEvents: singleEvents,
            showDeleted: since != nil || showDeleted == true,
            since: since,
            window: (timeMin, timeMax),
            orderBy: orderBy
        )
        let page = items.dropFirst(offset).prefix(maxResults)
        var body: [String: JSONOutput] = [
            "kind": "calendar#events",
            "etag": .string("\"\(snapshot)\""),
            "summary": .string(calendar.isPrimary ? calendar.id : calendar.name),
            "description": "",
            "updated": .string(CalendarTime.rfc3339Milliseconds(store.epoch)),
            "timeZone": .string(calendar.timeZone),
            "accessRole": .string(calendar.accessRole),
            "defaultReminders": [],
            "items": .array(page.map(\.json)),
        ]
        if offset + page.count < items.count {
            let next = CalendarToken.GooglePage(offset: offset + page.count, snapshot: snapshot, since: since)
            body["nextPageToken"] = .string(CalendarToken.encode(next))
        } else {
            let sync = CalendarToken.GoogleSync(
                username: caller.username,
                calendarID: calendar.id,
                generation: store.generation(of: caller.username, calendar: calendar.id),
                sequence: snapshot,
                singleEvents: singleEvents
            )
            body["nextSyncToken"] = .string(CalendarToken.encode(sync))
        }
        return HTTPResponses.json(.object(body))
    }

    private struct GoogleItem {
        let start: Date
        let updated: Date
        let id: String
        let json: JSONOutput
    }

    private func googleItems(
        store: CalendarStore,
        calendar: StoredCalendar,
        caller: CalendarCaller,
        singleEvents: Bool,
        showDeleted: Bool,
        since: Int?,
        window: (min: Date?, max: Date?),
        orderBy: String?
    ) -> [GoogleItem] {
        func inWindow(_ start: Date, _ end: Date) -> Bool {
            // timeMin bounds the end and timeMax the start, both exclusive.
            if let min = window.min, end <= min { return false }
            if let max = window.max, start >= max { return false }
            return true
        }
        func item(_ instance: EventInstance, of stored: StoredEvent) -> GoogleItem {
            GoogleItem(
                start: instance.startInstant,
                updated: stored.updated,
                id: instance.id,
                json: self.googleEvent(instance, calendar: calendar, caller: caller)
            )
        }
        var items: [GoogleItem] = []
        for stored in store.storedEvents(in: calendar) {
            if let since, stored.sequence <= since { continue }
            let instances = CalendarStore.instances(of: stored, in: calendar)
            if singleEvents || stored.event.recurrence == nil {
                for instance in instances where showDeleted || !instance.isCancelled {
                    guard inWindow(instance.startInstant, instance.endInstant) else { continue }
                    items.append(item(instance, of: stored))
                }
                continue
            }
            // A series without `singleEvents`: the master with its `recurrence`, and its exceptions.
            guard let first = instances.first, let last = instances.last,
                inWindow(first.startInstant, last.endInstant), showDeleted || !stored.isDeleted
            else { continue }
            items.append(
                GoogleItem(
                    start: first.startInstant,
                    updated: stored.updated,
                    id: stored.event.id,
                    json: self.googleMaster(stored, first: first, calendar: calendar, caller: caller)
                )
            )
            for instance in instances where instance.isException && !stored.isDeleted {
                items.append(item(instance, of: stored))
            }
        }
        if orderBy == "updated" {
            return items.sorted { ($0.updated, $0.id) < ($1.updated, $1.id) }
        }
        return items.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
    }

    static func googleTime(_ time: DevProvider.CalendarEvent.Time) -> JSONOutput {
        switch time {
        case .date(let day):
            return ["date": .string(day)]
        case .dateTime(let date, let timeZone):
            return [
                "dateTime": .string(CalendarTime.rfc3339(date, in: CalendarTime.zone(timeZone))),
                "timeZone": .string(timeZone),
            ]
        }
    }

    private func googleCommon(
        id: String,
        stored: StoredEvent,
        calendar: StoredCalendar,
        caller: CalendarCaller
    ) -> [String: JSONOutput] {
        let event = stored.event
        let organizer: JSONOutput = [
            "email": .string(calendar.id),
            "displayName": .string(calendar.isPrimary ? caller.name : calendar.name),
            "self": true,
        ]
        var json: [String: JSONOutput] = [
            "kind": "calendar#event",
            "etag": .string("\"\(stored.sequence)\""),
            "id": .string(id),
            "status": .string(event.status.rawValue),
            "htmlLink": .string(self.googleLink(eventID: id, calendarID: calendar.id, caller: caller)),
            "created": .string(CalendarTime.rfc3339Milliseconds(stored.created)),
            "updated": .string(CalendarTime.rfc3339Milliseconds(stored.updated)),
            "summary": .string(event.summary),
            "creator": ["email": .string(caller.email), "self": true],
            "organizer": organizer,
            "iCalUID": .string("\(event.id)@tether.dev"),
            "sequence": 0,
            "eventType": "default",
            "reminders": ["useDefault": true],
        ]
        json["description"] = event.description.map(JSONOutput.string)
        json["location"] = event.location.map(JSONOutput.string)
        return json
    }

    private func googleLink(eventID: String, calendarID: String, caller: CalendarCaller) -> String {
        let eid = Data("\(eventID) \(calendarID)".utf8).base64URLEncodedString()
        return caller.issuer + "/calendar/event?eid=\(eid)"
    }

    /// One event or occurrence; a deleted event or a cancelled occurrence in Google's minimal form.
    private func googleEvent(_ instance: EventInstance, calendar: StoredCalendar, caller: CalendarCaller) -> JSONOutput
    {
        if instance.isRemoved {
            var minimal: [String: JSONOutput] = [
                "kind": "calendar#event",
                "etag": .string("\"\(instance.stored.sequence)\""),
                "id": .string(instance.id),
                "status": "cancelled",
            ]
            if let seriesID = instance.seriesID, let original = instance.originalStart {
                minimal["recurringEventId"] = .string(seriesID)
                minimal["originalStartTime"] = Self.googleTime(original)
            }
            return .object(minimal)
        }
        var json = self.googleCommon(id: instance.id, stored: instance.stored, calendar: calendar, caller: caller)
        json["summary"] = .string(instance.summary)
        json["start"] = Self.googleTime(instance.start)
        json["end"] = Self.googleTime(instance.end)
        if let seriesID = instance.seriesID, let original = instance.originalStart {
            json["recurringEventId"] = .string(seriesID)
            json["originalStartTime"] = Self.googleTime(original)
        }
        return .object(json)
    }

    private func googleMaster(
        _ stored: StoredEvent,
        first: EventInstance,
        calendar: StoredCalendar,
        caller: CalendarCaller
    ) -> JSONOutput {
        if stored.isDeleted {
            return [
                "kind": "calendar#event", "etag": .string("\"\(stored.sequence)\""), "id": .string(stored.event.id),
                "status": "cancelled",
            ]
        }
        var json = self.googleCommon(id: stored.event.id, stored: stored, calendar: calendar, caller: caller)
        json["start"] = Self.googleTime(stored.event.start)
        json["end"] = Self.googleTime(stored.event.end)
        json["recurrence"] = .strings([stored.event.recurrence?.rule ?? ""])
        return .object(json)
    }
}
