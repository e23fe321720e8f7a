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
        /// The calendars the user chose; `nil` for the source's default.
        public var selectedCalendars: Set<String>?
        /// When the last successful sync finished.
        public var lastSuccessfulSync: Date

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
            self.selectedCalendars = selectedCalendars
            self.lastSuccessfulSync = lastSuccessfulSync
        }
    }

    /// The cache's folder.
    public let directory: URL
    private let vault: VaultStore

    static let format = 1
    static let probeText = "tether.calendar.cache.probe"

    /// Opens a cache in `directory`, creating it (mode 0700) when needed.
    /// - Parameters:
    ///   - directory: The folder, such as `calendar-cache` beside the vault's records.
    ///   - vault: The vault whose key seals the files.
    /// - Throws: ``CalendarCacheError/io`` when the folder cannot be created.
    public init(directory: URL, vault: VaultStore) throws {
        self.directory = directory
        self.vault = vault
        try Self.files { try Self.makePrivateDirectories(directory.path) }
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
        let name = Data(source.rawValue.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
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
        guard let data = try Self.files({ try VaultFiles.readFile(path) }) else { return nil }
        return try open(data, source: source)
    }

    private func open(_ data: Data, source: CalendarSourceID) throws -> Entry {
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
        let body: String
        do {
            body = try vault.open(sealed: file.body, context: context)
        } catch {
            throw CalendarCacheError.corrupted.with(
                message: "The calendar cache of \(source) was changed or truncated",
                cause: error
            )
        }
        do {
            let entry = try JSONDecoder().decode(Entry.self, from: Data(body.utf8))
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
    /// - Parameter entry: The entry.
    /// - Throws: ``CalendarCacheError`` — the error of the existing file when it does not open (it is kept), or
    ///   `io`.
    public func save(_ entry: Entry) throws {
        let path = fileURL(for: entry.source).path
        if let existing = try Self.files({ try VaultFiles.readFile(path) }) {
            _ = try open(existing, source: entry.source)
        }
        let context = Self.context(entry.source)
        let file: File
        do {
            let json = try JSONEncoder().encode(entry)
            file = File(
                format: Self.format,
                probe: try vault.seal(Self.probeText, context: context),
                body: try vault.seal(String(decoding: json, as: UTF8.self), context: context)
            )
        } catch {
            throw CalendarCacheError.io.with(
                message: "Could not seal the calendar cache of \(entry.source)",
                cause: error
            )
        }
        let data: Data
        do {
            data = try JSONEncoder().encode(file)
        } catch {
            throw CalendarCacheError.io.with(
                message: "Could not encode the calendar cache of \(entry.source)",
                cause: error
            )
        }
        try Self.files { try VaultFiles.replaceFile(path, with: data, directory: directory.path) }
    }

    /// Deletes the cached state of `source`, whatever it holds. Deleting nothing is not an error.
    /// - Parameter source: The source.
    /// - Throws: ``CalendarCacheError/io``.
    public func remove(_ source: CalendarSourceID) throws {
        let path = fileURL(for: source).path
        _ = try Self.files { try VaultFiles.remove(path) }
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
