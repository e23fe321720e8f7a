public import Foundation
public import Tether

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps each source's last good events, selected calendars, sync cursors and last successful sync on disk,
/// sealed with a vault's key, so that a launch without network shows them at once.
///
/// Events are personal data. Each source's entry is a small header file, `<folder>/<name>.calendar-cache`, and an
/// events file beside it (mode 0600, the folder 0700), sealed with AES-GCM under the ``Tether/VaultStore``'s key
/// and bound to the source's name, so that no file or part of one can be moved to another source. A small sealed
/// probe tells a wrong key from a changed file. Writes are atomic: a temporary file, `fsync`, `rename`, `fsync` of
/// the folder.
///
/// The events are kept per calendar and month and read only when needed: ``load(_:)`` opens (and so checks) every
/// part at once, but decodes the events of a month the first time something asks for them — a week's listing
/// decodes one or two months. A ``save(_:)`` whose events did not change since this cache loaded or wrote them (an
/// incremental sync that found no change) rewrites only the header; one that changed a calendar's events writes them
/// again and copies the others as they are. Files written by earlier versions (format 1, one JSON file) are read,
/// and replaced by the next save.
///
/// A file that does not open throws ``CalendarCacheError/wrongKey``, ``CalendarCacheError/corrupted`` or
/// ``CalendarCacheError/unsupportedFormat`` and is left exactly as it is — ``save(_:)`` refuses to replace it
/// too; only ``remove(_:)`` deletes it.
public final class CalendarCache: Sendable {
    /// One source's cached state.
    public struct Entry: Sendable, Hashable, Codable {
        /// The source.
        public var source: CalendarSourceID
        /// The events and cursors of the last successful sync.
        public var state: CalendarSyncState
        /// The calendars the user chose: the source's default, every calendar, or the ones named.
        public var selection: CalendarSelection {
            get { chosen ?? .default }
            set { chosen = newValue.isDefault ? nil : newValue }
        }
        /// The calendars the user chose one by one; `nil` for the source's default and for every calendar (see
        /// ``selection``).
        public var selectedCalendars: Set<String>? {
            get { selection.calendarIDs }
            set { selection = CalendarSelection(newValue) }
        }
        /// When the last successful sync finished.
        public var lastSuccessfulSync: Date
        /// The selection, absent for the default: kept under the key a set of identifiers had before, which it
        /// still reads.
        fileprivate var chosen: CalendarSelection?

        private enum CodingKeys: String, CodingKey {
            case source, state, lastSuccessfulSync
            case chosen = "selectedCalendars"
        }

        /// Creates an entry.
        /// - Parameters:
        ///   - source: The source.
        ///   - state: The events and cursors.
        ///   - selectedCalendars: The chosen calendars.
        ///   - lastSuccessfulSync: When the last successful sync finished.
        public init(
            source: CalendarSourceID,
            state: CalendarSyncState,
            selectedCalendars: Set<String>? = nil,
            lastSuccessfulSync: Date
        ) {
            self.source = source
            self.state = state
            self.lastSuccessfulSync = lastSuccessfulSync
            self.selectedCalendars = selectedCalendars
        }

        /// Creates an entry with a selection.
        /// - Parameters:
        ///   - source: The source.
        ///   - state: The events and cursors.
        ///   - selection: The chosen calendars.
        ///   - lastSuccessfulSync: When the last successful sync finished.
        public init(
            source: CalendarSourceID,
            state: CalendarSyncState,
            selection: CalendarSelection,
            lastSuccessfulSync: Date
        ) {
            self.init(source: source, state: state, lastSuccessfulSync: lastSuccessfulSync)
            self.selection = selection
        }
    }

    /// The cache's folder.
    public let directory: URL
    private let vault: VaultStore
    /// Whether events files are mapped rather than read (see ``init(directory:vault:mappingEventsFiles:)``).
    private let mapsEventsFiles: Bool
    /// For each source, the header as this cache last opened or wrote it and the segments it lists: a save that
    /// finds the header unchanged need not open it again, and one whose events did not change need not write them.
    private let known = LockedState<[CalendarSourceID: Known]>([:])

