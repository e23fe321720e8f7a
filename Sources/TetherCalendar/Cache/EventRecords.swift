import Foundation

/// The binary form of a group of events in the calendar cache: one segment, the events of one calendar that start
/// in one month.
///
/// ```
/// segment   count of shared strings, each a string    (the source, calendar, names, zones, organizers: written once)
///           count of events, each an event record
/// event     flags (unsigned)
///           identifier (string); the dictionary key when it differs from the identifier (string)
///           source, calendar (shared string numbers); calendar name (shared) when present
///           title (string)
///           timed: start, end (doubles); all day: first day, end day (signed days since 1970-01-01)
///           then, each when present: time zone identifier (shared), location, notes (strings), organizer name and
///           e-mail (shared), series identifier (string), last modified (double), link (string)
/// ```
/// Integers are LEB128 (``CacheByteWriter``); a flag says which optional field follows. Dates are the bit patterns
/// of their `timeIntervalSince1970`, so that they come back exactly.
enum EventRecords {
    /// The flags of an event record.
    private enum Flag {
        static let timed: UInt64 = 1 << 0
        static let tentative: UInt64 = 1 << 1
        static let cancelled: UInt64 = 1 << 2
        static let keyDiffers: UInt64 = 1 << 3
        static let calendarName: UInt64 = 1 << 4
        static let timeZone: UInt64 = 1 << 5
        static let location: UInt64 = 1 << 6
        static let notes: UInt64 = 1 << 7
        static let organizer: UInt64 = 1 << 8
        static let organizerName: UInt64 = 1 << 9
        static let organizerEmail: UInt64 = 1 << 10
        static let seriesID: UInt64 = 1 << 11
        static let lastModified: UInt64 = 1 << 12
        static let link: UInt64 = 1 << 13
        /// Every flag this version writes; a record with another one set was written by a later version.
        static let known: UInt64 = (1 << 14) - 1
    }

    // MARK: Writing

    /// The record of a segment: `events`, each with its dictionary key.
    static func encode(_ events: [(key: String, event: CalendarEvent)]) -> [UInt8] {
        var shared: [String: Int] = [:]
        var sharedList: [String] = []
        func intern(_ text: String) -> Int {
            if let number = shared[text] { return number }
            shared[text] = sharedList.count
            sharedList.append(text)
            return sharedList.count - 1
        }
        var body = CacheByteWriter(capacity: events.count * 256)
        body.count(events.count)
        for (key, event) in events {
            var flags: UInt64 = 0
            if case .timed = event.timing { flags |= Flag.timed }
            switch event.status {
            case .confirmed: break
            case .tentative: flags |= Flag.tentative
            case .cancelled: flags |= Flag.cancelled
            }
            if key != event.id { flags |= Flag.keyDiffers }
            if event.calendarName != nil { flags |= Flag.calendarName }
            if event.timeZone != nil { flags |= Flag.timeZone }
            if event.location != nil { flags |= Flag.location }
            if event.notes != nil { flags |= Flag.notes }
            if let organizer = event.organizer {
                flags |= Flag.organizer
                if organizer.name != nil { flags |= Flag.organizerName }
                if organizer.email != nil { flags |= Flag.organizerEmail }
            }
            if event.seriesID != nil { flags |= Flag.seriesID }
            if event.lastModified != nil { flags |= Flag.lastModified }
            if event.link != nil { flags |= Flag.link }

            body.unsigned(flags)
            body.string(event.id)
            if key != event.id { body.string(key) }
            body.count(intern(event.source.rawValue))
            body.count(intern(event.calendarID))
            if let name = event.calendarName { body.count(intern(name)) }
            body.string(event.title)
            switch event.timing {
            case .timed(let start, let end):
                body.double(start.timeIntervalSince1970)
                body.double(end.timeIntervalSince1970)
            case .allDay(let first, let end):
                body.signed(Int64(first.daysSinceEpoch))
                body.signed(Int64(end.daysSinceEpoch))
            }
            if let zone = event.timeZone { body.count(intern(zone.identifier)) }
            if let location = event.location { body.string(location) }
            if let notes = event.notes { body.string(notes) }
            if let name = event.organizer?.name { body.count(intern(name)) }
            if let email = event.organizer?.email { body.count(intern(email)) }
            if let series = event.seriesID { body.string(series) }
            if let modified = event.lastModified { body.double(modified.timeIntervalSince1970) }
            if let link = event.link { body.string(link.absoluteString) }
        }
        var record = CacheByteWriter(capacity: body.bytes.count + sharedList.count * 24 + 8)
        record.count(sharedList.count)
        for text in sharedList { record.string(text) }
        return record.bytes + body.bytes
    }

