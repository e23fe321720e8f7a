import Crypto
import TetherVaultCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `connections.json`, checked against the vault key as `tether-cli` checks it before it uses a profile.
///
/// A profile's MAC covers its canonical JSON (every field but `mac`, sorted keys, no escaped slashes, as
/// `tether-cli` encodes the profile). The launcher encodes the entry as read, without decoding it into the
/// profile's type: the MAC matches only when the entry is exactly what `tether-cli` wrote, so a profile that
/// `tether-cli` would refuse (or read differently) never passes here. Every entry must pass, since `tether-cli`
/// refuses the whole file when any entry does not decode.
enum ProfileCheck {
    /// What the launcher needs of the profiles.
    struct Profiles {
        /// Every connection's name, sorted.
        var names: [String]
        /// Each confidential client's sealed secret, by connection name.
        var sealedSecrets: [String: String]
        /// The git hosts and registries saved with each connection (`tether login … --git-host`), by name.
        var helperSettings: [String: HelperSetting] = [:]

        /// The one connection whose saved setting lists `host` under `kind`; `nil` when none or several do
        /// (`tether-cli` then answers nothing, or says which).
        func connection(serving host: String, kind: KeyPath<HelperSetting, [String]>) -> String? {
            let matching = names.filter { helperSettings[$0]?[keyPath: kind].contains(host) ?? false }
            return matching.count == 1 ? matching[0] : nil
        }
    }

    /// A connection's `credentialHelpers` in `connections.json`, as `tether-cli` writes it.
    struct HelperSetting: Decodable {
        var gitHosts: [String] = []
        var gitUsername: String?
        var dockerRegistries: [String] = []
        var dockerUsername: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            gitHosts = try container.decodeIfPresent([String].self, forKey: .gitHosts) ?? []
            gitUsername = try container.decodeIfPresent(String.self, forKey: .gitUsername)
            dockerRegistries = try container.decodeIfPresent([String].self, forKey: .dockerRegistries) ?? []
            dockerUsername = try container.decodeIfPresent(String.self, forKey: .dockerUsername)
        }

        private enum CodingKeys: String, CodingKey {
            case gitHosts, gitUsername, dockerRegistries, dockerUsername
        }
    }

    /// The context of a profile's MAC.
    static let macContext = "tether.profile.v1"

    private struct Contents: Decodable {
        var format: Int
        var connections: [JSONValue]
    }

    /// The profiles when every one of them is bound to `key`; `nil` when the file is missing, does not read, has
    /// another format, or holds an entry that does not match its MAC.
    static func boundNames(home: String, key: SymmetricKey) -> Profiles? {
        guard case .read(let data) = PrivateFile.read(home + "/connections.json", requirePrivate: false),
            let contents = try? JSONDecoder().decode(Contents.self, from: data), contents.format == 1
        else { return nil }
        let macKey = VaultKeyDerivations.authenticationKey(key)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var profiles = Profiles(names: [], sealedSecrets: [:])
        for entry in contents.connections {
            guard case .object(var fields) = entry, case .string(let name)? = fields["name"],
                case .string(let mac)? = fields.removeValue(forKey: "mac"),
                let canonical = try? encoder.encode(JSONValue.object(fields)),
                VaultKeyDerivations.isValidAuthenticationCode(
                    mac,
                    for: canonical,
                    context: macContext,
                    authenticationKey: macKey
                )
            else { return nil }
            switch fields["sealedClientSecret"] {
            case nil: break
            case .string(let sealed)?: profiles.sealedSecrets[name] = sealed
            case _?: return nil
            }
            if let setting = fields["credentialHelpers"] {
                guard let data = try? encoder.encode(setting),
                    let decoded = try? JSONDecoder().decode(HelperSetting.self, from: data)
                else { return nil }
                profiles.helperSettings[name] = decoded
            }
            profiles.names.append(name)
        }
        profiles.names.sort()
        return profiles
    }
}
