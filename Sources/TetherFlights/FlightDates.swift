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

    /// The date of the given components (year, month, day, hour, minute, second) in a time zone.
    static func date(_ components: DateComponents, zone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        guard let date = calendar.date(from: components) else { return nil }
        // Calendar rolls impossible dates over (30 February becomes 2 March); refuse them instead.
        let check = calendar.dateComponents([.year, .month, .day], from: date)
        guard check.year == components.year, check.month == components.month, check.day == components.day else {
            return nil
        }
        return date
    }

    /// The calendar day (year, month, day) of an instant in a time zone.
    static func day(of date: Date, in zone: TimeZone) -> DateComponents {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.dateComponents([.year, .month, .day], from: date)
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
