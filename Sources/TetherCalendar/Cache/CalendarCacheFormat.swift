import Foundation

/// The files of a ``CalendarCache`` (format 2).
///
/// Each source has a small header file and, when it holds events, an events file:
///
/// ```
/// <name>.calendar-cache                 "TCAL", format (2 bytes, big-endian),
///                                       sealed probe, sealed header body (each: 4-byte length, then the bytes)
/// <name>.<generation>.calendar-events   "TCEV", format (2 bytes), then the sealed segments one after another
/// <name>.calendar-amendment             the sealed time and cursors of the last sync that changed no event
/// ```
///
/// The header body is JSON: the ``CalendarCache/Entry`` with its events left out (so every field the entry's
/// `Codable` conformance writes — cursors, windows, selected calendars, skipped events — is kept as it is), the
/// events file's generation, and per calendar the list of its segments: where each lies in the events file, its
/// identifier, its month, how many events it holds and the earliest and latest instant they may occupy. A segment
/// holds the events of one calendar that start in one month, in the binary form of ``EventRecords``.
///
/// Everything is sealed with the vault's key (AES-GCM). The associated data binds the probe and the header body to
/// the source, and each segment to the source, its calendar and its identifier (random, never reused), so that no
/// part can be moved to another source, calendar or slot. An events file is written once and never changed: a save
/// that changes events writes a new generation — copying the sealed segments of calendars that did not change —
/// and then the header; a save that changes no event rewrites the header alone, and one that changes nothing but the
/// time of the sync and the cursors writes only an ``Amendment``.
///
/// Format 1 was one file, `{"format":1,"probe":…,"body":…}`, its body the whole entry as sealed JSON; it is still
/// read, and the next save replaces it with format 2.
enum CalendarCacheFormat {
    /// The format this version writes, and the newest it reads.
    static let version: UInt16 = 2
    static let headerMagic: [UInt8] = Array("TCAL".utf8)
    static let eventsMagic: [UInt8] = Array("TCEV".utf8)
    static let probeText = "tether.calendar.cache.probe"

    /// Where one segment lies and what it may hold.
    struct SegmentDescriptor: Codable, Sendable, Hashable {
        /// Random and never reused; part of the segment's associated data.
        var id: String
        /// The month its events start in, counted from year 0.
        var month: Int
        /// How many events it holds.
        var count: Int
        /// The earliest instant (seconds since 1970) one of its events may occupy in any time zone.
        var earliest: Double
        /// The latest instant one of its events may occupy in any time zone.
        var latest: Double
        /// Where its sealed bytes start in the events file.
        var offset: Int
        /// How many sealed bytes it has.
        var length: Int
    }

    /// The header's sealed body.
    struct HeaderBody: Codable {
        /// Random, new with every header; an amendment names the header it amends.
        var id: String
        /// The entry, with no events.
        var entry: CalendarCache.Entry
        /// The events file's generation; `nil` when no calendar has events.
        var generation: String?
        /// Each calendar's segments, by calendar identifier.
        var segments: [String: [SegmentDescriptor]]
    }

    /// What a sync that changed no event changed: the time and the cursors. Kept beside the header in
    /// `<name>.calendar-amendment`, written without waiting for the disk, and read over the header it names; one that
    /// is missing, damaged, or names another header is ignored, which leaves the header's own time and cursors —
    /// older, and still correct.
    struct Amendment: Codable {
        /// The ``HeaderBody/id`` of the header it amends.
        var header: String
        var lastSuccessfulSync: Date
        /// Each calendar's cursor.
        var cursors: [String: String?]
    }

    // MARK: Associated data

    /// What the sealed parts of a source's files are bound to.
    static func context(_ source: CalendarSourceID) -> String { "tether.calendar.cache.v2:\(source.rawValue)" }

    static func probeContext(_ source: CalendarSourceID) -> Data { Data((context(source) + "\u{0}probe").utf8) }

    static func headerContext(_ source: CalendarSourceID) -> Data { Data((context(source) + "\u{0}header").utf8) }

    static func amendmentContext(_ source: CalendarSourceID, header: String) -> Data {
        Data((context(source) + "\u{0}amendment\u{0}" + header).utf8)
    }

    static func segmentContext(_ source: CalendarSourceID, calendar: String, id: String) -> Data {
        Data((context(source) + "\u{0}segment\u{0}" + calendar + "\u{0}" + id).utf8)
    }

    // MARK: Names

    /// A new generation or segment identifier: 128 random bits in hexadecimal.
    static func randomIdentifier() -> String {
        var generator = SystemRandomNumberGenerator()
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return hex(generator.next()) + hex(generator.next())
    }

    // MARK: Framing

    /// The header file: magic, format, then the sealed probe and body.
    static func headerFile(probe: Data, body: Data) -> Data {
        var writer = CacheByteWriter(capacity: probe.count + body.count + 16)
        for byte in headerMagic { writer.byte(byte) }
        writer.byte(UInt8(version >> 8))
        writer.byte(UInt8(version & 0xFF))
        writer.frameLength(probe.count)
        writer.raw(probe)
        writer.frameLength(body.count)
        writer.raw(body)
        return Data(writer.bytes)
    }

    /// What a header file holds before it is opened.
    enum HeaderFile {
        /// Format 1: a JSON object.
        case legacy
        /// Format 2 or later.
        case framed(version: UInt16, probe: Data, body: Data)
        /// Not a calendar cache header.
        case unknown
    }

    /// Splits a header file into its parts, without opening them.
    static func parseHeaderFile(_ data: Data) -> HeaderFile {
        guard let first = data.first else { return .unknown }
        if first == UInt8(ascii: "{") { return .legacy }
        return data.withUnsafeBytes { bytes in
            guard bytes.count >= 6, bytes.prefix(4).elementsEqual(headerMagic) else { return .unknown }
            let version = UInt16(bytes[4]) << 8 | UInt16(bytes[5])
            var reader = CacheByteReader(bytes, at: 6)
            do throws(CacheByteReader.Truncated) {
                let probeLength = try reader.frameLength()
                let probeStart = reader.index
                guard probeStart + probeLength <= bytes.count else { return .unknown }
                var bodyReader = CacheByteReader(bytes, at: probeStart + probeLength)
                let bodyLength = try bodyReader.frameLength()
                let bodyStart = bodyReader.index
                guard bodyStart + bodyLength == bytes.count else {
                    return version > self.version ? .framed(version: version, probe: Data(), body: Data()) : .unknown
                }
                return .framed(
                    version: version,
                    probe: Data(bytes[probeStart..<(probeStart + probeLength)]),
                    body: Data(bytes[bodyStart..<(bodyStart + bodyLength)])
                )
            } catch {
                return version > self.version ? .framed(version: version, probe: Data(), body: Data()) : .unknown
            }
        }
    }

    /// The start of an events file.
    static var eventsFilePrefix: [UInt8] { eventsMagic + [UInt8(version >> 8), UInt8(version & 0xFF)] }
}
