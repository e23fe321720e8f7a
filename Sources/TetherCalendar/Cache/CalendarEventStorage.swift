import Foundation
import Tether

/// Where the events of one calendar's sync state are: in a dictionary, or — as the ``CalendarCache`` loaded them —
/// in the cache's segments, each decoded the first time something reads it.
///
/// A state read from the cache and synced without a change is written back without decoding its events: the cache
/// sees that the storage is the one it loaded (its ``revision``) and rewrites only the file's header. Reading the
/// events of a window decodes only the months it overlaps. Anything that changes the events first decodes them all
/// into the dictionary.
struct CalendarEventStorage: Sendable {
    /// The events, when ``segments`` is `nil`.
    private var memory: [String: CalendarEvent]
    /// The cache's segments, not yet all decoded; `nil` once the events are in ``memory``.
    private(set) var segments: CachedEventSegments?
    /// Changes with every change of the events, so that the cache can tell the storage it loaded or wrote last.
    private(set) var revision = Revision()
    /// Whether the events are all here: `false` once a segment could not be read again (see
    /// ``CachedEventSegments/isComplete``), and for every change made on top of that. The cache refuses to write
    /// such events.
    private var complete = true
    /// Whether every event could be read; see ``CachedEventSegments/isComplete``.
    var isComplete: Bool { complete && (segments?.isComplete ?? true) }

    /// A token compared by identity: a new one for each version of the events.
    final class Revision: Sendable {}

    init(_ events: [String: CalendarEvent] = [:]) {
        memory = events
        segments = nil
    }

    init(segments: CachedEventSegments, revision: Revision) {
        memory = [:]
        self.segments = segments
        self.revision = revision
    }

    /// Every event, by identifier. Reading decodes what is not decoded yet; changing it decodes everything first.
    var events: [String: CalendarEvent] {
        get { segments?.allEvents() ?? memory }
        set {
            memory = newValue
            segments = nil
            complete = true
            revision = Revision()
        }
        _modify {
            if let segments {
                memory = segments.allEvents()
                complete = segments.isComplete
                self.segments = nil
            }
            revision = Revision()
            yield &memory
        }
    }

    /// How many events there are, without decoding them.
    var count: Int { segments?.eventCount ?? memory.count }

    /// How many events overlap `window` (see ``CalendarEvent/overlaps(_:in:)``). Of the segments whose events may
    /// and that are not decoded yet, it reads only each event's key and timing, and keeps nothing.
    func count(overlapping window: DateInterval, in timeZone: TimeZone) -> Int {
        guard let segments else { return memory.values.count { $0.overlaps(window, in: timeZone) } }
        return segments.count(overlapping: window, in: timeZone)
    }

    /// Calls `body` with each event that overlaps `window` (see ``CalendarEvent/overlaps(_:in:)``), decoding only
    /// the segments whose events may.
    func forEachEvent(overlapping window: DateInterval, in timeZone: TimeZone, _ body: (CalendarEvent) -> Void) {
        guard let segments else {
            for event in memory.values where event.overlaps(window, in: timeZone) { body(event) }
            return
        }
        segments.forEachEvent(mayOverlap: window) { event in
            if event.overlaps(window, in: timeZone) { body(event) }
        }
    }
}

extension CalendarEventStorage: Hashable {
    static func == (lhs: CalendarEventStorage, rhs: CalendarEventStorage) -> Bool {
        if lhs.revision === rhs.revision { return true }
        if let left = lhs.segments, let right = rhs.segments, left === right { return true }
        return lhs.count == rhs.count && lhs.events == rhs.events
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(events)
    }
}

/// The segments of one calendar as the ``CalendarCache`` read them: each opened (so checked) when the cache was
/// loaded, opened again and decoded on first use, and kept decoded.
///
/// Only the sealed bytes are kept between the two: the plaintext of a month nobody reads is dropped as soon as it
/// was checked, so that loading reuses one buffer for every segment instead of holding them all.
final class CachedEventSegments: Sendable {
    /// One segment: the events of the calendar that start in one month.
    struct Segment: Sendable {
        /// Where it is and what it holds, as the cache's header lists it.
        let descriptor: CalendarCacheFormat.SegmentDescriptor
        /// Its sealed bytes, as in the events file.
        let sealed: Data
    }

