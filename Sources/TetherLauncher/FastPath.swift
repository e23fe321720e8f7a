import Crypto
import TetherVaultCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A token in the vault that stays valid beyond the refresh leeway, as `tether token` would print it.
struct FreshToken: Sendable, Equatable {
    /// The connection's name.
    let connection: String
    /// The access token. A secret: it goes to standard output only.
    let accessToken: String
    /// The token type, such as `Bearer`.
    let tokenType: String
    /// When it expires; `nil` when the provider did not say.
    let expiresAt: Date?
    /// The ID token stored with it, if any. A secret too.
    var idToken: String? = nil
}

/// Reads a fresh token from the vault without the core, the network stack or the argument parser: only when every
/// check that `tether-cli` makes on the way to printing a stored token passes as well, and nothing would be
/// written. Anything else — no such connection, a token within the refresh leeway, a key in the Secret Service, a
/// PostgreSQL store, verbose logging, a file that is not as `tether-cli` writes it, any error — answers `nil`, and
/// the caller runs `tether-cli`, which then does exactly what it always does. So the fast path can only be faster,
/// never different. It logs nothing and throws nothing: a failure here is only a reason to fall back.
///
/// Checks, in `tether-cli`'s order: the folder (`TETHER_HOME`, else `$XDG_DATA_HOME/tether`, else
/// `~/.local/share/tether`) and its `records` and `locks` folders are private (owned by this user, not writable by
/// others, not symbolic links); the key comes from `TETHER_VAULT_KEY`, else the systemd credential, else
/// `vault.key` (private) — but when the Secret Service could hold it, the fast path steps aside; every profile in
/// `connections.json` matches its MAC (`tether-cli` checks only the one it uses, and refuses the file when any entry
/// does not decode); a sealed client secret opens; the connection has no entry in `status.json` (which
/// `tether-cli` would clear); the record opens (``VaultRecordCipher``) and its access token stays valid beyond the
/// leeway `Session.validAccessToken()` uses (5 minutes, at most a quarter of the token's lifetime).
enum FastPath {
    /// `Session.Configuration`'s default leeway, in seconds.
    static let leeway: Double = 300
    /// `Session.Configuration`'s default largest share of a lifetime the leeway may take.
    static let maximumLeewayFraction: Double = 0.25
    /// Added to the leeway, so that rounding never makes the fast path call a token fresh that the session would
    /// refresh.
    static let safetyMargin: Double = 0.001

    /// The fresh token of `connection` (else `TETHER_CONNECTION`, else the only connection), or `nil` when
    /// `tether-cli` must answer.
    /// - Parameters:
    ///   - connection: The name given on the command line.
    ///   - environment: The process's environment.
    ///   - now: The current time.
    static func freshToken(connection: String?, environment: [String: String], now: Date) -> FreshToken? {
        guard let vault = VaultAccess.open(environment),
            let name = resolveName(connection, environment: environment, profiles: vault.profiles)
        else { return nil }
        return freshToken(named: name, in: vault, now: now)
    }

    /// The fresh token of the connection `name` (a name the vault's profiles hold), or `nil` when `tether-cli` must
    /// answer.
    static func freshToken(named name: String, in vault: VaultAccess, now: Date) -> FreshToken? {
        guard vault.profiles.names.contains(name) else { return nil }
        if let sealed = vault.profiles.sealedSecrets[name] {
            let context = "tether.client-secret:\(name)"
            guard (try? VaultKeyDerivations.open(sealed: sealed, context: context, key: vault.key)) != nil else {
                return nil
            }
        }
        guard hasNoEntry(name, in: vault.home + "/status.json") else { return nil }
        return storedToken(name, home: vault.home, key: vault.key, now: now)
    }

    /// Whether `TETHER_VERBOSE` asks for debug logs, which only `tether-cli` writes.
    static func loggingRequested(_ environment: [String: String]) -> Bool {
        ["1", "true", "yes"].contains(environment["TETHER_VERBOSE"]?.lowercased() ?? "")
    }

    /// Whether the records are in the vault (`TETHER_STORE` unset, empty or `vault`).
    static func usesVault(_ environment: [String: String]) -> Bool {
        let store = environment["TETHER_STORE"] ?? ""
        return store.isEmpty || store == "vault"
    }

