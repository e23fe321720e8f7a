public import Foundation

extension Itinerary {
    /// Where the person is on one date: the time zones they spend some of it in.
    public struct Day: Sendable, Hashable {
        /// The date, in the home time zone.
        public var date: CalendarDay
        /// The time zones the person is in on this date, each read on its own clock, in the order they reach them:
        /// the home time zone at home, the destination's while away, both (or more) on a travel day.
        public var timeZones: [TimeZone]
        /// Whether a flight leaves, lands or is in the air on this date (on the clock of either end).
        public var isTravelDay: Bool

        /// Creates a day.
        ///
        /// - Parameters:
        ///   - date: The date.
        ///   - timeZones: The time zones, in order.
        ///   - isTravelDay: Whether a flight takes it.
        public init(date: CalendarDay, timeZones: [TimeZone], isTravelDay: Bool) {
            self.date = date
            self.timeZones = timeZones
            self.isTravelDay = isTravelDay
        }
    }
}

/// Where the person is over the window: on the ground in one time zone (a stay), or in the air (a leg).
struct Timeline: Sendable, Hashable {
    struct Stay: Sendable, Hashable {
        var interval: DateInterval
        var timeZone: TimeZone
    }

    /// On the ground, ordered, not overlapping; the gaps are flights.
    var stays: [Stay]
    /// Every flight.
    var legs: [Itinerary.Leg]
    /// Where the person is when nothing says otherwise.
    var home: TimeZone

    init(trips: [Itinerary.Trip], legs: [Itinerary.Leg], home: TimeZone, window: DateInterval) {
        var stays: [Stay] = []
        func stay(_ start: Date, _ end: Date, _ zone: TimeZone) {
            if end > start { stays.append(Stay(interval: DateInterval(start: start, end: end), timeZone: zone)) }
        }
        var cursor = window.start
        for trip in trips {
            guard let first = trip.legs.first, let last = trip.legs.last else { continue }
            if trip.beganBeforeData {
                stay(trip.interval.start, first.departure, first.departureTimeZone)
            } else {
                stay(cursor, first.departure, home)
            }
            for (previous, next) in zip(trip.legs, trip.legs.dropFirst()) {
                stay(previous.arrival, next.departure, previous.arrivalTimeZone)
            }
            if trip.isOpen {
                stay(last.arrival, trip.interval.end, last.arrivalTimeZone)
            }
            cursor = max(cursor, trip.interval.end)
        }
        if trips.last?.isOpen != true {
            stay(cursor, max(cursor, window.end), home)
        }
        self.stays = stays
        self.legs = legs
        self.home = home
    }

    /// The zone at `instant`: the departure airport's in the air, the stay's on the ground.
    func timeZone(at instant: Date) -> TimeZone {
        // Legs are ordered by departure and last at most a day and a bit: only those that left shortly before
        // `instant` can be in the air.
        var index = Self.count(of: legs, startingAtOrBefore: instant) { $0.departure }
        while index > 0, legs[index - 1].departure >= instant.addingTimeInterval(-Itinerary.maximumFlightTime) {
            index -= 1
            if instant < legs[index].arrival { return legs[index].departureTimeZone }
        }
        let stay = Self.count(of: stays, startingAtOrBefore: instant) { $0.interval.start }
        return stay > 0 ? stays[stay - 1].timeZone : stays.first?.timeZone ?? home
    }

    /// How many of `items`, ordered by `start`, start at or before `instant`.
    private static func count<Item>(
        of items: [Item],
        startingAtOrBefore instant: Date,
        start: (Item) -> Date
    ) -> Int {
        var low = 0
        var high = items.count
        while low < high {
            let middle = (low + high) / 2
            if start(items[middle]) <= instant { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The dates of `window` in `home`, each with the zones of the stays and flights that touch it on their own
    /// clocks.
    func days(in window: DateInterval, home: TimeZone) -> [Itinerary.Day] {
        let first = CalendarDay(window.start, in: home)
        var last = CalendarDay(window.end, in: home)
        if last.start(in: home) >= window.end, last > first { last = last.adding(days: -1) }

        var seen: [CalendarDay: [(instant: Date, zone: TimeZone)]] = [:]
        var travel: Set<CalendarDay> = []
        func each(from start: CalendarDay, through end: CalendarDay, _ body: (CalendarDay) -> Void) {
            var day = max(start, first)
            let end = min(end, last)
            while day <= end {
                body(day)
                day = day.next
            }
        }
        for stay in stays {
            let zone = stay.timeZone
            let start = CalendarDay(stay.interval.start, in: zone)
            // The end is not part of the stay: a stay that ends at midnight does not reach the next date.
            let end = CalendarDay(stay.interval.end.addingTimeInterval(-1), in: zone)
            each(from: start, through: end) { day in
                seen[day, default: []].append((max(stay.interval.start, day.start(in: zone)), zone))
            }
        }
        for leg in legs {
            let leaving = CalendarDay(leg.departure, in: leg.departureTimeZone)
            let landing = CalendarDay(leg.arrival, in: leg.arrivalTimeZone)
            // Eastward over the date line a flight can land on an earlier date than it left.
            each(from: min(leaving, landing), through: max(leaving, landing)) { day in
                seen[day, default: []] += [(leg.departure, leg.departureTimeZone), (leg.arrival, leg.arrivalTimeZone)]
                travel.insert(day)
            }
        }

        var days: [Itinerary.Day] = []
        var day = first
        while day <= last {
            var zones: [TimeZone] = []
            for entry in (seen[day] ?? []).sorted(by: { $0.instant < $1.instant })
            where !zones.contains(where: { $0.identifier == entry.zone.identifier }) {
                zones.append(entry.zone)
            }
            days.append(
                Itinerary.Day(date: day, timeZones: zones.isEmpty ? [home] : zones, isTravelDay: travel.contains(day))
            )
            day = day.next
        }
        return days
    }
}
