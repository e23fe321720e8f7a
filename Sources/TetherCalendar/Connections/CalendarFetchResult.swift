public import Foundation

/// What one fetch across every source produced: the events, and for each source what loaded, what did not,
/// why, and since when.
public struct CalendarFetchResult: Sendable {
    /// One report per configured source, in the order the sources were given.
    public var sources: [CalendarSourceReport]
    /// Every event served — fresh, from a stand-in, or from the cache — that overlaps the window, ordered by
    /// start. Each event names the source it came from.
    public var events: [CalendarEvent]
    /// The window.
    public var window: DateInterval

    /// Whether every source loaded fresh events.
    public var isComplete: Bool { sources.allSatisfy { $0.served == .fresh } }

    /// The report of `source`, if it is configured.
    /// - Parameter source: The source.
    /// - Returns: Its report.
    public func report(for source: CalendarSourceID) -> CalendarSourceReport? {
        sources.first { $0.source == source }
    }
}

/// What one source contributed to a fetch, and its status.
public struct CalendarSourceReport: Sendable {
    /// Where a source's events came from.
    public enum Served: Sendable, Hashable {
        /// A sync that just succeeded.
        case fresh
        /// The offline cache, as of ``CalendarSourceReport/lastSuccessfulSync``; stale.
        case cache
        /// Another source stood in (a fresh sync of it).
        case standIn(CalendarSourceID)
        /// Nothing: the sync failed and there was neither a cache nor a stand-in.
        case nothing
    }

    /// The source.
    public var source: CalendarSourceID
    /// The kind of service.
    public var kind: CalendarSourceKind
    /// The status to show, derived from the sign-in or permission and this fetch.
    public var status: CalendarSourceStatus
    /// Where the events shown for this source came from.
    public var served: Served
    /// How many events (in the window) were served for this source.
    public var eventCount: Int
    /// Why the sync failed, when it did.
    public var error: CalendarError?
    /// When the syncs of this source began to fail (in this process), while they fail.
    public var failingSince: Date?
    /// When the last successful sync finished, from this process or the cache.
    public var lastSuccessfulSync: Date?
    /// Events of the source that could not be read and are left out (a field of the wrong JSON type, a missing
    /// field, an unknown time zone, an invalid date), and why — the field and the type expected, never the
    /// event's content. Those the source's calendars hold as of the sync or cache that served it (see
    /// ``CalendarSyncState/Calendar/skipped``); empty when nothing of the source is shown.
    public var skipped: [SkippedEvent]
    /// How each calendar was synced, when the sync succeeded.
    public var modes: [String: CalendarSyncOutcome.Mode]
    /// A failure of the offline cache for this source (the events still loaded); the damaged file is kept.
    public var cacheError: CalendarCacheError?
    /// The chosen calendars the source's last successful sync found gone — deleted, unsubscribed, no longer
    /// shared — by their last known names; its other calendars loaded. Empty when none is, or the source has not
    /// synced in this process.
    public var unavailableCalendars: [UnavailableCalendar] = []
    /// The time zone of the source's main calendar as its last successful sync (or the cache) found it
    /// (``CalendarSyncState/primaryTimeZone``): the zone the person set for the account, a better guess at home
    /// than the zone of the device, which travels with them. `nil` when the main calendar is not read, or the
    /// provider names no zone (Graph, EventKit).
    public var timeZone: TimeZone? { timeZoneIdentifier.flatMap(TimeZone.init(identifier:)) }
    /// The identifier of ``timeZone``, as the provider wrote it.
    package var timeZoneIdentifier: String?

    /// Whether the events shown are not from a sync that just succeeded.
    public var isStale: Bool { served != .fresh }
    /// The source whose events are shown for this one: itself, a stand-in, or none.
    public var servedBy: CalendarSourceID? {
        switch served {
        case .fresh, .cache: source
        case .standIn(let other): other
        case .nothing: nil
        }
    }
}