    /// Opens a cache in `directory`, which the first write creates (mode 0700): opening a cache to read it, as a
    /// command that only reads does, creates nothing.
    /// - Parameters:
    ///   - directory: The folder, such as `calendar-cache` beside the vault's records.
    ///   - vault: The vault whose key seals the files.
    /// - Throws: ``CalendarCacheError/io`` when the folder exists but is not a private folder of the current user.
    public convenience init(directory: URL, vault: VaultStore) throws {
        try self.init(directory: directory, vault: vault, mappingEventsFiles: false)
    }

    /// Opens a cache that, on Linux, maps its events files instead of reading them into memory, each page read in
    /// before a load goes on: for a process that lives a moment, such as a command, which it spares a millisecond
    /// of page faults per megabyte. A process that keeps the cache longer should read (see ``CacheFiles``).
    /// - Parameters:
    ///   - directory: The folder.
    ///   - vault: The vault whose key seals the files.
    ///   - mappingEventsFiles: Whether to map events files.
    /// - Throws: ``CalendarCacheError/io`` when the folder exists but is not a private folder of the current user.
    package init(directory: URL, vault: VaultStore, mappingEventsFiles: Bool) throws {
        self.directory = directory
        self.vault = vault
        self.mapsEventsFiles = mappingEventsFiles
        if FileManager.default.fileExists(atPath: directory.path) {
            try Self.files { try Self.makePrivateDirectories(directory.path) }
        }
    }

    /// A cache in the vault's folder: `<vault>/calendar-cache`.
    /// - Parameter vault: The vault.
    /// - Throws: ``CalendarCacheError/io``.
    public convenience init(vault: VaultStore) throws {
        try self.init(
            directory: vault.directory.appendingPathComponent("calendar-cache", isDirectory: true),
            vault: vault
        )
    }

    /// The header file of `source`, whose name the events file's name starts with.
    public func fileURL(for source: CalendarSourceID) -> URL {
        directory.appendingPathComponent(Self.baseName(source) + ".calendar-cache")
    }

    /// Reads the cached state of `source`. Its events are decoded a month at a time when first read.
    /// - Parameter source: The source.
    /// - Returns: The entry, or `nil` when none is cached.
    /// - Throws: ``CalendarCacheError`` — `wrongKey`, `corrupted`, `unsupportedFormat`, `io`; the files are left
    ///   untouched.
    public func load(_ source: CalendarSourceID) throws -> Entry? {
        // A save in another process may replace the events file between the two reads: read again once.
        do {
            return try read(source)
        } catch let error as EventsFileMissing {
            do {
                return try read(source)
            } catch is EventsFileMissing {
                throw CalendarCacheError.corrupted.with(
                    message: "The calendar cache of \(source) lost its events file (\(error.generation))"
                )
            }
        }
    }

    /// The time zone of `source`'s main calendar as the cache last stored it (``CalendarSyncState/primaryTimeZone``),
    /// read from the header alone: no events file is opened or checked. `nil` when nothing is cached, or the header
    /// does not open (``load(_:)`` says why).
    /// - Parameter source: The source.
    package func primaryTimeZone(of source: CalendarSourceID) -> TimeZone? {
        let path = fileURL(for: source).path
        guard let data = try? Self.files({ try VaultFiles.readFile(path) }),
            let opened = try? openHeader(data, source: source)
        else { return nil }
        switch opened {
        case .legacy(let entry): return entry.state.primaryTimeZone
        case .current(let body): return body.entry.state.primaryTimeZone
        }
    }

    /// Stores `entry`, replacing the source's files atomically.
    ///
    /// The files it replaces must open (see the type's discussion); a header this cache opened or wrote last and
    /// that has not changed since (same file, size and modification time) is not opened again. Calendars whose events
    /// are the ones this cache loaded or wrote are not written again; when no calendar changed, only the header is.
    /// - Parameter entry: The entry.
    /// - Throws: ``CalendarCacheError`` — the error of the existing file when it does not open (it is kept), or
    ///   `io`.
    public func save(_ entry: Entry) throws {
        try Self.files { try Self.makePrivateDirectories(directory.path) }
        try Self.files {
            try VaultFiles.withExclusiveLock(lockPath(entry.source)) { try write(entry) }
        }
    }

