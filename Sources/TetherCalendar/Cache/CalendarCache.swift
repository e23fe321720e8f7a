public import Foundation
public import Tether
/// Keeps each source's last good events, selected calendars, sync cursors and last successful sync on disk,
/// sealed with a vault's key, so that a launch without network shows them at once.
///
/// Events are personal data. Each source's entry is one file, `<folder>/<name>.calendar-cache` (mode 0600, the
/// folder 0700), holding JSON sealed with AES-GCM under the ``Tether/VaultStore``'s key, with the source's name
/// as associated data so that a file cannot be moved to another source. A small sealed probe beside the data
/// tells a wrong key from a changed file. Writes are atomic: a temporary file, `fsync`, `rename`, `fsync` of
/// the folder.
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
    /// For each source, the file as this cache last opened or wrote it: a save that finds it unchanged need not
    /// open it again to know that it opens.
    private let known = LockedState<[CalendarSourceID: FileStamp]>([:])

    static let format = 1
    static let probeText = "tether.calendar.cache.probe"

    /// Opens a cache in `directory`, which the first write creates (mode 0700): opening a cache to read it, as a
    /// command that only reads does, creates nothing.
    /// - Parameters:
    ///   - directory: The folder, such as `calendar-cache` beside the vault's records.
    ///   - vault: The vault whose key seals the files.
    /// - Throws: ``CalendarCacheError/io`` when the folder exists but is not a private folder of the current user.
    public init(directory: URL, vault: VaultStore) throws {
        self.directory = directory
        self.vault = vault
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

    /// The file of `source`.
    public func fileURL(for source: CalendarSourceID) -> URL {
        let name = Base64URL.encode(Data(source.rawValue.utf8))
        return directory.appendingPathComponent(name + ".calendar-cache")
    }

    private struct File: Codable {
        var format: Int
        var probe: String
        var body: String
    }

    private static func context(_ source: CalendarSourceID) -> String { "tether.calendar.cache.v1:\(source.rawValue)" }

    /// Reads the cached state of `source`.
    /// - Parameter source: The source.
    /// - Returns: The entry, or `nil` when none is cached.
    /// - Throws: ``CalendarCacheError`` — `wrongKey`, `corrupted`, `unsupportedFormat`, `io`; the file is left
    ///   untouched.
    public func load(_ source: CalendarSourceID) throws -> Entry? {
        let path = fileURL(for: source).path
        let stamp = FileStamp(path)
        // The file's bytes and the sealed text are released before the JSON is decoded.
        guard var body = try unsealedBody(path, source: source) else { return nil }
        let json = Data(body.utf8)
        body = ""
        let entry = try decode(json, source: source)
        if let stamp { known.withLock { $0[source] = stamp } }
        return entry
    }

    /// Opens the file at `path`: its format, its probe and its sealed body.
    /// - Returns: The body's JSON text, or `nil` when there is no file.
    private func unsealedBody(_ path: String, source: CalendarSourceID) throws -> String? {
        guard let data = try Self.files({ try VaultFiles.readFile(path) }) else { return nil }
        guard let file = try? JSONDecoder().decode(File.self, from: data) else {
            throw CalendarCacheError.corrupted.with(message: "The calendar cache of \(source) is not a cache file")
        }
        guard file.format <= Self.format else {
            throw CalendarCacheError.unsupportedFormat.with(
                message: "The calendar cache of \(source) uses format \(file.format); this version reads \(Self.format)"
            )
        }
        let context = Self.context(source)
        guard (try? vault.open(sealed: file.probe, context: context)) == Self.probeText else {
            throw CalendarCacheError.wrongKey.with(
                message: "The calendar cache of \(source) does not open with this vault key"
            )
        }
        do {
            return try vault.open(sealed: file.body, context: context)
        } catch {
            throw CalendarCacheError.corrupted.with(
                message: "The calendar cache of \(source) was changed or truncated",
                cause: error
            )
        }
    }

    private func decode(_ json: Data, source: CalendarSourceID) throws -> Entry {
        do {
            let entry = try JSONDecoder().decode(Entry.self, from: json)
            guard entry.source == source else {
                throw CalendarCacheError.corrupted.with(message: "The calendar cache of \(source) names another source")
            }
            return entry
        } catch let error as CalendarCacheError {
            throw error
        } catch {
            throw CalendarCacheError.corrupted.with(
                message: "The calendar cache of \(source) does not decode",
                cause: error
            )
        }
    }

    /// Stores `entry`, replacing the source's file atomically.
    ///
    /// The file it replaces must open (see the type's discussion); one this cache opened or wrote last and that
    /// has not changed since (same file, size and modification time) is not opened again. The entry is written
    /// as JSON a thousand events at a time, so that its encoding never holds more than the JSON text itself.
    /// - Parameter entry: The entry.
    /// - Throws: ``CalendarCacheError`` — the error of the existing file when it does not open (it is kept), or
    ///   `io`.
    public func save(_ entry: Entry) throws {
        let path = fileURL(for: entry.source).path
        let stamp = FileStamp(path)
        if let stamp, known.withLock({ $0[entry.source] }) != stamp {
            _ = try unsealedBody(path, source: entry.source)
        }
        let context = Self.context(entry.source)
        let data: Data
        do {
            let probe = try vault.seal(Self.probeText, context: context)
            // The JSON bytes are released once they are text, the text once it is sealed.
            let body = try vault.seal(String(decoding: try Self.json(entry), as: UTF8.self), context: context)
            data = Self.fileData(probe: probe, body: body)
        } catch {
            throw CalendarCacheError.io.with(
                message: "Could not seal the calendar cache of \(entry.source)",
                cause: error
            )
        }
        try Self.files {
            try Self.makePrivateDirectories(directory.path)
            try VaultFiles.replaceFile(path, with: data, directory: directory.path)
        }
        let written = FileStamp(path)
        known.withLock { $0[entry.source] = written }
    }

    /// Deletes the cached state of `source`, whatever it holds. Deleting nothing is not an error.
    /// - Parameter source: The source.
    /// - Throws: ``CalendarCacheError/io``.
    public func remove(_ source: CalendarSourceID) throws {
        let path = fileURL(for: source).path
        known.withLock { $0[source] = nil }
        _ = try Self.files { try VaultFiles.remove(path) }
    }
}

