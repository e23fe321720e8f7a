package import Foundation

/// Fast, allocation-light parsing of the date and time forms the calendar APIs send: RFC 3339 `date-time` with an
/// offset (Google, RFC 3339 §5.6), and Graph's `dateTimeTimeZone.dateTime`, a local time without an offset
/// (`2025-03-03T10:00:00.0000000`) interpreted in a named zone.
package enum DateParsing {
    /// Reads `count` ASCII digits at `start`.
    static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
        guard start + count <= bytes.count else { return nil }
        var value = 0
        for index in start..<(start + count) {
            let byte = bytes[index]
            guard byte >= 48, byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-Compatible Low-Level Date
    /// Algorithms", `days_from_civil`).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date of a day count since 1970-01-01 (`civil_from_days`, same source).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// A local date and time: the part before any offset.
    struct Local {
        var day: CalendarDay
        var hour: Int
        var minute: Int
        var second: Double

        /// Seconds since 1970-01-01T00:00 of the same wall-clock reading in UTC.
        var seconds: Double {
            Double(day.daysSinceEpoch) * 86_400 + Double(hour * 3600 + minute * 60) + second
        }

        var isMidnight: Bool { hour == 0 && minute == 0 && second == 0 }
    }

    /// Parses `yyyy-mm-ddThh:mm[:ss[.fraction]]` at the start of `bytes`; returns the value and the index after it.
    static func local(_ bytes: [UInt8]) -> (Local, Int)? {
        guard bytes.count >= 16, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"),
            let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let dayOfMonth = number(bytes, 8, 2),
            let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2),
            let day = CalendarDay(year: year, month: month, day: dayOfMonth), hour < 24, minute < 60
        else { return nil }
        var index = 16
        var second = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            guard let whole = number(bytes, index + 1, 2), whole <= 60 else { return nil }
            second = Double(whole)
            index += 3
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                var scale = 0.1
                let start = index
                while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                    second += Double(bytes[index] - 48) * scale
                    scale /= 10
                    index += 1
                }
                guard index > start else { return nil }
            }
        }
        return (Local(day: day, hour: hour, minute: minute, second: second), index)
    }

    /// Parses an RFC 3339 `date-time` with `Z` or a `±hh:mm` offset (RFC 3339 §5.6).
    static func rfc3339(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard let (local, index) = local(bytes), index < bytes.count else { return nil }
        let rest = bytes[index...]
        if rest.count == 1, rest.first == UInt8(ascii: "Z") || rest.first == UInt8(ascii: "z") {
            return Date(timeIntervalSince1970: local.seconds)
        }
        guard rest.count == 6, let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
            bytes[index + 3] == UInt8(ascii: ":"),
            let hours = number(bytes, index + 1, 2), let minutes = number(bytes, index + 4, 2)
        else { return nil }
        let offset = Double(hours * 3600 + minutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
        return Date(timeIntervalSince1970: local.seconds - offset)
    }

    /// The instant of a wall-clock reading (seconds as if it were UTC) in `timeZone`. In a gap (spring forward)
    /// the reading is taken with the offset before the change; in an overlap, the first occurrence.
    static func instant(localSeconds: Double, in timeZone: TimeZone) -> Date {
        if timeZone.identifier == "UTC" || timeZone.identifier == "GMT" {
            return Date(timeIntervalSince1970: localSeconds)
        }
        let guess = Date(timeIntervalSince1970: localSeconds)
        let first = Double(timeZone.secondsFromGMT(for: guess))
        let candidate = Date(timeIntervalSince1970: localSeconds - first)
        let second = Double(timeZone.secondsFromGMT(for: candidate))
        if second == first { return candidate }
        let adjusted = Date(timeIntervalSince1970: localSeconds - second)
        return Double(timeZone.secondsFromGMT(for: adjusted)) == second ? adjusted : candidate
    }

    /// Formats an instant as RFC 3339 in UTC with whole seconds: `2025-03-03T09:00:00Z`.
    package static func rfc3339String(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let days = Int((Double(total) / 86_400).rounded(.down))
        let secondsOfDay = total - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let dayText = CalendarDay(year: year, month: month, day: day)?.description ?? "1970-01-01"
        return dayText + "T" + two(secondsOfDay / 3600) + ":" + two(secondsOfDay / 60 % 60) + ":"
            + two(secondsOfDay % 60) + "Z"
    }
}