    /// Deletes the cached state of `source`, whatever it holds. Deleting nothing is not an error.
    /// - Parameter source: The source.
    /// - Throws: ``CalendarCacheError/io``.
    public func remove(_ source: CalendarSourceID) throws {
        known.withLock { $0[source] = nil }
        try Self.files {
            try VaultFiles.remove(fileURL(for: source).path)
            try VaultFiles.remove(amendmentPath(source))
            for name in try eventsFiles(of: source) { try VaultFiles.remove(path(name)) }
            if FileManager.default.fileExists(atPath: lockPath(source)) { try VaultFiles.remove(lockPath(source)) }
        }
    }
}

// MARK: - Reading

extension CalendarCache {
    /// The events file a header names is gone: another process replaced it in between.
    private struct EventsFileMissing: Error {
        let generation: String
    }

    /// What this cache knows of a source's files.
    struct Known: Sendable {
        /// The header file as last opened or written.
        var stamp: FileStamp
        /// The events file the header names.
        var generation: String?
        /// For each calendar, the version of its events and the sealed segments that hold it.
        var calendars: [String: KnownCalendar]
        /// The header's identifier and entry (without events, amendments or not), when it is in format 2.
        var header: (id: String, entry: Entry)? = nil
    }

    /// A calendar's events as written in the events file: which version of the events (see
    /// ``CalendarEventStorage/revision``), and their segments.
    struct KnownCalendar: Sendable {
        let revision: CalendarEventStorage.Revision
        let segments: [(descriptor: CalendarCacheFormat.SegmentDescriptor, sealed: Data)]
    }

    private func read(_ source: CalendarSourceID) throws -> Entry? {
        let path = fileURL(for: source).path
        let stamp = FileStamp(path)
        guard let data = try Self.files({ try VaultFiles.readFile(path) }) else { return nil }
        let opened = try openHeader(data, source: source)
        switch opened {
        case .legacy(let entry):
            // Every calendar's events are in memory: the next save writes them in the current format.
            if let stamp { known.withLock { $0[source] = Known(stamp: stamp, generation: nil, calendars: [:]) } }
            return entry
        case .current(let body):
            var entry = body.entry
            if let amendment = amendment(of: body, source: source) {
                entry.lastSuccessfulSync = amendment.lastSuccessfulSync
                for (id, cursor) in amendment.cursors where entry.state.calendars[id] != nil {
                    entry.state.calendars[id]?.cursor = cursor
                }
            }
            var calendars: [String: KnownCalendar] = [:]
            let file = try body.generation.map { try eventsFile(source, generation: $0) }
            for (id, var calendar) in entry.state.calendars {
                let descriptors = body.segments[id] ?? []
                var segments: [CachedEventSegments.Segment] = []
                if !descriptors.isEmpty {
                    guard let file else {
                        throw CalendarCacheError.corrupted.with(message: "The calendar cache of \(source) is damaged")
                    }
                    for descriptor in descriptors {
                        segments.append(try segment(descriptor, in: file, source: source, calendar: id))
                    }
                }
                let revision = CalendarEventStorage.Revision()
                calendar.storage = CalendarEventStorage(
                    segments: CachedEventSegments(source: source, calendarID: id, segments: segments) {
                        [vault] segment in
                        try vault.open(
                            sealedBytes: segment.sealed,
                            context: CalendarCacheFormat.segmentContext(source, calendar: id, id: segment.descriptor.id)
                        )
                    },
                    revision: revision
                )
                entry.state.calendars[id] = calendar
                calendars[id] = KnownCalendar(revision: revision, segments: segments.map { ($0.descriptor, $0.sealed) })
            }
            if let stamp {
                known.withLock {
                    $0[source] = Known(
                        stamp: stamp,
                        generation: body.generation,
                        calendars: calendars,
                        header: (body.id, body.entry)
                    )
                }
            }
            return entry
        }
    }

