import Foundation

/// Date formatting and arithmetic for the calendar APIs, all in a given IANA time zone.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
enum CalendarTime {
    static let utc = TimeZone(identifier: "UTC")!

    /// A Gregorian calendar in a time zone.
    static func calendar(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// The time zone for an IANA identifier, falling back to UTC.
    static func zone(_ identifier: String) -> TimeZone {
        TimeZone(identifier: identifier) ?? utc
    }

    private static func pad(_ value: Int, _ width: Int = 2) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    private static func components(_ date: Date, in timeZone: TimeZone) -> DateComponents {
        self.calendar(timeZone).dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
    }

    /// `2025-03-03T10:00:00+01:00` (`Z` in UTC): RFC 3339 with the zone's offset at that instant,
    /// as Google Calendar writes `dateTime`.
    static func rfc3339(_ date: Date, in timeZone: TimeZone) -> String {
        let c = self.components(date, in: timeZone)
        let local =
            "\(pad(c.year ?? 1970, 4))-\(pad(c.month ?? 1))-\(pad(c.day ?? 1))"
            + "T\(pad(c.hour ?? 0)):\(pad(c.minute ?? 0)):\(pad(c.second ?? 0))"
        let offset = timeZone.secondsFromGMT(for: date)
        guard offset != 0 else { return local + "Z" }
        let sign = offset < 0 ? "-" : "+"
        let minutes = abs(offset) / 60
        return local + "\(sign)\(pad(minutes / 60)):\(pad(minutes % 60))"
    }

    /// `2025-02-27T16:40:02.311Z`: UTC with milliseconds, as Google writes `updated`.
    static func rfc3339Milliseconds(_ date: Date) -> String {
        let c = self.components(date, in: utc)
        let milliseconds = (c.nanosecond ?? 0) / 1_000_000
        return "\(pad(c.year ?? 1970, 4))-\(pad(c.month ?? 1))-\(pad(c.day ?? 1))"
            + "T\(pad(c.hour ?? 0)):\(pad(c.minute ?? 0)):\(pad(c.second ?? 0)).\(pad(milliseconds, 3))Z"
    }

    /// `2025-03-03T10:00:00.0000000`: local time without an offset, as Graph writes `dateTimeTimeZone`.
    static func graphLocal(_ date: Date, in timeZone: TimeZone) -> String {
        let c = self.components(date, in: timeZone)
        return "\(pad(c.year ?? 1970, 4))-\(pad(c.month ?? 1))-\(pad(c.day ?? 1))"
            + "T\(pad(c.hour ?? 0)):\(pad(c.minute ?? 0)):\(pad(c.second ?? 0)).0000000"
    }

    /// `2025-03-03T10:00:00Z`: UTC without fractions, as Graph writes `lastModifiedDateTime`.
    static func utcSeconds(_ date: Date) -> String {
        self.rfc3339(date, in: utc)
    }

    /// `yyyy-MM-dd` of an instant in a zone.
    static func day(_ date: Date, in timeZone: TimeZone) -> String {
        let c = self.components(date, in: timeZone)
        return "\(pad(c.year ?? 1970, 4))-\(pad(c.month ?? 1))-\(pad(c.day ?? 1))"
    }

    /// `yyyyMMdd` or `yyyyMMddTHHmmssZ` (UTC), the suffix of Google's recurring instance IDs.
    static func instanceSuffix(_ date: Date, allDay: Bool, timeZone: TimeZone) -> String {
        if allDay {
            return self.day(date, in: timeZone).replacingOccurrences(of: "-", with: "")
        }
        let c = self.components(date, in: utc)
        return "\(pad(c.year ?? 1970, 4))\(pad(c.month ?? 1))\(pad(c.day ?? 1))"
            + "T\(pad(c.hour ?? 0))\(pad(c.minute ?? 0))\(pad(c.second ?? 0))Z"
    }

    /// Midnight of a `yyyy-MM-dd` date in a zone.
    static func midnight(_ day: String, in timeZone: TimeZone) -> Date? {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        return self.calendar(timeZone).date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))
    }

    /// A `yyyy-MM-dd` date moved by whole days.
    static func addDays(_ days: Int, to day: String) -> String {
        guard let midnight = self.midnight(day, in: utc),
            let moved = self.calendar(utc).date(byAdding: .day, value: days, to: midnight)
        else { return day }
        return self.day(moved, in: utc)
    }

    /// Parses RFC 3339 / ISO 8601 with an offset or `Z`, with or without fractions. Without an
    /// offset the text is read in `assumedZone` (Graph reads `startDateTime` without offset as UTC).
    static func parse(_ text: String, assumedZone: TimeZone? = nil) -> Date? {
        let pattern = #/^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?([Zz]|[+-]\d{2}:?\d{2})?$/#
        guard let match = text.wholeMatch(of: pattern) else {
            if text.count == 10, let zone = assumedZone { return self.midnight(text, in: zone) }
            return nil
        }
        let zone: TimeZone
        if let designator = match.8 {
            if designator == "Z" || designator == "z" {
                zone = utc
            } else {
                let digits = designator.dropFirst().filter(\.isNumber)
                guard digits.count == 4, let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)) else {
                    return nil
                }
                let seconds = (hours * 3600 + minutes * 60) * (designator.first == "-" ? -1 : 1)
                guard let fixed = TimeZone(secondsFromGMT: seconds) else { return nil }
                zone = fixed
            }
        } else if let assumedZone {
            zone = assumedZone
        } else {
            return nil
        }
        var components = DateComponents(
            year: Int(match.1),
            month: Int(match.2),
            day: Int(match.3),
            hour: Int(match.4),
            minute: Int(match.5),
            second: match.6.flatMap { Int($0) } ?? 0
        )
        if let fraction = match.7 {
            let digits = String(fraction.prefix(9)).padding(toLength: 9, withPad: "0", startingAt: 0)
            components.nanosecond = Int(digits)
        }
        return self.calendar(zone).date(from: components)
    }
}