    // MARK: Reading

    /// Reads a segment's events into `events`, keyed as they were written.
    /// - Throws: ``CacheByteReader/Truncated`` when the record is cut short or was written by a later version.
    static func decode(
        _ record: UnsafeRawBufferPointer,
        into events: inout [String: CalendarEvent]
    ) throws(CacheByteReader.Truncated) {
        var reader = CacheByteReader(record)
        let sharedCount = try reader.count()
        var shared: [String] = []
        shared.reserveCapacity(sharedCount)
        for _ in 0..<sharedCount { shared.append(try reader.string()) }
        var zones: [Int: TimeZone?] = [:]
        var sources: [Int: CalendarSourceID] = [:]
        func text(_ number: Int) throws(CacheByteReader.Truncated) -> String {
            guard number < shared.count else { throw CacheByteReader.Truncated() }
            return shared[number]
        }

        let count = try reader.count()
        events.reserveCapacity(events.count + count)
        for _ in 0..<count {
            let flags = try reader.unsigned()
            guard flags & ~Flag.known == 0 else { throw CacheByteReader.Truncated() }
            let id = try reader.string()
            let key = flags & Flag.keyDiffers != 0 ? try reader.string() : id
            let sourceNumber = try reader.count()
            let source: CalendarSourceID
            if let known = sources[sourceNumber] {
                source = known
            } else {
                source = CalendarSourceID(try text(sourceNumber))
                sources[sourceNumber] = source
            }
            let calendarID = try text(try reader.count())
            let calendarName = flags & Flag.calendarName != 0 ? try text(try reader.count()) : nil
            let title = try reader.string()
            let timing = try timing(flags, from: &reader)
            var timeZone: TimeZone?
            if flags & Flag.timeZone != 0 {
                let number = try reader.count()
                if let known = zones[number] {
                    timeZone = known
                } else {
                    timeZone = TimeZone(identifier: try text(number))
                    zones[number] = timeZone
                }
            }
            let location = flags & Flag.location != 0 ? try reader.string() : nil
            let notes = flags & Flag.notes != 0 ? try reader.string() : nil
            var organizer: CalendarEvent.Person?
            if flags & Flag.organizer != 0 {
                organizer = CalendarEvent.Person(
                    name: flags & Flag.organizerName != 0 ? try text(try reader.count()) : nil,
                    email: flags & Flag.organizerEmail != 0 ? try text(try reader.count()) : nil
                )
            }
            let seriesID = flags & Flag.seriesID != 0 ? try reader.string() : nil
            let lastModified = flags & Flag.lastModified != 0 ? Date(timeIntervalSince1970: try reader.double()) : nil
            let link = flags & Flag.link != 0 ? URL(string: try reader.string()) : nil
            let status: CalendarEvent.Status =
                flags & Flag.cancelled != 0 ? .cancelled : flags & Flag.tentative != 0 ? .tentative : .confirmed
            events[key] = CalendarEvent(
                id: id,
                source: source,
                calendarID: calendarID,
                calendarName: calendarName,
                title: title,
                timing: timing,
                timeZone: timeZone,
                status: status,
                location: location,
                notes: notes,
                organizer: organizer,
                seriesID: seriesID,
                lastModified: lastModified,
                link: link
            )
        }
        guard reader.isAtEnd else { throw CacheByteReader.Truncated() }
    }