    /// The amendment of the header `body`, when there is one that opens and names it.
    private func amendment(
        of body: CalendarCacheFormat.HeaderBody,
        source: CalendarSourceID
    ) -> CalendarCacheFormat.Amendment? {
        guard let sealed = try? VaultFiles.readFile(amendmentPath(source)),
            let json = try? vault.open(
                sealedBytes: sealed,
                context: CalendarCacheFormat.amendmentContext(source, header: body.id)
            ),
            let amendment = try? JSONDecoder().decode(CalendarCacheFormat.Amendment.self, from: json),
            amendment.header == body.id
        else { return nil }
        return amendment
    }

    /// A header file, opened.
    private enum OpenedHeader {
        case legacy(Entry)
        case current(CalendarCacheFormat.HeaderBody)
    }

    private func openHeader(_ data: Data, source: CalendarSourceID) throws -> OpenedHeader {
        switch CalendarCacheFormat.parseHeaderFile(data) {
        case .unknown:
            throw CalendarCacheError.corrupted.with(message: "The calendar cache of \(source) is not a cache file")
        case .legacy:
            return .legacy(try LegacyCalendarCache.open(data, source: source, vault: vault))
        case .framed(let version, let probe, let body):
            guard version <= CalendarCacheFormat.version else {
                throw CalendarCacheError.unsupportedFormat.with(
                    message: "The calendar cache of \(source) uses format \(version); this version reads "
                        + "\(CalendarCacheFormat.version)"
                )
            }
            let probeText = try? vault.open(sealedBytes: probe, context: CalendarCacheFormat.probeContext(source))
            guard probeText == Data(CalendarCacheFormat.probeText.utf8) else {
                throw CalendarCacheError.wrongKey.with(
                    message: "The calendar cache of \(source) does not open with this vault key"
                )
            }
            let json: Data
            do {
                json = try vault.open(sealedBytes: body, context: CalendarCacheFormat.headerContext(source))
            } catch {
                throw CalendarCacheError.corrupted.with(
                    message: "The calendar cache of \(source) was changed or truncated",
                    cause: error
                )
            }
            let header: CalendarCacheFormat.HeaderBody
            do {
                header = try JSONDecoder().decode(CalendarCacheFormat.HeaderBody.self, from: json)
            } catch {
                throw CalendarCacheError.corrupted.with(
                    message: "The calendar cache of \(source) does not decode",
                    cause: error
                )
            }
            guard header.entry.source == source else {
                throw CalendarCacheError.corrupted.with(message: "The calendar cache of \(source) names another source")
            }
            return .current(header)
        }
    }

    /// The events file of `generation`, its prefix checked.
    private func eventsFile(_ source: CalendarSourceID, generation: String) throws -> Data {
        guard generation.utf8.allSatisfy({ $0.isHexDigit }), !generation.isEmpty else {
            throw CalendarCacheError.corrupted.with(message: "The calendar cache of \(source) is damaged")
        }
        let data: Data?
        do {
            data = try CacheFiles.read(path(eventsFileName(source, generation)), mapping: mapsEventsFiles)
        } catch {
            throw CalendarCacheError.io.with(message: "The calendar cache of \(source) could not be read", cause: error)
        }
        guard let data else { throw EventsFileMissing(generation: generation) }
        guard data.starts(with: CalendarCacheFormat.eventsFilePrefix) else {
            throw CalendarCacheError.corrupted.with(
                message: "The calendar cache of \(source) has a damaged events file"
            )
        }
        return data
    }

    /// One segment of `file`, checked: its plaintext is dropped at once and read again when its month is (see
    /// ``CachedEventSegments``).
    private func segment(
        _ descriptor: CalendarCacheFormat.SegmentDescriptor,
        in file: Data,
        source: CalendarSourceID,
        calendar: String
    ) throws -> CachedEventSegments.Segment {
        let start = file.startIndex + descriptor.offset
        guard descriptor.offset >= CalendarCacheFormat.eventsFilePrefix.count, descriptor.length > 0,
            descriptor.count >= 0, descriptor.length <= file.count - descriptor.offset
        else {
            throw CalendarCacheError.corrupted.with(message: "The calendar cache of \(source) was truncated")
        }
        let sealed = file[start..<(start + descriptor.length)]
        do {
            _ = try vault.open(
                sealedBytes: sealed,
                context: CalendarCacheFormat.segmentContext(source, calendar: calendar, id: descriptor.id)
            )
            return CachedEventSegments.Segment(descriptor: descriptor, sealed: sealed)
        } catch {
            throw CalendarCacheError.corrupted.with(
                message: "The calendar cache of \(source) was changed or truncated",
                cause: error
            )
        }
    }
}

