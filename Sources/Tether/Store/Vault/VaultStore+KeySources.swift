import Crypto
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension VaultStore {
    /// The name of the systemd credential that holds a vault's key: the file `$CREDENTIALS_DIRECTORY/tether-vault-key`,
    /// which systemd provides to a service started with `LoadCredentialEncrypted=tether-vault-key:…`. It holds the key's
    /// 32 bytes, or their base64 encoding.
    public static let credentialName = "tether-vault-key"

    /// The variable systemd sets to the folder of a service's credentials.
    static let credentialsVariable = "CREDENTIALS_DIRECTORY"

    /// Where the key comes from, and what to do with a `vault.key` still in the folder.
    struct KeyResolution: Sendable {
        var key: VaultKey
        var source: VaultKeySource
        /// `vault.key` is still in the folder and the Secret Service can take it (or already holds the same key):
        /// the next write moves it there and removes the file.
        var movesKeyFile = false
    }

    /// What the key is looked for in, fixed when the vault is opened.
    struct KeySources: Sendable {
        var explicit: VaultKey?
        var environment: [String: String]
        var keyring: (any KeyringBackend)?
        /// Why no keyring is tried (turned off, no D-Bus session, no libsecret), or why the last try found none.
        var keyringNote: LockedState<String?>
        var root: String
        /// Whether a new key is made (in the Secret Service, else in `vault.key`) when no source has one; `false`
        /// for a vault opened only to read, which creates nothing.
        var createsKey = true
    }

    /// The attributes of the Secret Service item that holds the key of the vault in `root`.
    package static func keyItemAttributes(root: String) -> [String: String] {
        ["application": "tether", "vault": root]
    }

    static func keyItemLabel(root: String) -> String { "Tether vault key (\(root))" }

    /// The key when the vault is opened: `nil` while the Secret Service is locked (each call tries again), and for
    /// a vault that creates nothing when no source has a key yet and nothing is sealed.
    /// - Throws: What ``resolveKey(_:logger:)`` throws, except ``CredentialStoreError/unavailable``.
    static func initialKey(_ sources: KeySources, logger: Logger) throws -> KeyResolution? {
        do {
            return try resolveKeyIfAny(sources, logger: logger)
        } catch let error as CredentialStoreError where error == .unavailable {
            // A locked keyring: the vault opens, and each call tries again (see "The key").
            logger.debug("The vault key cannot be read yet", metadata: ["vault.error": "\(error)"])
            return nil
        }
    }

    /// Finds the key in the first source that has one: the initializer, `TETHER_VAULT_KEY`, the systemd
    /// credential, the Secret Service, the `vault.key` file (created when no source has a key and no record exists).
    /// A source that is there but unreadable or malformed throws; it is never skipped for a later one.
    /// - Throws: ``CredentialStoreError/unavailable`` when the Secret Service is locked or failing;
    ///   ``CredentialStoreError/invalidConfiguration`` for a malformed key in any source, a Secret Service key
    ///   that differs from `vault.key`, or a `vault.key` that is not private; ``CredentialStoreError/missingKey``
    ///   when records exist but no key, or no source has a key and ``KeySources/createsKey`` is `false`.
    static func resolveKey(_ sources: KeySources, logger: Logger) throws -> KeyResolution {
        if let resolution = try resolveKeyIfAny(sources, logger: logger) { return resolution }
        throw CredentialStoreError.missingKey.with(
            message: "The vault \(sources.root) has no key yet: nothing has been stored in it"
        )
    }

    /// ``resolveKey(_:logger:)``, or `nil` when no source has a key, nothing is sealed and none may be created.
    static func resolveKeyIfAny(_ sources: KeySources, logger: Logger) throws -> KeyResolution? {
        if let key = sources.explicit { return KeyResolution(key: key, source: .explicit) }
        if let key = try environmentKey(sources.environment) { return KeyResolution(key: key, source: .environment) }
        if let key = try credentialKey(sources.environment) {
            return KeyResolution(key: key, source: .systemdCredential)
        }
        if let keyring = sources.keyring {
            switch try keyring.availability() {
            case .available:
                sources.keyringNote.withLock { $0 = nil }
                return try resolveInKeyring(keyring, root: sources.root, createsKey: sources.createsKey, logger: logger)
            case .absent(let reason):
                logger.debug("No Secret Service for the vault key", metadata: ["vault.keyring": "\(reason)"])
                sources.keyringNote.withLock { $0 = reason }
            }
        }
        let note = sources.keyringNote.withLock { $0 }
        let key = try loadOrCreateKeyFile(
            root: sources.root,
            keyringNote: note,
            creates: sources.createsKey,
            logger: logger
        )
        return key.map { KeyResolution(key: $0, source: .keyFile) }
    }

    /// The key in `$CREDENTIALS_DIRECTORY/tether-vault-key`, or `nil` when the variable or the file is absent.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` when the file holds neither 32 bytes nor their
    ///   base64 encoding (the message gives its length, never its content).
    static func credentialKey(_ environment: [String: String]) throws -> VaultKey? {
        guard let folder = environment[credentialsVariable], !folder.isEmpty else { return nil }
        let path = (folder as NSString).appendingPathComponent(credentialName)
        guard let bytes = try VaultFiles.readFile(path) else { return nil }
        if bytes.count == VaultKey.byteCount { return VaultKey(symmetricKey: SymmetricKey(data: bytes)) }
        if let text = String(data: bytes, encoding: .utf8), let key = try? VaultKey(base64: text) { return key }
        throw CredentialStoreError.invalidConfiguration.with(
            message: "The systemd credential \(path) must hold \(VaultKey.byteCount) bytes or their base64 encoding, "
                + "but holds \(bytes.count) bytes of something else; nothing was changed"
        )
    }

    /// The key the Secret Service holds for the vault, or a new one it now holds (unless `createsKey` is `false`:
    /// then `nil`); `vault.key` when it is still the only copy (moved on the next write).
    static func resolveInKeyring(
        _ keyring: any KeyringBackend,
        root: String,
        createsKey: Bool = true,
        logger: Logger
    ) throws -> KeyResolution? {
        let attributes = keyItemAttributes(root: root)
        let keyPath = "\(root)/\(keyFileName)"
        if let text = try keyring.lookup(attributes) {
            let key = try keyringKey(text, root: root)
            if let fileKey = try readKeyFile(keyPath) {
                try requireSameKey(fileKey, key, root: root)
                return KeyResolution(key: key, source: .secretService, movesKeyFile: true)
            }
            return KeyResolution(key: key, source: .secretService)
        }
        if let fileKey = try readKeyFile(keyPath) {
            return KeyResolution(key: fileKey, source: .keyFile, movesKeyFile: true)
        }
        guard createsKey else {
            try refuseNewKeyOverRecords(
                root: root,
                missing: "The Secret Service holds no key for the vault \(root)",
                restore: "Restore the key (or set \(keyVariable) to it)"
            )
            return nil
        }
        return try withKeyLock(root: root) {
            // Another process may have created it while this one waited for the lock.
            if let text = try keyring.lookup(attributes) {
                return KeyResolution(key: try keyringKey(text, root: root), source: .secretService)
            }
            try refuseNewKeyOverRecords(
                root: root,
                missing: "The Secret Service holds no key for the vault \(root)",
                restore: "Restore the key (or set \(keyVariable) to it)"
            )
            let key = VaultKey.generate()
            try storeAndReadBack(key, in: keyring, root: root)
            logger.debug("Created the vault key in the Secret Service", metadata: ["vault.directory": "\(root)"])
            return KeyResolution(key: key, source: .secretService)
        }
    }

    /// Stores `key` as the vault's item and reads it back: only a key that reads back is relied upon.
    static func storeAndReadBack(_ key: VaultKey, in keyring: any KeyringBackend, root: String) throws {
        let attributes = keyItemAttributes(root: root)
        try keyring.store(key.revealedBase64, label: keyItemLabel(root: root), attributes: attributes)
        guard let text = try keyring.lookup(attributes), try keyringKey(text, root: root).identifier == key.identifier
        else {
            throw CredentialStoreError.unavailable.with(
                message: "The Secret Service did not give back the vault key it was given; nothing else was changed"
            )
        }
    }

    /// Reads a key kept in the Secret Service.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` when it is not the base64 encoding of 32 bytes; the
    ///   item is left untouched and the message never contains it.
    static func keyringKey(_ text: String, root: String) throws -> VaultKey {
        do {
            return try VaultKey(base64: text)
        } catch {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "The Secret Service item for the vault \(root) does not hold the base64 encoding of "
                    + "\(VaultKey.byteCount) bytes; it was left untouched. Remove it (secret-tool clear application "
                    + "tether vault \(root)) only if no record was sealed with it"
            )
        }
    }

    static func requireSameKey(_ fileKey: VaultKey, _ keyringKey: VaultKey, root: String) throws {
        guard fileKey.identifier != keyringKey.identifier else { return }
        throw CredentialStoreError.invalidConfiguration.with(
            message: "The Secret Service holds a key for the vault \(root) that differs from \(root)/\(keyFileName); "
                + "both were left untouched. Keep the one that opens the records and remove the other"
        )
    }

    /// Runs `body` holding the folder's key lock (`locks/vault-key.lock`), which orders the processes that create or
    /// move the key.
    static func withKeyLock<T>(root: String, _ body: () throws -> T) throws -> T {
        try VaultFiles.withExclusiveLock("\(root)/locks/vault-key.lock", body)
    }

    /// Moves `vault.key` into the Secret Service when ``KeyResolution/movesKeyFile`` says it should: stores the key
    /// (unless the service already holds the same one), reads it back, and only then removes the file. Records are
    /// not touched: the key stays the same. A failure leaves the file in place and is retried on the next write.
    func moveKeyFileIfPending() {
        guard let resolution = keyState.withLock({ $0 }), resolution.movesKeyFile, let keyring = keySources.keyring
        else { return }
        let root = keySources.root
        do {
            guard try keyring.availability() == .available else { return }
            try Self.withKeyLock(root: root) {
                let keyPath = "\(root)/\(Self.keyFileName)"
                if let text = try keyring.lookup(Self.keyItemAttributes(root: root)) {
                    try Self.requireSameKey(try Self.keyringKey(text, root: root), resolution.key, root: root)
                } else {
                    try Self.storeAndReadBack(resolution.key, in: keyring, root: root)
                }
                // Remove the file only while it still holds that key.
                if let fileKey = try Self.readKeyFile(keyPath), fileKey.identifier == resolution.key.identifier {
                    try VaultFiles.remove(keyPath)
                    try VaultFiles.syncDirectory(root)
                }
            }
            keyState.withLock {
                $0?.source = .secretService
                $0?.movesKeyFile = false
            }
            logger.debug("Moved the vault key file into the Secret Service", metadata: ["vault.directory": "\(root)"])
        } catch {
            logger.debug(
                "Could not move the vault key file into the Secret Service",
                metadata: ["vault.directory": "\(root)", "vault.error": "\(error)"]
            )
        }
    }
}
