import Foundation

/// The deterministic calendars and events every user starts with. Times are relative to the
/// store's epoch (a Monday, 00:00 UTC): day 0 is that Monday.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
enum CalendarSeed {
    typealias Event = DevProvider.CalendarEvent

    private struct Builder {
        let epoch: Date
        let username: String
        let email: String

        /// Local wall-clock time `hour:minute` on day `day` (relative to the epoch's date) in `zone`.
        func at(_ day: Int, _ hour: Int, _ minute: Int = 0, _ zone: String) -> Event.Time {
            .dateTime(self.instant(day, hour, minute, zone), timeZone: zone)
        }

        func instant(_ day: Int, _ hour: Int, _ minute: Int, _ zone: String) -> Date {
            let date = CalendarTime.addDays(day, to: CalendarTime.day(self.epoch, in: CalendarTime.utc))
            let parts = date.split(separator: "-").compactMap { Int($0) }
            let components = DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: hour, minute: minute)
            return CalendarTime.calendar(CalendarTime.zone(zone)).date(from: components) ?? self.epoch
        }

        func date(_ day: Int) -> Event.Time {
            .date(CalendarTime.addDays(day, to: CalendarTime.day(self.epoch, in: CalendarTime.utc)))
        }

        func calendar(
            _ key: String,
            _ name: String,
            _ zone: String,
            primary: Bool = false,
            canEdit: Bool = true
        )
            -> StoredCalendar
        {
            StoredCalendar(
                id: primary ? self.email : "\(CalendarStore.makeID(self.username, key))@group.calendar.tether.dev",
                username: self.username,
                name: name,
                timeZone: zone,
                isPrimary: primary,
                canEdit: canEdit,
                color: primary ? "#9fe1e7" : "#f83a22"
            )
        }

