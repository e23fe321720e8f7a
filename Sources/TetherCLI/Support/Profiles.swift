import Foundation
import Tether
import TetherOAuth

/// One connection's settings: which provider, which client, which scopes. No readable secret: tokens live in the
/// vault, and a confidential client's secret is kept sealed with the vault's key.
struct Profile: Sendable, Codable {
    /// The connection's name (`--name`), also its record's name in the vault.
    var name: String
    /// The preset it was created from (`google`, `microsoft`, `dev`) or `oidc` for `--issuer`.
    var preset: String
    /// The provider configuration, as `ProviderConfiguration` encodes it (RFC 8414 key names), without the client
    /// secret.
    var provider: ProviderConfiguration
    /// A confidential client's secret, sealed with the vault key (AES-GCM, bound to the connection's name).
    var sealedClientSecret: String?
    /// What makes the connection a calendar source (`tether login … --calendar`); `nil` for none, and in profiles
    /// written before calendars existed.
    var calendar: CalendarSetting? = nil
}

/// `$TETHER_HOME/connections.json`: the profiles, written atomically, readable by people.
///
/// ```json
/// {
///   "format": 1,
///   "connections": [
///     { "name": "dev", "preset": "dev", "provider": { "provider_id": "dev", "issuer": "http://127.0.0.1:8123", … } }
///   ]
/// }
/// ```
struct ProfileFile: Sendable {
    static let fileName = "connections.json"
    static let format = 1

    let url: URL
    let home: URL

    init(home: URL) {
        self.home = home
        url = home.appendingPathComponent(Self.fileName)
    }

    private struct Contents: Codable {
        var format: Int
        var connections: [Profile]
    }

    /// The profiles, sorted by name; none when the file does not exist.
    func load() throws -> [Profile] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return []
        } catch {
            throw CLIFailure(.failure, "Could not read \(url.path): \(error.localizedDescription)")
        }
        do {
            let contents = try JSONDecoder().decode(Contents.self, from: data)
            guard contents.format == Self.format else {
                throw CLIFailure(
                    .configuration,
                    "\(url.path) has format \(contents.format), this tether reads format \(Self.format)",
                    fix: "Use the tether that wrote it, or move the file aside"
                )
            }
            return contents.connections.sorted { $0.name < $1.name }
        } catch let failure as CLIFailure {
            throw failure
        } catch let error as ProviderConfigurationError {
            throw CLIFailure(.configuration, "\(url.path) is invalid: \(error.message)", fix: "Fix or remove the entry")
        } catch {
            throw CLIFailure(
                .configuration,
                "\(url.path) is not a valid connections file (\(Self.describe(error)))",
                fix: "Fix it by hand or move it aside; it was left untouched"
            )
        }
    }

    func profile(named name: String) throws -> Profile? {
        try load().first { $0.name == name }
    }

    /// Adds or replaces a profile.
    func save(_ profile: Profile) throws {
        try FileLock.withLock(home: home, name: "connections.json.lock") {
            var profiles = try load().filter { $0.name != profile.name }
            var stored = profile
            stored.provider.clientSecret = nil
            profiles.append(stored)
            try write(profiles)
        }
    }

    /// Removes a profile; nothing when it does not exist.
    func remove(named name: String) throws {
        try FileLock.withLock(home: home, name: "connections.json.lock") {
            let profiles = try load()
            guard profiles.contains(where: { $0.name == name }) else { return }
            try write(profiles.filter { $0.name != name })
        }
    }

    private func write(_ profiles: [Profile]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(Contents(format: Self.format, connections: profiles.sorted { $0.name < $1.name }))
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            try data.write(to: url, options: .atomic)
        } catch {
            throw CLIFailure(.failure, "Could not write \(url.path): \(error.localizedDescription)")
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing key '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "wrong value at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'"
        case DecodingError.dataCorrupted(let context): context.debugDescription
        default: "\(error)"
        }
    }
}
