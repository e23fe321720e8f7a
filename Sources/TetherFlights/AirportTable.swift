import Foundation

/// The airport table, `Resources/airports.tsv`, shipped in the target's resource bundle and read once, on first use.
///
/// One airport per line: IATA code, name, city, ISO 3166-1 country code and IANA time zone, separated by tabs; lines
/// that start with `#` are comments. `Scripts/generate-flight-data.py` writes it from the `airportsdata` package (see
/// `Data/LICENSE-DATA.md`).
///
/// The table is data rather than Swift source so that a clean build does not compile eight thousand lines of
/// literals. A table that cannot be read leaves the detector working without airports (see
/// ``FlightReferenceData/airportTableError``); the tests check that the bundled one loads.
enum AirportTable {
    /// Why the table could not be read. It names no path and no content of the file.
    enum LoadError: Error, Equatable {
        /// The resource bundle or the file in it was not found.
        case missing
        /// The file exists but could not be read.
        case unreadable
        /// The file is not UTF-8 text.
        case notText
        /// The line with this number (from 1) is not a valid record, or repeats a code.
        case malformed(line: Int)
        /// The file holds no airport.
        case empty
    }

    /// Reads the table from the target's resource bundle.
    ///
    /// - Returns: The airports by IATA code.
    /// - Throws: Every ``LoadError``.
    static func loadBundled() throws(LoadError) -> [String: Airport] {
        guard let url = bundledFileURL() else { throw .missing }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable
        }
        return try parse(data)
    }

    /// Parses the table's text.
    ///
    /// - Parameter data: The file's bytes.
    /// - Returns: The airports by IATA code.
    /// - Throws: ``LoadError/notText``, ``LoadError/malformed(line:)`` or ``LoadError/empty``.
    static func parse(_ data: Data) throws(LoadError) -> [String: Airport] {
        guard let text = String(data: data, encoding: .utf8) else { throw .notText }
        var airports: [String: Airport] = [:]
        airports.reserveCapacity(8000)
        var number = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 5, isCode(fields[0], length: 3), !fields[1].isEmpty,
                fields[3].isEmpty || isCode(fields[3], length: 2)
            else { throw .malformed(line: number) }
            let code = String(fields[0])
            let airport = Airport(
                iataCode: code,
                name: String(fields[1]),
                city: String(fields[2]),
                countryCode: String(fields[3]),
                timeZoneIdentifier: String(fields[4])
            )
            guard airports.updateValue(airport, forKey: code) == nil else { throw .malformed(line: number) }
        }
        guard !airports.isEmpty else { throw .empty }
        return airports
    }

    /// Whether a field is `length` upper-case ASCII letters.
    private static func isCode(_ field: Substring, length: Int) -> Bool {
        var count = 0
        for byte in field.utf8 {
            guard byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") else { return false }
            count += 1
        }
        return count == length
    }

    /// The table in the target's resource bundle, looked for where `Bundle.module` looks, without it: the generated
    /// accessor stops the process when the bundle is missing (an executable copied without its
    /// `<package>_TetherFlights.resources`), and a missing table must only leave the detector without airports.
    private static func bundledFileURL() -> URL? {
        // Beside the executable (Linux, Windows, `swift run`), in an app's resources (Apple platforms), then beside or
        // in the loaded bundles and frameworks (a test bundle next to the built products, a framework's resources).
        var folders = [Bundle.main.bundleURL, Bundle.main.resourceURL].compactMap { $0 }
        for bundle in Bundle.allBundles + Bundle.allFrameworks {
            folders += [bundle.resourceURL, bundle.bundleURL.deletingLastPathComponent()].compactMap { $0 }
        }
        var seen: Set<String> = []
        for folder in folders where seen.insert(folder.standardizedFileURL.path).inserted {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
            // The bundle's name starts with the identity of the package that holds this target, which depends on how
            // the package was added.
            for name in names.sorted()
            where name.hasSuffix("_TetherFlights.resources") || name.hasSuffix("_TetherFlights.bundle") {
                let bundle = Bundle(url: folder.appendingPathComponent(name, isDirectory: true))
                if let url = bundle?.url(forResource: "airports", withExtension: "tsv") { return url }
            }
        }
        return nil
    }
}
