import Foundation

/// Timed events ordered by start, searched by time: the events that overlap a flight, those that start during a
/// trip. A calendar of thousands of events is searched in logarithmic time per flight or trip, not read whole.
struct TimedEvents {
    private(set) var events: [CalendarEvent] = []
    private var starts: [Date] = []
    private var ends: [Date] = []
    /// The longest event, so that an overlap search knows how far before a flight to start looking.
    private var longest: TimeInterval = 0

    /// The timed events among `events` (all-day events left out), ordered by start, then as given.
    init(_ events: [CalendarEvent]) {
        let timed = events.enumerated().compactMap { offset, event -> (Int, CalendarEvent, Date, Date)? in
            guard case .timed(let start, let end) = event.timing else { return nil }
            return (offset, event, start, max(start, end))
        }
        .sorted { lhs, rhs in lhs.2 != rhs.2 ? lhs.2 < rhs.2 : lhs.0 < rhs.0 }
        for (_, event, start, end) in timed {
            self.events.append(event)
            starts.append(start)
            ends.append(end)
            longest = max(longest, end.timeIntervalSince(start))
        }
    }

    /// The events that start within `interval` (its end not included), in order.
    func starting(in interval: DateInterval) -> ArraySlice<CalendarEvent> {
        events[firstIndex(startingAtOrAfter: interval.start)..<firstIndex(startingAtOrAfter: interval.end)]
    }

    /// The events that overlap `interval` as ``CalendarEvent/overlaps(_:in:)`` says: they end after it starts and
    /// start before it ends; an event without duration, when it starts within it.
    func overlapping(_ interval: DateInterval) -> [CalendarEvent] {
        let first = firstIndex(startingAtOrAfter: interval.start.addingTimeInterval(-longest))
        let end = firstIndex(startingAtOrAfter: interval.end)
        guard first < end else { return [] }
        return (first..<end).compactMap { index in
            let overlaps =
                starts[index] == ends[index]
                ? starts[index] >= interval.start : ends[index] > interval.start
            return overlaps ? events[index] : nil
        }
    }

    /// The first index whose start is at or after `date`; the count when there is none.
    private func firstIndex(startingAtOrAfter date: Date) -> Int {
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] < date { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