    /// The source whose cache they belong to.
    let source: CalendarSourceID
    /// The calendar whose events they hold.
    let calendarID: String
    let segments: [Segment]
    /// How many events the segments hold.
    let eventCount: Int
    /// Opens a segment's sealed bytes into its record (see ``EventRecords``), with the key and context that checked
    /// it at load.
    private let open: @Sendable (Segment) throws -> Data
    private let decoded: LockedState<[Int: [String: CalendarEvent]]>
    private let failed = LockedState(false)

    init(
        source: CalendarSourceID,
        calendarID: String,
        segments: [Segment],
        open: @escaping @Sendable (Segment) throws -> Data
    ) {
        self.source = source
        self.calendarID = calendarID
        self.segments = segments
        self.open = open
        eventCount = segments.reduce(0) { $0 + $1.descriptor.count }
        decoded = LockedState([:])
    }

    /// Whether every segment read so far opened again and decoded. The checks at load make a failure impossible
    /// short of a bug, or of another program changing a mapped events file in place (see ``CacheFiles``).
    var isComplete: Bool { !failed.withLock { $0 } }

    /// The events of segment `index`, decoded once. A segment that does not open again or a record that does not
    /// decode gives the events read before the failure, is not kept as decoded, and makes the segments incomplete
    /// (``isComplete``).
    func events(ofSegment index: Int) -> [String: CalendarEvent] {
        if let known = decoded.withLock({ $0[index] }) { return known }
        var events: [String: CalendarEvent] = [:]
        do {
            let record = try open(segments[index])
            try record.withUnsafeBytes { bytes in try EventRecords.decode(bytes, into: &events) }
        } catch {
            failed.withLock { $0 = true }
            return events
        }
        decoded.withLock { $0[index] = events }
        return events
    }

    /// How many segments were decoded so far.
    var decodedSegmentCount: Int { decoded.withLock { $0.count } }

    /// Every event.
    func allEvents() -> [String: CalendarEvent] {
        if segments.count == 1 { return events(ofSegment: 0) }
        var all: [String: CalendarEvent] = [:]
        all.reserveCapacity(eventCount)
        for index in segments.indices {
            all.merge(events(ofSegment: index)) { _, later in later }
        }
        return all
    }

    /// Calls `body` with each event of the segments whose reach meets `window`.
    func forEachEvent(mayOverlap window: DateInterval, _ body: (CalendarEvent) -> Void) {
        for index in indices(mayOverlap: window) {
            for event in events(ofSegment: index).values { body(event) }
        }
    }

    /// How many events of the segments overlap `window`: those decoded already are counted, the others are read
    /// for their timings only (``EventRecords/decodeTimings(_:into:)``), which the same failures end where
    /// ``events(ofSegment:)`` would.
    func count(overlapping window: DateInterval, in timeZone: TimeZone) -> Int {
        var count = 0
        for index in indices(mayOverlap: window) {
            if let known = decoded.withLock({ $0[index] }) {
                count += known.values.count { $0.overlaps(window, in: timeZone) }
                continue
            }
            var timings: [String: CalendarEvent.Timing] = [:]
            do {
                let record = try open(segments[index])
                try record.withUnsafeBytes { bytes in try EventRecords.decodeTimings(bytes, into: &timings) }
            } catch {
                failed.withLock { $0 = true }
            }
            count += timings.values.count { $0.overlaps(window, in: timeZone) }
        }
        return count
    }

    /// The segments whose reach meets `window`.
    private func indices(mayOverlap window: DateInterval) -> [Int] {
        let from = window.start.timeIntervalSince1970
        let to = window.end.timeIntervalSince1970
        return segments.indices.filter { index in
            let descriptor = segments[index].descriptor
            return descriptor.earliest <= to && descriptor.latest >= from
        }
    }
}
