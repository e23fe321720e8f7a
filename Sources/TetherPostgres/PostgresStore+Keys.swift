public import Foundation
import Tether

extension PostgresStore.Configuration {
    /// The variable that holds the current key: the base64 encoding of 32 bytes.
    public static let keyVariable = "TETHER_POSTGRES_KEY"
    /// The variable that names a file holding the current key (base64, readable by its owner only), used when
    /// ``keyVariable`` is not set.
    public static let keyFileVariable = "TETHER_POSTGRES_KEY_FILE"
    /// The variable that holds earlier keys, comma-separated, still accepted for reading.
    public static let previousKeysVariable = "TETHER_POSTGRES_PREVIOUS_KEYS"

    /// A configuration whose keys come from the environment: ``keyVariable`` or the file ``keyFileVariable``
    /// names, and ``previousKeysVariable``.
    /// - Parameters:
    ///   - tenant: The tenant.
    ///   - environment: The variables to read; the process's by default.
    /// - Throws: ``Tether/CredentialStoreError/invalidConfiguration`` when no key is given or one is not the
    ///   base64 encoding of 32 bytes; ``Tether/CredentialStoreError/missingKey`` when the key file does not exist.
    ///   Messages never contain a key.
    public init(
        tenant: String = "default",
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        let key: VaultKey
        if let text = environment[Self.keyVariable], !text.isEmpty {
            key = try Self.key(text, from: Self.keyVariable)
        } else if let path = environment[Self.keyFileVariable], !path.isEmpty {
            guard let read = try VaultStore.readKeyFile(path) else {
                throw CredentialStoreError.missingKey.with(message: "The key file \(path) does not exist")
            }
            key = read
        } else {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "Set \(Self.keyVariable) or \(Self.keyFileVariable) to the store's key"
            )
        }
        let previous = try (environment[Self.previousKeysVariable] ?? "")
            .split(separator: ",")
            .map { try Self.key(String($0), from: Self.previousKeysVariable) }
        self.init(tenant: tenant, key: key, previousKeys: previous)
    }

    private static func key(_ text: String, from variable: String) throws -> VaultKey {
        do {
            return try VaultKey(base64: text)
        } catch {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "\(variable) must hold base64 encodings of 32 bytes"
            )
        }
    }
}