extension CalendarCache {
    /// What tells one version of a file from another without reading it: the file, its size and its modification
    /// time (an atomic replacement is a new file).
    struct FileStamp: Equatable {
        var device: UInt64
        var file: UInt64
        var size: UInt64
        var modified: Date

        /// The stamp of the file at `path`; `nil` when there is none.
        init?(_ path: String) {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                let device = (attributes[.systemNumber] as? NSNumber)?.uint64Value,
                let file = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value,
                let size = (attributes[.size] as? NSNumber)?.uint64Value,
                let modified = attributes[.modificationDate] as? Date
            else { return nil }
            self.device = device
            self.file = file
            self.size = size
            self.modified = modified
        }
    }

    /// The events written at a time by ``json(_:)``.
    static let eventsPerChunk = 1_000

    /// `entry` as the JSON its `Codable` conformance reads, written a piece at a time: each calendar's events in
    /// chunks of ``eventsPerChunk``, so that the encoder's working copy is that of one chunk, not of every event.
    static func json(_ entry: Entry) throws -> Data {
        let encoder = JSONEncoder()
        var out = Data()
        func raw(_ text: String) { out.append(contentsOf: text.utf8) }
        func append<Value: Encodable>(_ value: Value) throws { out.append(try encoder.encode(value)) }
        raw(#"{"source":"#)
        try append(entry.source)
        raw(#","lastSuccessfulSync":"#)
        try append(entry.lastSuccessfulSync)
        if let chosen = entry.chosen {
            raw(#","selectedCalendars":"#)
            try append(chosen)
        }
        raw(#","state":{"calendars":{"#)
        for (index, (id, calendar)) in entry.state.calendars.enumerated() {
            if index > 0 { raw(",") }
            try append(id)
            raw(#":{"info":"#)
            try append(calendar.info)
            if let cursor = calendar.cursor {
                raw(#","cursor":"#)
                try append(cursor)
            }
            if let window = calendar.window {
                raw(#","window":"#)
                try append(window)
            }
            raw(#","skipped":"#)
            try append(calendar.skipped)
            raw(#","events":{"#)
            var chunk: [String: CalendarEvent] = [:]
            var isFirst = true
            func flush() throws {
                guard !chunk.isEmpty else { return }
                // `{…}` of the chunk without its braces.
                let encoded = try encoder.encode(chunk)
                if !isFirst { raw(",") }
                out.append(encoded.dropFirst().dropLast())
                isFirst = false
                chunk.removeAll(keepingCapacity: true)
            }
            for (key, event) in calendar.events {
                chunk[key] = event
                if chunk.count == eventsPerChunk { try flush() }
            }
            try flush()
            raw("}}")
        }
        raw("}}}")
        return out
    }

    /// The file: `{"format":…,"probe":…,"body":…}`. Both sealed values are base64, which JSON needs no escape for.
    static func fileData(probe: String, body: String) -> Data {
        var data = Data()
        data.reserveCapacity(body.utf8.count + probe.utf8.count + 64)
        data.append(contentsOf: #"{"format":\#(format),"probe":""#.utf8)
        data.append(contentsOf: probe.utf8)
        data.append(contentsOf: #"","body":""#.utf8)
        data.append(contentsOf: body.utf8)
        data.append(contentsOf: #""}"#.utf8)
        return data
    }
}

extension CalendarCache {
    /// Runs the vault's file operations, reporting their failures as ``CalendarCacheError/io``.
    fileprivate static func files<Result>(_ body: () throws -> Result) throws -> Result {
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
