/// Where a ``VaultStore`` found its key, from the first source that has one.
///
/// The sources, in order: the key passed to ``VaultStore/init(directory:key:environment:clock:logger:)``,
/// `TETHER_VAULT_KEY`, a systemd credential, the Secret Service, and last the `vault.key` file beside the records.
/// Only the last one leaves the key in the folder it protects; `tether status` says so. See `docs/security.md` for
/// what each source protects against.
public struct VaultKeySource: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Hashable {
        case explicit
        case environment
        case systemdCredential
        case secretService
        case keyFile
    }

    let kind: Kind

    /// The key given to the initializer.
    public static let explicit = VaultKeySource(kind: .explicit)
    /// The `TETHER_VAULT_KEY` environment variable.
    public static let environment = VaultKeySource(kind: .environment)
    /// The file ``VaultStore/credentialName`` in `$CREDENTIALS_DIRECTORY`, which systemd fills from a service's
    /// `LoadCredentialEncrypted=` (or `LoadCredential=`, `SetCredential=`).
    public static let systemdCredential = VaultKeySource(kind: .systemdCredential)
    /// An item in the Secret Service (GNOME Keyring, KWallet), reached through libsecret over D-Bus.
    public static let secretService = VaultKeySource(kind: .secretService)
    /// The `vault.key` file in the vault's folder, beside the records it encrypts.
    public static let keyFile = VaultKeySource(kind: .keyFile)

    /// Whether the key sits in the vault's own folder, so that whoever can read the records can read the key.
    public var isBesideRecords: Bool { kind == .keyFile }

    /// A short name: `initializer`, `TETHER_VAULT_KEY`, `systemd credential`, `Secret Service` or `vault.key`.
    public var description: String {
        switch kind {
        case .explicit: "initializer"
        case .environment: "TETHER_VAULT_KEY"
        case .systemdCredential: "systemd credential"
        case .secretService: "Secret Service"
        case .keyFile: "vault.key"
        }
    }
}