        func id(_ key: String) -> String {
            CalendarStore.makeID(self.username, key)
        }
    }

    static func seed(into store: inout CalendarStore, users: [DevProvider.User], now: Date) {
        for user in users {
            let builder = Builder(epoch: store.epoch, username: user.username, email: user.email)
            let seeds: [(StoredCalendar, [Event])]
            switch user.username {
            case "ada": seeds = self.ada(builder)
            case "grace": seeds = self.grace(builder)
            default: seeds = self.anyone(builder)
            }
            for (calendar, events) in seeds {
                store.addCalendar(calendar)
                for event in events {
                    _ = try? store.add(event, username: user.username, calendarID: calendar.id, now: now)
                }
            }
        }
    }

    private static func ada(_ b: Builder) -> [(StoredCalendar, [Event])] {
        let la = "America/Los_Angeles"
        let berlin = "Europe/Berlin"
        let tokyo = "Asia/Tokyo"
        let primary: [Event] = [
            Event(
                id: b.id("weekly-sync"),
                summary: "Weekly sync",
                location: "Video call",
                start: b.at(0, 9, 0, la),
                end: b.at(0, 9, 30, la),
                recurrence: .weekly(
                    count: 8,
                    exceptions: [
                        2: .cancelled,
                        4: .init(summary: "Weekly sync (moved)", shift: .seconds(3600)),
                    ]
                )
            ),
            Event(
                id: b.id("dentist"),
                summary: "Dentist",
                location: "1 Main St, Palo Alto, CA 94301",
                start: b.at(2, 15, 0, la),
                end: b.at(2, 16, 0, la),
                status: .tentative
            ),
            Event(id: b.id("offsite"), summary: "Team offsite", start: b.date(3), end: b.date(5)),
            Event(
                id: b.id("lunch"),
                summary: "Lunch with Charles",
                start: b.at(1, 12, 0, la),
                end: b.at(1, 13, 0, la),
                status: .cancelled
            ),
            Event(
                id: b.id("ua857"),
                summary: "UA 857 SFO → PEK",
                description: """
                    United Airlines flight UA 857
                    Confirmation: K9ZT4M
                    Departs San Francisco (SFO) 10:35, arrives Beijing Capital (PEK) 14:40 the next day.
                    """,
                location: "San Francisco International Airport (SFO)",
                start: b.at(9, 10, 35, la),
                end: b.at(10, 14, 40, "Asia/Shanghai")
            ),
        ]
        let work: [Event] = [
            Event(
                id: b.id("standup"),
                summary: "Daily standup",
                start: b.at(0, 9, 15, berlin),
                end: b.at(0, 9, 30, berlin),
                recurrence: .daily(count: 5, exceptions: [3: .cancelled])
            ),
            Event(
                id: b.id("design-review"),
                summary: "Design review",
                location: "Room 4.12",
                start: b.at(1, 10, 0, berlin),
                end: b.at(1, 11, 0, berlin)
            ),
            Event(
                id: b.id("lh455"),
                summary: "Flight to Berlin (LH 455)",
                description: """
                    Lufthansa – your booking confirmation
                    Booking reference: QX7K2P

                    Flight: LH 455
                    Departure: San Francisco (SFO) 15:40
                    Arrival: Frankfurt (FRA) 11:35 (+1)
                    Connection: LH 190 Frankfurt (FRA) → Berlin (BER)
                    """,
                location: "SFO International Terminal, Gate A12",
                start: b.at(11, 15, 40, la),
                end: b.at(12, 11, 35, berlin)
            ),
            Event(
                id: b.id("a320"),
                summary: "A320 review",
                description: "Cabin retrofit review for the A320 fleet.",
                start: b.at(3, 14, 0, berlin),
                end: b.at(3, 15, 0, berlin)
            ),
        ]
        let travel: [Event] = [
            Event(
                id: b.id("hotel"),
                summary: "Hotel check-in, Shinjuku",
                location: "3-7-1 Nishi-Shinjuku, Tokyo",
                start: b.at(15, 15, 0, tokyo),
                end: b.at(15, 16, 0, tokyo)
            ),
            Event(
                id: b.id("call"),
                summary: "Conference call with the Kyoto office",
                description: "Dial-in: +81 3 5555 0857, PIN 455 716",
                start: b.at(15, 8, 0, "UTC"),
                end: b.at(15, 9, 0, "UTC")
            ),
            Event(
                id: b.id("nh7"),
                summary: "NH 7 NRT → SFO",
                location: "Narita International Airport (NRT)",
                start: b.at(16, 17, 0, tokyo),
                end: b.at(16, 10, 0, la)
            ),
        ]
        let holidays: [Event] = [
            Event(id: b.id("holiday"), summary: "Company holiday", start: b.date(4), end: b.date(5))
        ]
        return [
            (b.calendar("primary", "Calendar", la, primary: true), primary),
            (b.calendar("work", "Work", berlin), work),
            (b.calendar("travel", "Travel", tokyo), travel),
            (b.calendar("holidays", "Holidays", "UTC", canEdit: false), holidays),
        ]
    }

    private static func grace(_ b: Builder) -> [(StoredCalendar, [Event])] {
        let berlin = "Europe/Berlin"
        let tokyo = "Asia/Tokyo"
        let primary: [Event] = [
            Event(
                id: b.id("weekly-review"),
                summary: "Weekly review",
                start: b.at(4, 14, 0, berlin),
                end: b.at(4, 15, 0, berlin),
                recurrence: .weekly(count: 6, exceptions: [1: .cancelled])
            ),
            Event(
                id: b.id("ba283"),
                summary: "BA 283 London Heathrow to Los Angeles",
                description: "British Airways booking reference ZK3L9Q. Terminal 5.",
                location: "London Heathrow (LHR)",
                start: b.at(8, 9, 35, "Europe/London"),
                end: b.at(8, 12, 45, "America/Los_Angeles")
            ),
            Event(
                id: b.id("lh716"),
                summary: "Flug nach Tokio (LH 716)",
                description:
                    "Lufthansa Buchungscode: M4TR8X\nAbflug: Frankfurt (FRA) 13:15\nAnkunft: Tokio Haneda (HND) 09:05 (+1)",
                start: b.at(13, 13, 15, berlin),
                end: b.at(14, 9, 5, tokyo)
            ),
            Event(
                id: b.id("budget"),
                summary: "Budget meeting",
                start: b.at(2, 11, 0, berlin),
                end: b.at(2, 12, 0, berlin),
                status: .cancelled
            ),
            Event(
                id: b.id("room101"),
                summary: "Room 101 booking",
                start: b.at(1, 13, 0, berlin),
                end: b.at(1, 14, 0, berlin)
            ),
        ]
        let conferences: [Event] = [
            Event(id: b.id("yow"), summary: "YOW! Tokyo", start: b.date(14), end: b.date(17)),
            Event(
                id: b.id("talk"),
                summary: "Talk: compilers",
                location: "Hall B",
                start: b.at(15, 10, 0, tokyo),
                end: b.at(15, 11, 0, tokyo)
            ),
        ]
        return [
            (b.calendar("primary", "Calendar", berlin, primary: true), primary),
            (b.calendar("conferences", "Conferences", tokyo), conferences),
        ]
    }

    private static func anyone(_ b: Builder) -> [(StoredCalendar, [Event])] {
        [
            (
                b.calendar("primary", "Calendar", "UTC", primary: true),
                [
                    Event(
                        id: b.id("welcome"),
                        summary: "Welcome",
                        start: b.at(0, 10, 0, "UTC"),
                        end: b.at(0, 11, 0, "UTC")
                    )
                ]
            )
        ]
    }
}
