import Foundation
import Tether

/// Reads format 1 of the calendar cache, which versions before format 2 wrote: one file per source,
/// `{"format":1,"probe":…,"body":…}`, the probe and the body sealed with ``Tether/VaultStore``'s text sealing under
/// `tether.calendar.cache.v1:<source>`, the body the whole ``CalendarCache/Entry`` as JSON.
enum LegacyCalendarCache {
    private struct File: Decodable {
        var format: Int
        var probe: String
        var body: String
    }

    private static let probeText = "tether.calendar.cache.probe"

    private static func context(_ source: CalendarSourceID) -> String { "tether.calendar.cache.v1:\(source.rawValue)" }

    /// Opens a format 1 file.
    /// - Throws: ``CalendarCacheError`` — `corrupted`, `wrongKey`, `unsupportedFormat`.
    static func open(_ data: Data, source: CalendarSourceID, vault: VaultStore) throws -> CalendarCache.Entry {
        guard let file = try? JSONDecoder().decode(File.self, from: data) else {
            throw CalendarCacheError.corrupted.with(message: "The calendar cache of \(source) is not a cache file")
        }
        guard file.format <= 1 else {
            throw CalendarCacheError.unsupportedFormat.with(
                message: "The calendar cache of \(source) uses format \(file.format); this version reads "
                    + "\(CalendarCacheFormat.version)"
            )
        }
        let context = Self.context(source)
        guard (try? vault.open(sealed: file.probe, context: context)) == probeText else {
            throw CalendarCacheError.wrongKey.with(
                message: "The calendar cache of \(source) does not open with this vault key"
            )
        }
        var body: String
        do {
            body = try vault.open(sealed: file.body, context: context)
        } catch {
            throw CalendarCacheError.corrupted.with(
                message: "The calendar cache of \(source) was changed or truncated",
                cause: error
            )
        }
        // The sealed text is released before the JSON is decoded.
        let json = Data(body.utf8)
        body = ""
        do {
            let entry = try JSONDecoder().decode(CalendarCache.Entry.self, from: json)
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
}
