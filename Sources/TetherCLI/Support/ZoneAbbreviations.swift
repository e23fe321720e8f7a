import Foundation
import TetherCommandSupport

/// The abbreviations people read on clocks — `PST`, `CEST`, `JST` — from the time zone database's files.
///
/// Foundation answers `GMT+9` for Tokyo and `GMT+1` for Berlin in most locales. The tz database's own files
/// (`/usr/share/zoneinfo`, RFC 9636) end with a POSIX TZ string such as `CET-1CEST,M3.5.0,M10.5.0/3` that names
/// the zone's standard and daylight abbreviations today; Foundation says which applies at an instant. Where the
/// file is missing or unreadable, Foundation's answer stands. Zones the database gives no letters (`<+04>-4`)
/// read as their offset, `+04`.
struct ZoneAbbreviations {
    /// Where the compiled zone files are.
    let directory: URL
    private var names: [String: (standard: String, daylight: String?)?] = [:]

    init(directory: URL = URL(fileURLWithPath: "/usr/share/zoneinfo")) {
        self.directory = directory
    }

    /// `zone`'s abbreviation at `instant`.
    mutating func abbreviation(_ zone: TimeZone, at instant: Date) -> String {
        let identifier = zone.identifier
        if names[identifier] == nil {
            names[identifier] = .some(Self.read(identifier, in: directory))
        }
        if let found = names[identifier] ?? nil {
            if zone.isDaylightSavingTime(for: instant), let daylight = found.daylight { return daylight }
            if !zone.isDaylightSavingTime(for: instant) { return found.standard }
        }
        return zone.abbreviation(for: instant) ?? identifier
    }

    /// The names in the footer of `identifier`'s file; `nil` when there is no such file or footer.
    static func read(_ identifier: String, in directory: URL) -> (standard: String, daylight: String?)? {
        // The identifier comes from the airport table or the command line: a name like Area/City, never a path
        // that leaves the folder.
        let allowed = identifier.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || "/_-+".unicodeScalars.contains($0)
        }
        guard allowed, !identifier.contains(".."), !identifier.hasPrefix("/"),
            let data = try? Data(contentsOf: directory.appendingPathComponent(identifier)),
            data.count < 1 << 20, data.starts(with: Array("TZif".utf8))
        else { return nil }
        // Version 2 and later files end with "\n<TZ string>\n".
        guard data.last == UInt8(ascii: "\n"),
            let start = data.dropLast().lastIndex(of: UInt8(ascii: "\n")),
            let footer = String(data: data[(start + 1)..<(data.endIndex - 1)], encoding: .ascii)
        else { return nil }
        return names(posixTZ: footer)
    }

    /// The standard and daylight names of a POSIX TZ string (POSIX.1-2017 §8.3): `PST8PDT,M3.2.0,M11.1.0` gives
    /// `PST` and `PDT`, `<+04>-4` gives `+04`, `JST-9` gives `JST` alone.
    static func names(posixTZ text: String) -> (standard: String, daylight: String?)? {
        var rest = Substring(text)
        guard let standard = name(&rest) else { return nil }
        // The offset: sign, digits, colons.
        rest = rest.drop { "+-0123456789:".contains($0) }
        let daylight = name(&rest)
        return (standard, daylight)
    }

    /// Reads a name — three or more letters, or anything between `<` and `>` — from the front of `text`.
    private static func name(_ text: inout Substring) -> String? {
        if text.first == "<" {
            guard let end = text.firstIndex(of: ">") else { return nil }
            let name = text[text.index(after: text.startIndex)..<end]
            text = text[text.index(after: end)...]
            return name.isEmpty ? nil : String(name)
        }
        let letters = text.prefix { $0.isASCII && $0.isLetter }
        guard letters.count >= 3 else { return nil }
        text = text.dropFirst(letters.count)
        return String(letters)
    }
}
