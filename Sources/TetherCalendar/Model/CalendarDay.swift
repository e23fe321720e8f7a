public import Foundation

/// A calendar date — year, month, day — that no time zone ever shifts: the day of an all-day event.
///
/// Encoded as `yyyy-mm-dd` (RFC 3339 `full-date`, §5.6), the form Google Calendar uses for all-day events.
public struct CalendarDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The year, such as 2025.
    public let year: Int
    /// The month, 1–12.
    public let month: Int
    /// The day of the month, 1–31.
    public let day: Int

    /// Creates a day; returns `nil` when the date does not exist (such as February 30).
    /// - Parameters:
    ///   - year: The year.
    ///   - month: The month, 1–12.
    ///   - day: The day, 1–31.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= Self.daysInMonth(year: year, month: month)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `yyyy-mm-dd`; returns `nil` for anything else.
    /// - Parameter text: The date.
    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let year = DateParsing.number(bytes, 0, 4), let month = DateParsing.number(bytes, 5, 2),
            let day = DateParsing.number(bytes, 8, 2)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The day `date` falls on in `timeZone`.
    /// - Parameters:
    ///   - date: An instant.
    ///   - timeZone: Where the day is read.
    public init(_ date: Date, in timeZone: TimeZone) {
        let local = Int((date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))).rounded(.down))
        let days = Int((Double(local) / 86_400).rounded(.down))
        let (year, month, day) = DateParsing.civil(fromDays: days)
        self.year = year
        self.month = month
        self.day = day
    }

    /// `yyyy-mm-dd`.
    public var description: String {
        let y = String(year)
        let m = month < 10 ? "0\(month)" : "\(month)"
        let d = day < 10 ? "0\(day)" : "\(day)"
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + m + "-" + d
    }

    /// The day after this one.
    public var next: CalendarDay { adding(days: 1) }

    /// The day `days` days later (or earlier, when negative).
    /// - Parameter days: How many days.
    /// - Returns: The day.
    public func adding(days: Int) -> CalendarDay {
        let (year, month, day) = DateParsing.civil(fromDays: daysSinceEpoch + days)
        return CalendarDay(unchecked: year, month, day)
    }

    /// Midnight at the start of this day in `timeZone`.
    /// - Parameter timeZone: Where the day starts.
    /// - Returns: The instant.
    public func start(in timeZone: TimeZone) -> Date {
        DateParsing.instant(localSeconds: Double(daysSinceEpoch) * 86_400, in: timeZone)
    }

    /// Days since 1970-01-01.
    var daysSinceEpoch: Int { DateParsing.days(year: year, month: month, day: day) }

    private init(unchecked year: Int, _ month: Int, _ day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Orders by date.
    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// Decodes `yyyy-mm-dd`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let day = CalendarDay(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Not a yyyy-mm-dd date")
        }
        self = day
    }

    /// Encodes `yyyy-mm-dd`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