    /// The vault's folder, as `VaultStore.defaultDirectory` finds it; `nil` for a path that is not plainly absolute
    /// (`tether-cli` normalizes those, and checks the normalized path).
    static func home(_ environment: [String: String]) -> String? {
        let path: String
        if let home = environment["TETHER_HOME"], !home.isEmpty {
            path = home
        } else if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            path = data + "/tether"
        } else if let home = environment["HOME"], !home.isEmpty {
            path = home + "/.local/share/tether"
        } else {
            return nil
        }
        guard path.hasPrefix("/"), !path.hasSuffix("/"), !path.contains("//"), !path.contains("/./"),
            !path.contains("/../"), !path.hasSuffix("/."), !path.hasSuffix("/..")
        else { return nil }
        return path
    }

    /// The vault key from the sources `tether-cli` reads first: `TETHER_VAULT_KEY`, the systemd credential, then
    /// `vault.key` when the Secret Service is out of the question (turned off, or no D-Bus session).
    static func vaultKey(_ environment: [String: String], home: String) -> SymmetricKey? {
        if let text = environment["TETHER_VAULT_KEY"], !text.isEmpty {
            return VaultRecordCipher.key(base64: text)
        }
        if let folder = environment["CREDENTIALS_DIRECTORY"], !folder.isEmpty {
            switch PrivateFile.read(folder + "/tether-vault-key", requirePrivate: false) {
            case .absent: break
            case .failed: return nil
            case .read(let bytes):
                if bytes.count == 32 { return SymmetricKey(data: bytes) }
                return String(bytes: bytes, encoding: .utf8).flatMap { VaultRecordCipher.key(base64: $0) }
            }
        }
        let secretService = environment["TETHER_SECRET_SERVICE"]?.lowercased() ?? ""
        let secretServiceOff = ["0", "no", "off", "false"].contains(secretService)
        guard secretServiceOff || (environment["DBUS_SESSION_BUS_ADDRESS"] ?? "").isEmpty else { return nil }
        guard case .read(let bytes) = PrivateFile.read(home + "/vault.key", requirePrivate: true) else { return nil }
        return String(bytes: bytes, encoding: .utf8).flatMap { VaultRecordCipher.key(base64: $0) }
    }

    /// The connection `tether-cli` would use: the one named, else `TETHER_CONNECTION`, else the only one; `nil`
    /// when it would refuse the name or find several.
    static func resolveName(
        _ given: String?,
        environment: [String: String],
        profiles: ProfileCheck.Profiles
    ) -> String? {
        let name: String
        if let given {
            name = given
        } else if let named = environment["TETHER_CONNECTION"], !named.isEmpty {
            name = named
        } else if profiles.names.count == 1 {
            name = profiles.names[0]
        } else {
            return nil
        }
        guard !name.isEmpty, name.utf8.count <= 172, !name.hasPrefix("-"),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
            profiles.names.contains(name)
        else { return nil }
        return name
    }

    /// Whether the entry file at `path` (`status.json`, `rejected-tokens.json`: an object keyed by connection name)
    /// is absent or has no entry for `name`; `tether-cli` would act on an entry (remove it, or refresh first).
    static func hasNoEntry(_ name: String, in path: String) -> Bool {
        switch PrivateFile.read(path, requirePrivate: false) {
        case .absent: return true
        case .failed: return false
        case .read(let bytes):
            guard let entries = try? JSONDecoder().decode([String: JSONValue].self, from: bytes) else { return false }
            return !entries.keys.contains(where: { $0 == name })
        }
    }

    /// The fields of a record that `tether token` prints or judges by.
    struct StoredRecord: Decodable {
        struct Tokens: Decodable {
            var accessToken: String?
            var tokenType: String
            var receivedAt: Date
            var expiresAt: Date?
            var idToken: String?
        }

        var id: String
        var tokens: Tokens
    }

    /// The record of `name`, opened, when its access token is fresh.
    static func storedToken(_ name: String, home: String, key: SymmetricKey, now: Date) -> FreshToken? {
        let stem = Base64URLCoding.encode(Data(name.utf8))
        guard stem.utf8.count <= 230,
            case .read(let file) = PrivateFile.read("\(home)/records/\(stem).vault", requirePrivate: false),
            let plaintext = try? VaultRecordCipher.open(
                file,
                key: key,
                identifier: VaultRecordCipher.keyIdentifier(of: key),
                binding: name
            ),
            let record = try? JSONDecoder().decode(StoredRecord.self, from: plaintext),
            record.id == name, !record.id.isEmpty, record.id.count <= 200,
            let token = record.tokens.accessToken, token != "<redacted>", record.tokens.idToken != "<redacted>"
        else { return nil }
        if let expiresAt = record.tokens.expiresAt {
            let lifetime = max(0, expiresAt.timeIntervalSince(record.tokens.receivedAt))
            let leeway = min(Self.leeway, lifetime * maximumLeewayFraction) + safetyMargin
            guard now < expiresAt.addingTimeInterval(-leeway) else { return nil }
        }
        return FreshToken(
            connection: name,
            accessToken: token,
            tokenType: record.tokens.tokenType,
            expiresAt: record.tokens.expiresAt,
            idToken: record.tokens.idToken
        )
    }
}

/// A vault that passed the checks `tether-cli` makes before it reads a record: its folder, its key and its
/// profiles.
struct VaultAccess {
    /// The vault's folder.
    let home: String
    /// The vault key.
    let key: SymmetricKey
    /// The profiles, every one bound to the key.
    let profiles: ProfileCheck.Profiles

    /// The vault of this environment, or `nil` when `tether-cli` must answer (see ``FastPath``).
    static func open(_ environment: [String: String]) -> VaultAccess? {
        guard !FastPath.loggingRequested(environment), FastPath.usesVault(environment),
            let home = FastPath.home(environment), VaultFolders.arePrivate(home),
            let key = FastPath.vaultKey(environment, home: home),
            let profiles = ProfileCheck.boundNames(home: home, key: key)
        else { return nil }
        return VaultAccess(home: home, key: key, profiles: profiles)
    }
}
