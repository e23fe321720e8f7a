import Crypto
package import Foundation
import TetherVaultCore

/// The 256-bit key that encrypts a ``VaultStore``.
///
/// Its `description`, `debugDescription` and mirror never show the key. A vault reads its key from the
/// `TETHER_VAULT_KEY` environment variable (the base64 encoding of 32 bytes) or from the `vault.key` file it
/// creates in its folder; pass one explicitly to ``VaultStore/init(directory:key:environment:clock:logger:)`` to
/// keep it elsewhere.
public struct VaultKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The number of bytes in a key.
    static let byteCount = 32

    let symmetricKey: SymmetricKey

    /// Identifies the key without revealing it: the first 8 bytes of SHA-256 over a fixed label and the key.
    /// Stored in every record so that a wrong key is told apart from a damaged record.
    package let identifier: Data

    init(symmetricKey: SymmetricKey) {
        self.symmetricKey = symmetricKey
        self.identifier = VaultRecordCipher.keyIdentifier(of: symmetricKey)
    }

    /// Creates a new random key.
    /// - Returns: A key from the system's secure random generator.
    public static func generate() -> VaultKey {
        VaultKey(symmetricKey: SymmetricKey(size: .bits256))
    }

    /// Reads a key from its base64 encoding; surrounding ASCII white space (spaces, tabs, line breaks) is ignored.
    /// - Parameter base64: The base64 encoding of 32 bytes.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` when the text is not the base64 encoding of
    ///   32 bytes. The message never contains the text.
    public init(base64: String) throws {
        guard let key = VaultRecordCipher.key(base64: base64) else {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "A vault key must be the base64 encoding of \(Self.byteCount) bytes"
            )
        }
        self.init(symmetricKey: key)
    }

    /// The key's base64 encoding, to put into `TETHER_VAULT_KEY` or a key file. Handle it as a secret.
    package var revealedBase64: String {
        symmetricKey.withUnsafeBytes { Data($0).base64EncodedString() }
    }

    /// `VaultKey(<redacted>)`.
    public var description: String { "VaultKey(\(redactedMarker))" }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without the key.
    public var customMirror: Mirror { Mirror(self, children: ["key": redactedMarker], displayStyle: .struct) }
}
