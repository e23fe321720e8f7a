import ArgumentParser
import Foundation
import TetherCalendar
import TetherCommandSupport

/// `--from` and `--to` of `tether calendar events` and `tether calendar flights`.
struct CalendarWindowOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The start: a date (2026-11-23, local midnight) or an ISO 8601 instant. Default: today 00:00.",
            valueName: "date"
        )
    )
    var from: String?

    @Option(
        help: ArgumentHelp(
            "The end, not included: a date or an instant. Default: 7 days after the start.",
            valueName: "date"
        )
    )
    var to: String?

    /// The window these options give, in `timeZone` (the user's).
    /// - Throws: ``CLIFailure`` (usage) for a value that is no date or instant, or an end not after the start.
    func window(now: Date = Date(), timeZone: TimeZone = .current) throws -> DateInterval {
        try Self.window(from: from, to: to, now: now, timeZone: timeZone)
    }

    /// The window from `from` (default: today's local midnight) to `to` (default: 7 days later).
    static func window(from: String?, to: String?, now: Date, timeZone: TimeZone) throws -> DateInterval {
        let start =
            try from.map { try parse($0, option: "--from", timeZone: timeZone) }
            ?? .day(CalendarDay(now, in: timeZone))
        let end: Date
        if let to {
            end = try parse(to, option: "--to", timeZone: timeZone).instant(in: timeZone)
        } else {
            switch start {
            case .day(let day): end = day.adding(days: 7).start(in: timeZone)
            case .instant(let instant): end = instant.addingTimeInterval(7 * 86_400)
            }
        }
        let startInstant = start.instant(in: timeZone)
        guard end > startInstant else {
            throw CLIFailure(.usage, "--to must be after --from", fix: "Give an end later than the start")
        }
        return DateInterval(start: startInstant, end: end)
    }

    /// A value of `--from` or `--to`.
    enum Point: Equatable {
        /// A date: midnight in the user's time zone.
        case day(CalendarDay)
        /// An instant.
        case instant(Date)

        func instant(in timeZone: TimeZone) -> Date {
            switch self {
            case .day(let day): day.start(in: timeZone)
            case .instant(let date): date
            }
        }
    }

    /// Reads `2026-11-23`, `2026-11-23T09:30:00Z`, `2026-11-23T09:30:00.250+01:00`, or `2026-11-23T09:30` (local).
    static func parse(_ text: String, option: String, timeZone: TimeZone) throws -> Point {
        if let day = CalendarDay(text) { return .day(day) }
        let withZone = ISO8601DateFormatter()
        withZone.formatOptions = [.withInternetDateTime]
        if let date = withZone.date(from: text) { return .instant(date) }
        withZone.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = withZone.date(from: text) { return .instant(date) }
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.timeZone = timeZone
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm"] {
            local.dateFormat = format
            if let date = local.date(from: text) { return .instant(date) }
        }
        throw CLIFailure(
            .usage,
            "\(option) '\(text.prefix(40))' is not a date or an ISO 8601 instant",
            fix: "Give a date such as 2026-11-23 or an instant such as 2026-11-23T09:00:00Z"
        )
    }
}