    /// Reads the key and timing of each event of a segment into `timings`, and nothing else of them: what
    /// ``decode(_:into:)`` would read, for counting the events of a window without making them.
    /// - Throws: ``CacheByteReader/Truncated`` where ``decode(_:into:)`` throws, with the events before it read.
    static func decodeTimings(
        _ record: UnsafeRawBufferPointer,
        into timings: inout [String: CalendarEvent.Timing]
    ) throws(CacheByteReader.Truncated) {
        var reader = CacheByteReader(record)
        let sharedCount = try reader.count()
        for _ in 0..<sharedCount { try reader.skipString() }
        func shared() throws(CacheByteReader.Truncated) {
            guard try reader.count() < sharedCount else { throw CacheByteReader.Truncated() }
        }

        let count = try reader.count()
        for _ in 0..<count {
            let flags = try reader.unsigned()
            guard flags & ~Flag.known == 0 else { throw CacheByteReader.Truncated() }
            let id = try reader.string()
            let key = flags & Flag.keyDiffers != 0 ? try reader.string() : id
            try shared()
            try shared()
            if flags & Flag.calendarName != 0 { try shared() }
            try reader.skipString()
            let timing = try timing(flags, from: &reader)
            if flags & Flag.timeZone != 0 { try shared() }
            if flags & Flag.location != 0 { try reader.skipString() }
            if flags & Flag.notes != 0 { try reader.skipString() }
            if flags & Flag.organizer != 0 {
                if flags & Flag.organizerName != 0 { try shared() }
                if flags & Flag.organizerEmail != 0 { try shared() }
            }
            if flags & Flag.seriesID != 0 { try reader.skipString() }
            if flags & Flag.lastModified != 0 { _ = try reader.double() }
            if flags & Flag.link != 0 { try reader.skipString() }
            timings[key] = timing
        }
        guard reader.isAtEnd else { throw CacheByteReader.Truncated() }
    }

    /// An event's timing, as the record's `flags` say it was written.
    private static func timing(
        _ flags: UInt64,
        from reader: inout CacheByteReader
    ) throws(CacheByteReader.Truncated) -> CalendarEvent.Timing {
        if flags & Flag.timed != 0 {
            let start = try reader.double()
            return .timed(
                start: Date(timeIntervalSince1970: start),
                end: Date(timeIntervalSince1970: try reader.double())
            )
        }
        guard let first = day(try reader.signed()), let end = day(try reader.signed()) else {
            throw CacheByteReader.Truncated()
        }
        return .allDay(first: first, end: end)
    }

    private static func day(_ days: Int64) -> CalendarDay? {
        guard abs(days) < 4_000_000 else { return nil }
        let (year, month, day) = DateParsing.civil(fromDays: Int(days))
        return CalendarDay(year: year, month: month, day: day)
    }

    // MARK: Months

    /// The month a segment of `event` belongs to, counted from year 0: the month its start (timed, in UTC) or its
    /// first day (all day) falls in.
    static func month(of event: CalendarEvent) -> Int {
        let days: Int
        switch event.timing {
        case .timed(let start, _):
            let seconds = start.timeIntervalSince1970
            days = seconds.isFinite ? Int((seconds / 86_400).rounded(.down).clamped(to: -3e6...3e6)) : 0
        case .allDay(let first, _): days = first.daysSinceEpoch
        }
        let (year, month, _) = DateParsing.civil(fromDays: days)
        return year * 12 + month - 1
    }

    /// The widest interval `event` may occupy in any time zone: a timed event's own, an all-day event's days from
    /// the first midnight on Earth (UTC+14) to the last (UTC−12), with a day to spare for odd zone histories.
    static func reach(of event: CalendarEvent) -> ClosedRange<Double> {
        switch event.timing {
        case .timed(let start, let end):
            let from = start.timeIntervalSince1970
            let to = max(from, end.timeIntervalSince1970)
            return from.isNaN || to.isNaN ? -Double.infinity...Double.infinity : from...to
        case .allDay(let first, let end):
            let from = Double(first.daysSinceEpoch) * 86_400 - 2 * 86_400
            let to = max(Double(end.daysSinceEpoch) * 86_400, from) + 2 * 86_400
            return from...to
        }
    }
}

extension Double {
    fileprivate func clamped(to range: ClosedRange<Double>) -> Double {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }
}