// MARK: - Writing

extension CalendarCache {
    /// Writes `entry`; see ``save(_:)``. Runs under the source's lock.
    private func write(_ entry: Entry) throws {
        let source = entry.source
        // Events that could not all be read again from the file they were loaded from (another program changed a
        // mapped file) would be written without the months that failed: the file stays as it is.
        guard entry.state.calendars.values.allSatisfy({ $0.storage.isComplete }) else {
            throw CalendarCacheError.corrupted.with(
                message: "The calendar cache of \(source) changed while it was read; it was not written"
            )
        }
        let headerPath = fileURL(for: source).path
        var remembered = known.withLock { $0[source] }
        var headerUnchanged = remembered != nil
        if let stamp = FileStamp(headerPath) {
            if stamp != remembered?.stamp {
                // Another writer's files, or ones this cache never opened: they must open before they are replaced.
                _ = try load(source)
                headerUnchanged = false
            }
        } else {
            // Deleted since: so may its events file be.
            headerUnchanged = false
            remembered = nil
        }

        // The calendars whose events are the ones this cache last loaded or wrote.
        // The calendars whose sealed segments can be written again as they are, and those among them that are in
        // the events file the header names now.
        var reusable: [String: KnownCalendar] = [:]
        var inPlace = 0
        for (id, calendar) in entry.state.calendars {
            if let written = remembered?.calendars[id], written.revision === calendar.storage.revision {
                reusable[id] = written
                inPlace += 1
            } else if let loaded = calendar.storage.segments, loaded.source == source, loaded.calendarID == id {
                // Loaded by another cache over the same folder: its sealed segments are this source's.
                reusable[id] = KnownCalendar(
                    revision: calendar.storage.revision,
                    segments: loaded.segments.map { ($0.descriptor, $0.sealed) }
                )
            }
        }
        let eventsUnchanged = headerUnchanged && inPlace == entry.state.calendars.count

        if eventsUnchanged, let remembered, try writeAmendmentIfEnough(entry, over: remembered) { return }

        var generation = remembered?.generation
        var written: [String: KnownCalendar] = [:]
        if eventsUnchanged {
            written = reusable
        } else {
            generation = nil
            var file = CacheByteWriter()
            file.raw(CalendarCacheFormat.eventsFilePrefix)
            for id in entry.state.calendars.keys.sorted() {
                guard let calendar = entry.state.calendars[id] else { continue }
                let segments =
                    try reusable[id]?.segments
                    ?? sealSegments(calendar.storage.events, source: source, calendar: id)
                if mapsEventsFiles, reusable[id] != nil {
                    // Mapped, they are the file's bytes now: another program may have changed them since the load.
                    for (descriptor, sealed) in segments {
                        let context = CalendarCacheFormat.segmentContext(source, calendar: id, id: descriptor.id)
                        guard (try? vault.open(sealedBytes: sealed, context: context)) != nil else {
                            throw CalendarCacheError.corrupted.with(
                                message: "The calendar cache of \(source) changed while it was read; it was not written"
                            )
                        }
                    }
                }
                var placed: [(descriptor: CalendarCacheFormat.SegmentDescriptor, sealed: Data)] = []
                for (descriptor, sealed) in segments {
                    var moved = descriptor
                    moved.offset = file.bytes.count
                    moved.length = sealed.count
                    file.raw(sealed)
                    placed.append((moved, sealed))
                }
                written[id] = KnownCalendar(revision: calendar.storage.revision, segments: placed)
            }
            if written.values.contains(where: { !$0.segments.isEmpty }) {
                let name = CalendarCacheFormat.randomIdentifier()
                try Self.files {
                    try VaultFiles.replaceFile(
                        path(eventsFileName(source, name)),
                        with: Data(file.bytes),
                        directory: directory.path
                    )
                }
                generation = name
            }
        }

        let header = try writeHeader(entry, generation: generation, calendars: written)
        if !eventsUnchanged {
            // The previous events file, and any a writer that failed half-way left behind.
            try Self.files {
                for name in try eventsFiles(of: source) where name != generation.map({ eventsFileName(source, $0) }) {
                    try VaultFiles.remove(path(name))
                }
            }
        }
        if let stamp = FileStamp(headerPath) {
            known.withLock {
                $0[source] = Known(stamp: stamp, generation: generation, calendars: written, header: header)
            }
        }
    }

