/// A calendar a source was to read that is gone: deleted, unsubscribed, or no longer shared with the account.
///
/// The source reads its other calendars and reports this one, by the last name it was known by, in
/// ``CalendarSyncOutcome/unavailable``, ``CalendarSourceReport/unavailableCalendars`` and the status
/// ``CalendarSourceStatus/calendarsUnavailable(account:calendars:)``. A calendar is gone when the account's calendar
/// list no longer has it, or when reading it is refused as not found or forbidden: Google `404 notFound` or
/// `410 Gone` (other than an expired sync token), Graph `404 ErrorItemNotFound` or `403 ErrorAccessDenied` while
/// the calendar list itself could be read.
public struct UnavailableCalendar: Sendable, Hashable {
    /// The calendar as last known: its identifier and the name the source last listed it with.
    public var calendar: CalendarInfo
    /// The HTTP status reading it answered with; `nil` when the calendar list no longer has it.
    public var httpStatus: Int?
    /// The provider's error reason or code (Google `errors[].reason`, Graph `error.code`), when it sent one.
    public var providerReason: String?

    /// Creates a record of a calendar that is gone.
    /// - Parameters:
    ///   - calendar: The calendar as last known.
    ///   - httpStatus: The HTTP status of the refused read, or `nil` when it is no longer listed.
    ///   - providerReason: The provider's reason or code.
    public init(calendar: CalendarInfo, httpStatus: Int? = nil, providerReason: String? = nil) {
        self.calendar = calendar
        self.httpStatus = httpStatus
        self.providerReason = providerReason
    }

    /// One sentence naming the calendar and what happened, such as "Calendar 'Team' is no longer in the calendar
    /// list (deleted, unsubscribed or no longer shared)". The name is the provider's: make it safe before it
    /// reaches a terminal.
    public var message: String {
        let what =
            if let httpStatus {
                "could not be read (HTTP \(httpStatus)\(providerReason.map { ", \($0)" } ?? ""))"
            } else {
                "is no longer in the calendar list"
            }
        return "Calendar '\(calendar.name)' \(what): deleted, unsubscribed or no longer shared"
    }
}

extension CalendarSyncOutcome {
    /// Records a calendar that is gone. With `keep`, the state keeps an empty entry for it, so that the next sync
    /// still knows its name.
    mutating func recordUnavailable(_ gone: UnavailableCalendar, keep: Bool) {
        unavailable.append(gone)
        if keep { state.calendars[gone.calendar.id] = CalendarSyncState.Calendar(info: gone.calendar) }
    }
}

extension CalendarError {
    /// Whether this error, met reading one calendar after the calendar list was read, means the calendar is gone
    /// rather than the source failing: `statuses` are the API's answers for a calendar that is not there or no
    /// longer readable.
    func meansCalendarIsGone(statuses: Set<Int>) -> Bool {
        guard let httpStatus, statuses.contains(httpStatus) else { return false }
        return self == .api || self == .accessDenied || self == .syncStateExpired
    }
}
