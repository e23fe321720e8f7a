import Foundation

/// Reading and writing the dates and times flights are described with.
enum FlightDates {
    /// Writes an instant as ISO 8601 in UTC, such as `2027-04-02T18:30:00Z`.
    static func format(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// Reads an ISO 8601 date-time (`2027-04-02T18:30:00Z`, `2027-04-02T11:30:00-07:00`,
    /// `2027-04-02T18:30:00.250Z`, `2027-04-02T18:30`) or date (`2027-04-02`).
    ///
    /// - Parameters:
    ///   - string: The text to read.
    ///   - zone: The time zone of a date or date-time written without an offset; UTC when `nil`.
    /// - Returns: `nil` when the text is not of that form or names an impossible date.
    static func parse(_ string: String, in zone: TimeZone?) -> Date? {
        let bytes = Array(string.utf8.prefix(64))
        var position = 0
        func number(_ count: Int) -> Int? {
            guard position + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<(position + count)] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            position += count
            return value
        }
        func skip(_ character: Character) -> Bool {
            guard position < bytes.count, bytes[position] == character.asciiValue else { return false }
            position += 1
            return true
        }
        guard let year = number(4), skip("-"), let month = number(2), skip("-"), let day = number(2) else {
            return nil
        }
        var components = DateComponents(year: year, month: month, day: day, hour: 0, minute: 0, second: 0)
        var offset: Int?
        if skip("T") || skip(" ") {
            guard let hour = number(2), skip(":"), let minute = number(2) else { return nil }
            components.hour = hour
            components.minute = minute
            if skip(":") {
                guard let second = number(2) else { return nil }
                components.second = second
                if skip(".") || skip(",") {
                    while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 { position += 1 }
                }
            }
            if skip("Z") || skip("z") {
                offset = 0
            } else if position < bytes.count,
                bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")
            {
                let sign = bytes[position] == UInt8(ascii: "+") ? 1 : -1
                position += 1
                guard let hours = number(2) else { return nil }
                _ = skip(":")
                let minutes = number(2) ?? 0
                offset = sign * (hours * 3600 + minutes * 60)
            }
        }
        guard position == bytes.count, (1...12).contains(month), (1...31).contains(day),
            (0...23).contains(components.hour ?? 0), (0...59).contains(components.minute ?? 0),
            (0...60).contains(components.second ?? 0)
        else { return nil }
        return date(components, zone: offset.flatMap { TimeZone(secondsFromGMT: $0) } ?? zone ?? utc)
    }

    /// The date of the given components (year, month, day, hour, minute, second) in a time zone; `nil` for an
    /// impossible date (30 February). Computed from the zone's offsets, without a `Calendar`, which is costly to
    /// make.
    static func date(_ components: DateComponents, zone: TimeZone) -> Date? {
        guard let year = components.year, let month = components.month, let day = components.day,
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        let local = Double(
            daysFromCivil(year: year, month: month, day: day) * 86_400 + (components.hour ?? 0) * 3600
                + (components.minute ?? 0) * 60 + (components.second ?? 0)
        )
        // The zone's offset at the instant, found in two steps so that a time next to a change of offset is right.
        var instant = local - Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: local)))
        instant = local - Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: instant)))
        return Date(timeIntervalSince1970: instant)
    }

    /// The calendar day (year, month, day) of an instant in a time zone.
    static func day(of date: Date, in zone: TimeZone) -> DateComponents {
        let local = date.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: date))
        let days = Int((local / 86_400).rounded(.down))
        let (year, month, day) = civilFromDays(days)
        return DateComponents(year: year, month: month, day: day)
    }

    /// The days in a month of the Gregorian calendar.
    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The Gregorian date of a count of days since 1970-01-01 (Howard Hinnant's `civil_from_days`).
    private static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPart = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPart + 2) / 5 + 1
        let month = monthPart < 10 ? monthPart + 3 : monthPart - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Coordinated Universal Time.
    static let utc = TimeZone(secondsFromGMT: 0) ?? .current
}

extension KeyedDecodingContainer {
    /// A date as ``FlightDates/format(_:)`` writes it, or as ``FlightDates/parse(_:in:)`` reads it; `nil` when the
    /// key is absent or `null`.
    func decodeFlightDate(forKey key: Key) throws -> Date? {
        guard let string = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let date = FlightDates.parse(string, in: nil) else {
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: self,
                debugDescription: "Not an ISO 8601 date or date-time."
            )
        }
        return date
    }
}