    /// Writes an amendment instead of a header when the entry differs from the header on disk in nothing but the time
    /// of the sync and the cursors (see ``CalendarCacheFormat/Amendment``).
    /// - Returns: Whether it did.
    private func writeAmendmentIfEnough(_ entry: Entry, over remembered: Known) throws -> Bool {
        guard let header = remembered.header else { return false }
        var candidate = Self.withoutEvents(entry)
        candidate.lastSuccessfulSync = header.entry.lastSuccessfulSync
        var cursors: [String: String?] = [:]
        for (id, calendar) in entry.state.calendars {
            cursors[id] = calendar.cursor
            candidate.state.calendars[id]?.cursor = header.entry.state.calendars[id]?.cursor
        }
        guard candidate == header.entry else { return false }
        let amendment = CalendarCacheFormat.Amendment(
            header: header.id,
            lastSuccessfulSync: entry.lastSuccessfulSync,
            cursors: cursors
        )
        do {
            let sealed = try vault.seal(
                bytes: try JSONEncoder().encode(amendment),
                context: CalendarCacheFormat.amendmentContext(entry.source, header: header.id)
            )
            try CacheFiles.replaceWithoutFlush(amendmentPath(entry.source), with: sealed)
        } catch {
            throw CalendarCacheError.io.with(
                message: "Could not write the calendar cache of \(entry.source)",
                cause: error
            )
        }
        return true
    }

    /// `entry` with no events in any calendar.
    private static func withoutEvents(_ entry: Entry) -> Entry {
        var bare = entry
        for id in bare.state.calendars.keys { bare.state.calendars[id]?.events = [:] }
        return bare
    }

    /// Seals `events` a month at a time.
    private func sealSegments(
        _ events: [String: CalendarEvent],
        source: CalendarSourceID,
        calendar: String
    ) throws -> [(descriptor: CalendarCacheFormat.SegmentDescriptor, sealed: Data)] {
        var months: [Int: [(key: String, event: CalendarEvent)]] = [:]
        for (key, event) in events { months[EventRecords.month(of: event), default: []].append((key, event)) }
        var result: [(descriptor: CalendarCacheFormat.SegmentDescriptor, sealed: Data)] = []
        for month in months.keys.sorted() {
            guard let group = months[month] else { continue }
            var earliest = Double.greatestFiniteMagnitude
            var latest = -Double.greatestFiniteMagnitude
            for (_, event) in group {
                let reach = EventRecords.reach(of: event)
                earliest = min(earliest, reach.lowerBound)
                latest = max(latest, reach.upperBound)
            }
            let id = CalendarCacheFormat.randomIdentifier()
            let sealed: Data
            do {
                sealed = try vault.seal(
                    bytes: Data(EventRecords.encode(group)),
                    context: CalendarCacheFormat.segmentContext(source, calendar: calendar, id: id)
                )
            } catch {
                throw CalendarCacheError.io.with(
                    message: "Could not seal the calendar cache of \(source)",
                    cause: error
                )
            }
            let descriptor = CalendarCacheFormat.SegmentDescriptor(
                id: id,
                month: month,
                count: group.count,
                earliest: earliest.clamped(),
                latest: latest.clamped(),
                offset: 0,
                length: sealed.count
            )
            result.append((descriptor, sealed))
        }
        return result
    }

