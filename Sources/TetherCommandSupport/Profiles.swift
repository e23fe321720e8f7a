package import Foundation
package import Tether
package import TetherOAuth

/// One connection's settings: which provider, which client, which scopes. No readable secret: tokens live in the
/// vault, and a confidential client's secret is kept sealed with the vault's key.
package struct Profile: Sendable, Codable {
    /// The connection's name (`--name`), also its record's name in the vault.
    package var name: String
    /// The preset it was created from (`google`, `microsoft`, `dev`) or `oidc` for `--issuer`.
    package var preset: String
    /// The provider configuration, as `ProviderConfiguration` encodes it (RFC 8414 key names), without the client
    /// secret.
    package var provider: ProviderConfiguration
    /// A confidential client's secret, sealed with the vault key (AES-GCM, bound to the connection's name).
    package var sealedClientSecret: String?
    /// What makes the connection a calendar source (`tether login … --calendar`); `nil` for none, and in profiles
    /// written before calendars existed.
    package var calendar: CalendarSetting? = nil
    /// Which git hosts and container registries the connection's tokens go to (`tether login … --git-host`,
    /// `--docker-registry`); `nil` for none, and in profiles written before credential helpers existed.
    package var credentialHelpers: CredentialHelperSetting? = nil
    /// The connection's own grant-lifetime rules (`tether login … --grant-inactivity`, `--grant-lifetime`), which
    /// replace the preset's; `nil` for the preset's, and in profiles written before they existed.
    package var grantLifetime: GrantLifetimeSetting? = nil
    /// Binds the profile to the vault key: HMAC-SHA256 over ``canonicalBytes``, with a key derived from the vault
    /// key (`VaultStore.authenticationCode`). A profile without it, or whose fields no longer match it, is refused.
    package var mac: String? = nil

    package init(
        name: String,
        preset: String,
        provider: ProviderConfiguration,
        sealedClientSecret: String? = nil,
        calendar: CalendarSetting? = nil,
        credentialHelpers: CredentialHelperSetting? = nil,
        grantLifetime: GrantLifetimeSetting? = nil,
        mac: String? = nil
    ) {
        self.name = name
        self.preset = preset
        self.provider = provider
        self.sealedClientSecret = sealedClientSecret
        self.calendar = calendar
        self.credentialHelpers = credentialHelpers
        self.grantLifetime = grantLifetime
        self.mac = mac
    }

    /// The profile without its MAC, as JSON with sorted keys: what the MAC covers.
    package var canonicalBytes: Data {
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
package struct ProfileBindingError: Error, Sendable, CustomStringConvertible {
    package enum Problem: Sendable {
        case missing
        case mismatch
    }

    package let name: String
    package let path: String
    package let problem: Problem

    package var failure: CLIFailure {
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

    package var description: String { failure.description }
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
package struct ProfileFile: Sendable {
    package static let fileName = "connections.json"
    package static let format = 1
    /// The context of a profile's MAC.
    package static let macContext = "tether.profile.v1"

    package let url: URL
    package let home: URL
    /// The vault whose key the profiles are bound to.
    package let store: VaultStore

    package init(home: URL, store: VaultStore) {
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
    package func load() throws -> [Profile] {
        let profiles = try entries()
        for profile in profiles { try verify(profile) }
        return profiles
    }

    /// Every profile with the outcome of its check, sorted by name: for listings that show a refused profile as one
    /// broken entry instead of failing as a whole.
    package func loadEach() throws -> [(name: String, profile: Result<Profile, ProfileBindingError>)] {
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
    package func names() throws -> [String] {
        try entries().map(\.name)
    }

    /// The profile of `name`, checked against its MAC; `nil` when there is none.
    /// - Throws: ``ProfileBindingError`` when it is not bound to the vault key.
    package func profile(named name: String) throws -> Profile? {
        guard let profile = try entries().first(where: { $0.name == name }) else { return nil }
        try verify(profile)
        return profile
    }

    /// Checks a profile's MAC.
    package func verify(_ profile: Profile) throws {
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
    package func save(_ profile: Profile) throws {
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
    package func remove(named name: String) throws {
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
