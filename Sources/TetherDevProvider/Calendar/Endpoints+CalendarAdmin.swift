import Foundation
import HTTPTypes
import Hummingbird

/// `/admin/calendar/...`: add, change and delete events, generate many, invalidate sync tokens,
/// reseed. Guarded by the admin key like the rest of `/admin`.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension Endpoints {
    /// A time as Google's `EventDateTime` (`{"dateTime", "timeZone"}` or `{"date"}`), or an RFC 3339 string.
    private struct AdminTime: Decodable {
        let dateTime: String?
        let timeZone: String?
        let date: String?

        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                self.dateTime = text
                self.timeZone = nil
                self.date = nil
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.dateTime = try container.decodeIfPresent(String.self, forKey: .dateTime)
            self.timeZone = try container.decodeIfPresent(String.self, forKey: .timeZone)
            self.date = try container.decodeIfPresent(String.self, forKey: .date)
        }

        enum CodingKeys: String, CodingKey {
            case dateTime, timeZone, date
        }

        func time(defaultZone: String) -> DevProvider.CalendarEvent.Time? {
            if let date {
                return CalendarTime.midnight(date, in: CalendarTime.utc) == nil ? nil : .date(date)
            }
            guard let dateTime, let instant = CalendarTime.parse(dateTime) else { return nil }
            let zone = self.timeZone ?? defaultZone
            return TimeZone(identifier: zone) == nil ? nil : .dateTime(instant, timeZone: zone)
        }
    }

    private struct AdminRecurrence: Decodable {
        let intervalDays: Int?
        let count: Int

        enum CodingKeys: String, CodingKey {
            case intervalDays = "interval_days"
            case count
        }
    }

    private struct AdminEvent: Decodable {
        let username: String?
        let calendar: String?
        let id: String?
        let summary: String?
        let description: String?
        let location: String?
        let start: AdminTime?
        let end: AdminTime?
        let status: String?
        let recurrence: AdminRecurrence?
    }

    private struct AdminGenerate: Decodable {
        let username: String
        let calendar: String?
        let count: Int
        let start: String?
        let intervalMinutes: Int?

        enum CodingKeys: String, CodingKey {
            case username, calendar, count, start
            case intervalMinutes = "interval_minutes"
        }
    }

    private struct AdminUser: Decodable {
        let username: String?
        let calendar: String?
    }

    private struct AdminCalendar: Decodable {
        let username: String
        let name: String
        let timeZone: String?
        let sharedBy: String?
        let canEdit: Bool?
        let selected: Bool?

        enum CodingKeys: String, CodingKey {
            case username, name, selected
            case timeZone = "time_zone"
            case sharedBy = "shared_by"
            case canEdit = "can_edit"
        }
    }

    private struct AdminCalendarChange: Decodable {
        let username: String
        let calendar: String
    }

    private struct AdminEpoch: Decodable {
        let epoch: String?
    }

    private static func adminFailure(_ message: String, status: HTTPResponse.Status = .badRequest) -> OAuthErrorResponse
    {
        OAuthErrorResponse(status: status, body: ["error": "invalid_request", "error_description": .string(message)])
    }

    /// An optional RFC 3339 instant of an admin body; other text is an admin failure naming the field.
    private static func instant(_ text: String?, field: String) throws -> Date? {
        guard let text else { return nil }
        guard let instant = CalendarTime.parse(text) else {
            throw adminFailure("\(field) must be an RFC 3339 instant.")
        }
        return instant
    }

    func registerCalendarAdmin(on admin: RouterGroup<DevRequestContext>, api: DevProvider.Admin) {
        admin.get("calendar") { _, _ in
            let store = await self.state.calendarStore
            var users: [String: JSONOutput] = [:]
            for (username, calendars) in store.calendars {
                users[username] = .array(
                    calendars.map { calendar -> JSONOutput in
                        [
                            "id": .string(calendar.id),
                            "name": .string(calendar.name),
                            "timeZone": .string(calendar.timeZone),
                            "primary": .bool(calendar.isPrimary),
                            "selected": .bool(calendar.isSelected),
                            "canEdit": .bool(calendar.canEdit),
                            "sharedBy": calendar.sharedBy.map(JSONOutput.string) ?? .null,
                            "unshared": .bool(calendar.isUnshared),
                            "events": .int(store.storedEvents(in: calendar).filter { !$0.isDeleted }.count),
                        ]
                    }
                )
            }
            return HTTPResponses.json([
                "epoch": .string(CalendarTime.utcSeconds(store.epoch)),
                "sequence": .int(store.sequence),
                "users": .object(users),
            ])
        }
        admin.post("calendar/events") { request, _ in
            let body = try await self.jsonBody(AdminEvent.self, from: request)
            guard let username = body.username, let summary = body.summary, let start = body.start,
                let end = body.end
            else {
                throw Self.adminFailure("username, summary, start and end are required.")
            }
            let store = await self.state.calendarStore
            guard let calendar = store.calendar(body.calendar ?? "primary", of: username) else {
                throw Self.adminFailure("Unknown calendar.", status: .notFound)
            }
            guard let startTime = start.time(defaultZone: calendar.timeZone),
                let endTime = end.time(defaultZone: calendar.timeZone)
            else {
                throw Self.adminFailure("start and end must be RFC 3339 instants or {\"date\": \"yyyy-MM-dd\"}.")
            }
            var event = DevProvider.CalendarEvent(
                id: body.id ?? "",
                summary: summary,
                description: body.description,
                location: body.location,
                start: startTime,
                end: endTime,
                status: body.status.map(DevProvider.CalendarEvent.Status.init) ?? .confirmed
            )
            if let recurrence = body.recurrence {
                event.recurrence = .init(intervalDays: recurrence.intervalDays ?? 7, count: recurrence.count)
            }
            do {
                let added = try await api.addCalendarEvent(event, user: username, calendar: calendar.id)
                return HTTPResponses.json(Self.adminJSON(added, calendarID: calendar.id), status: .created)
            } catch {
                throw Self.adminFailure("\(error)")
            }
        }
        admin.patch("calendar/events/:id") { request, context in
            let id = Self.pathParameter(context, "id")
            let body = try await self.jsonBody(AdminEvent.self, from: request)
            let store = await self.state.calendarStore
            guard let stored = store.events[id], !stored.isDeleted,
                let calendar = store.calendar(stored.calendarID, of: stored.username)
            else {
                throw Self.adminFailure("Unknown event.", status: .notFound)
            }
            let startTime = body.start.flatMap { $0.time(defaultZone: calendar.timeZone) }
            let endTime = body.end.flatMap { $0.time(defaultZone: calendar.timeZone) }
            if (body.start != nil && startTime == nil) || (body.end != nil && endTime == nil) {
                throw Self.adminFailure("start and end must be RFC 3339 instants or {\"date\": \"yyyy-MM-dd\"}.")
            }
            let recurrence = body.recurrence
            do {
                let changed = try await api.updateCalendarEvent(id: id) { event in
                    if let summary = body.summary { event.summary = summary }
                    if let description = body.description { event.description = description }
                    if let location = body.location { event.location = location }
                    if let startTime { event.start = startTime }
                    if let endTime { event.end = endTime }
                    if let status = body.status { event.status = .init(status) }
                    if let recurrence {
                        event.recurrence = .init(intervalDays: recurrence.intervalDays ?? 7, count: recurrence.count)
                    }
                }
                return HTTPResponses.json(Self.adminJSON(changed, calendarID: calendar.id))
            } catch {
                throw Self.adminFailure("\(error)")
            }
        }
        admin.delete("calendar/events/:id") { _, context in
            let id = Self.pathParameter(context, "id")
            do {
                try await api.deleteCalendarEvent(id: id)
            } catch {
                throw Self.adminFailure("Unknown event.", status: .notFound)
            }
            return HTTPResponses.json(["deleted": .string(id)])
        }
        admin.post("calendar/generate") { request, _ in
            let body = try await self.jsonBody(AdminGenerate.self, from: request)
            let start = try Self.instant(body.start, field: "start")
            do {
                let count = try await api.generateCalendarEvents(
                    body.count,
                    user: body.username,
                    calendar: body.calendar ?? "primary",
                    start: start,
                    interval: .seconds(60 * (body.intervalMinutes ?? 30))
                )
                return HTTPResponses.json(["generated": .int(count)])
            } catch {
                throw Self.adminFailure("\(error)")
            }
        }
        admin.post("calendar/invalidate-sync") { request, _ in
            let body = try await self.jsonBody(AdminUser.self, from: request)
            guard let calendar = body.calendar else {
                await api.invalidateCalendarSyncTokens(ofUser: body.username)
                return HTTPResponses.json(["invalidated": .string(body.username ?? "*")])
            }
            guard let username = body.username else { throw Self.adminFailure("calendar needs username.") }
            do {
                try await api.invalidateCalendarSyncTokens(ofUser: username, calendar: calendar)
            } catch {
                throw Self.adminFailure("Unknown calendar.", status: .notFound)
            }
            return HTTPResponses.json(["invalidated": .string(username), "calendar": .string(calendar)])
        }
        admin.post("calendar/calendars") { request, _ in
            let body = try await self.jsonBody(AdminCalendar.self, from: request)
            if let zone = body.timeZone, TimeZone(identifier: zone) == nil {
                throw Self.adminFailure("time_zone must be an IANA time zone.")
            }
            // Every configured user has a primary calendar.
            guard await self.state.calendarStore.calendar("primary", of: body.username) != nil else {
                throw Self.adminFailure("Unknown user.", status: .notFound)
            }
            let id = await api.addCalendar(
                named: body.name,
                user: body.username,
                timeZone: body.timeZone ?? "UTC",
                sharedBy: body.sharedBy,
                canEdit: body.canEdit ?? true,
                selected: body.selected ?? true
            )
            return HTTPResponses.json(["id": .string(id), "name": .string(body.name)], status: .created)
        }
        admin.post("calendar/calendars/remove") { request, _ in
            let body = try await self.jsonBody(AdminCalendarChange.self, from: request)
            do {
                try await api.removeCalendar(body.calendar, user: body.username)
            } catch {
                throw Self.adminFailure("\(error)", status: .notFound)
            }
            return HTTPResponses.json(["removed": .string(body.calendar)])
        }
        admin.post("calendar/calendars/unshare") { request, _ in
            let body = try await self.jsonBody(AdminCalendarChange.self, from: request)
            do {
                try await api.unshareCalendar(body.calendar, user: body.username)
            } catch {
                throw Self.adminFailure("\(error)", status: .notFound)
            }
            return HTTPResponses.json(["unshared": .string(body.calendar)])
        }
        admin.post("calendar/reset") { request, _ in
            let body = try await self.jsonBody(AdminEpoch.self, from: request)
            let epoch = try Self.instant(body.epoch, field: "epoch")
            await api.resetCalendars(epoch: epoch)
            return HTTPResponses.json(["epoch": .string(CalendarTime.utcSeconds(await api.calendarEpoch()))])
        }
    }

    private static func adminJSON(_ event: DevProvider.CalendarEvent, calendarID: String) -> JSONOutput {
        var json: [String: JSONOutput] = [
            "id": .string(event.id),
            "calendar": .string(calendarID),
            "summary": .string(event.summary),
            "start": Self.googleTime(event.start),
            "end": Self.googleTime(event.end),
            "status": .string(event.status.rawValue),
        ]
        json["description"] = event.description.map(JSONOutput.string)
        json["location"] = event.location.map(JSONOutput.string)
        if let recurrence = event.recurrence {
            json["recurrence"] = .strings([recurrence.rule])
        }
        return .object(json)
    }
}
