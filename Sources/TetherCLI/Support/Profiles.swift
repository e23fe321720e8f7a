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
    /// Which git hosts and container registries the connection's tokens go to (`tether login … --git-host`,
    /// `--docker-registry`); `nil` for none, and in profiles written before credential helpers existed.
    var credentialHelpers: CredentialHelperSetting? = nil
    /// The connection's own grant-lifetime rules (`tether login … --grant-inactivity`, `--grant-lifetime`), which
    /// replace the preset's; `nil` for the preset's, and in profiles written before they existed.
    var grantLifetime: GrantLifetimeSetting? = nil
    /// Binds the profile to the vault key: HMAC-SHA256 over ``canonicalBytes``, with a key derived from the vault
    /// key (`VaultStore.authenticationCode`). A profile without it, or whose fields no longer match it, is refused.
    var mac: String? = nil

    /// The profile without its MAC, as JSON with sorted keys: what the MAC covers.
    var canonicalBytes: Data {
        get throws {
            var unsigned = self
            unsigned.mac = nil
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return try encoder.encode(unsigned)
        }
    }
}

/// A profile in connections.json that is not bound to this vault's key: its MAC is missing (stripped, or written
/// by a `tether` from before profiles were bound) or does not match (edited outside `tether`, or bound to another
/// vault key). It is refused and left as it is: using it could send a refresh token to an endpoint someone else
/// chose.
struct ProfileBindingError: Error, Sendable, CustomStringConvertible {
    enum Problem: Sendable {
        case missing
        case mismatch
    }

    let name: String
    let path: String
    let problem: Problem

    var failure: CLIFailure {
        let what =
            switch problem {
            case .missing: "are not bound to the vault key (no MAC)"
            case .mismatch: "do not match their MAC (changed outside tether, or bound to another vault key)"
            }
        return CLIFailure(
            .configuration,
            "The settings of '\(name)' in \(path) \(what); they were refused and left untouched",
            fix: "Check them, then run `tether login PROVIDER --name \(name)` with the provider's options to save "
                + "them again (or set TETHER_VAULT_KEY to the key they were bound with)"
        )
    }

    var description: String { failure.description }
}

/// `$TETHER_HOME/connections.json`: the profiles, written atomically, readable by people, each bound to the vault
/// key by a MAC (see docs/decisions.md, "Profiles are bound to the vault key").
///
/// ```json
/// {
///   "format": 1,
///   "connections": [
///     { "name": "dev", "preset": "dev", "provider": { "provider_id": "dev", … }, "mac": "…" }
///   ]
/// }
/// ```
struct ProfileFile: Sendable {
    static let fileName = "connections.json"
    static let format = 1
    /// The context of a profile's MAC.
    static let macContext = "tether.profile.v1"

    let url: URL
    let home: URL
    /// The vault whose key the profiles are bound to.
    let store: VaultStore

    init(home: URL, store: VaultStore) {
        self.home = home
        self.store = store
        url = home.appendingPathComponent(Self.fileName)
    }

    private struct Contents: Codable {
        var format: Int
        var connections: [Profile]
    }

    /// The profiles, sorted by name, each checked against its MAC; none when the file does not exist.
    /// - Throws: ``ProfileBindingError`` for the first profile that is not bound to the vault key.
    func load() throws -> [Profile] {
        let profiles = try entries()
        for profile in profiles { try verify(profile) }
        return profiles
    }

    /// Every profile with the outcome of its check, sorted by name: for listings that show a refused profile as one
    /// broken entry instead of failing as a whole.
    func loadEach() throws -> [(name: String, profile: Result<Profile, ProfileBindingError>)] {
        try entries().map { profile in
            do {
                try verify(profile)
                return (profile.name, .success(profile))
            } catch let error as ProfileBindingError {
                return (profile.name, .failure(error))
            }
        }
    }

    /// The names of the profiles, whether or not they are bound: names alone send nothing anywhere.
    func names() throws -> [String] {
        try entries().map(\.name)
    }

    /// The profile of `name`, checked against its MAC; `nil` when there is none.
    /// - Throws: ``ProfileBindingError`` when it is not bound to the vault key.
    func profile(named name: String) throws -> Profile? {
        guard let profile = try entries().first(where: { $0.name == name }) else { return nil }
        try verify(profile)
        return profile
    }

    /// Checks a profile's MAC.
    func verify(_ profile: Profile) throws {
        guard let mac = profile.mac else {
            throw ProfileBindingError(name: profile.name, path: url.path, problem: .missing)
        }
        do {
            try store.verifyAuthenticationCode(mac, for: try profile.canonicalBytes, context: Self.macContext)
        } catch {
            throw ProfileBindingError(name: profile.name, path: url.path, problem: .mismatch)
        }
    }

    /// The profiles as they are in the file, sorted by name, unchecked: for rewriting the file, which keeps the
    /// others exactly as they were.
    private func entries() throws -> [Profile] {
        let data: Data
        do {
            // Never through a symbolic link: settings someone else points to could send a refresh token anywhere.
            guard let read = try VaultFiles.readFile(url.path) else { return [] }
            data = read
        } catch {
            throw CLIFailure.from(error)
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

    /// Adds or replaces a profile, bound to the vault key.
    func save(_ profile: Profile) throws {
        try withLock {
            var profiles = try entries().filter { $0.name != profile.name }
            var stored = profile
            stored.provider.clientSecret = nil
            stored.mac = try store.authenticationCode(for: try stored.canonicalBytes, context: Self.macContext)
            profiles.append(stored)
            try write(profiles)
        }
    }

    /// Removes a profile; nothing when it does not exist.
    func remove(named name: String) throws {
        try withLock {
            let profiles = try entries()
            guard profiles.contains(where: { $0.name == name }) else { return }
            try write(profiles.filter { $0.name != name })
        }
    }

    /// Runs `body` holding `locks/connections.json.lock`, which serializes changes across processes.
    private func withLock<T>(_ body: () throws -> T) throws -> T {
        let path = home.appendingPathComponent("locks").appendingPathComponent("connections.json.lock").path
        do {
            return try VaultFiles.withExclusiveLock(path, body)
        } catch let error as CredentialStoreError {
            throw CLIFailure.from(error)
        }
    }

    /// Replaces the file atomically with a new one of mode 0600 whatever the umask; a symbolic link in its place is
    /// replaced, never followed. The vault made the folder when it was opened.
    private func write(_ profiles: [Profile]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(Contents(format: Self.format, connections: profiles.sorted { $0.name < $1.name }))
        do {
            try VaultFiles.replaceFile(url.path, with: data, directory: home.path)
        } catch let error as CredentialStoreError {
            throw CLIFailure(.failure, error.message, fix: "Check TETHER_HOME and its permissions")
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