    /// Writes the header: the entry without its events, the events file and where each calendar's segments are.
    /// An amendment of the header it replaces is removed.
    /// - Returns: The new header's identifier and entry.
    private func writeHeader(
        _ entry: Entry,
        generation: String?,
        calendars: [String: KnownCalendar]
    ) throws -> (id: String, entry: Entry) {
        let bare = Self.withoutEvents(entry)
        let body = CalendarCacheFormat.HeaderBody(
            id: CalendarCacheFormat.randomIdentifier(),
            entry: bare,
            generation: generation,
            segments: calendars.compactMapValues { known in
                known.segments.isEmpty ? nil : known.segments.map(\.descriptor)
            }
        )
        let data: Data
        do {
            let json = try JSONEncoder().encode(body)
            let probe = try vault.seal(
                bytes: Data(CalendarCacheFormat.probeText.utf8),
                context: CalendarCacheFormat.probeContext(entry.source)
            )
            let sealed = try vault.seal(bytes: json, context: CalendarCacheFormat.headerContext(entry.source))
            data = CalendarCacheFormat.headerFile(probe: probe, body: sealed)
        } catch {
            throw CalendarCacheError.io.with(
                message: "Could not seal the calendar cache of \(entry.source)",
                cause: error
            )
        }
        try Self.files {
            try VaultFiles.replaceFile(fileURL(for: entry.source).path, with: data, directory: directory.path)
            try VaultFiles.remove(amendmentPath(entry.source))
        }
        return (body.id, bare)
    }
}

// MARK: - Files

extension CalendarCache {
    /// The start of every file name of `source`: its name in base64url, which holds no dot.
    static func baseName(_ source: CalendarSourceID) -> String { Base64URL.encode(Data(source.rawValue.utf8)) }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func eventsFileName(_ source: CalendarSourceID, _ generation: String) -> String {
        Self.baseName(source) + "." + generation + ".calendar-events"
    }

    private func amendmentPath(_ source: CalendarSourceID) -> String {
        path(Self.baseName(source) + ".calendar-amendment")
    }

    private func lockPath(_ source: CalendarSourceID) -> String {
        path(Self.baseName(source) + ".calendar-cache.lock")
    }

    /// The names of `source`'s events files in the folder, and the temporary files of both events and amendments.
    private func eventsFiles(of source: CalendarSourceID) throws -> [String] {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        let prefix = Self.baseName(source) + "."
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { name in
            name.hasPrefix(prefix) && (name.contains(".calendar-events") || name.contains(".calendar-amendment.tmp-"))
        }
    }

    /// What tells one version of a file from another without reading it: the file, its size and its modification
    /// time (an atomic replacement is a new file).
    struct FileStamp: Equatable, Sendable {
        var device: UInt64
        var file: UInt64
        var size: UInt64
        var modified: Date

        /// The stamp of the file at `path` (a symbolic link's own); `nil` when there is none. `lstat` alone: no
        /// owner or group names looked up, as `FileManager.attributesOfItem` does with every call.
        init?(_ path: String) {
            var info = stat()
            guard lstat(path, &info) == 0 else { return nil }
            #if canImport(Darwin)
            let time = info.st_mtimespec
            #else
            let time = info.st_mtim
            #endif
            device = UInt64(truncatingIfNeeded: info.st_dev)
            file = UInt64(truncatingIfNeeded: info.st_ino)
            size = UInt64(truncatingIfNeeded: info.st_size)
            modified = Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000)
        }
    }

    /// Runs the vault's file operations, reporting their failures as ``CalendarCacheError/io``.
    static func files<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as CredentialStoreError {
            throw CalendarCacheError.io.with(message: error.message, cause: error.cause)
        }
    }

    /// Creates `path` and any missing parents, each private (mode 0700).
    fileprivate static func makePrivateDirectories(_ path: String) throws {
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path, !FileManager.default.fileExists(atPath: parent) {
            try makePrivateDirectories(parent)
        }
        try VaultFiles.makePrivateDirectory(path)
    }
}

extension Double {
    /// The value within the finite doubles, which JSON can hold.
    fileprivate func clamped() -> Double {
        isNaN ? 0 : Swift.min(Swift.max(self, -Double.greatestFiniteMagnitude), Double.greatestFiniteMagnitude)
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
    }
}
