package import Foundation
import TetherVaultCore

/// The binary format of a vault record file (the bytes are sealed and opened by `VaultRecordCipher`, which the
/// `tether` launcher shares).
///
/// ```
/// offset  size  field
///      0     4  magic "TVLT"
///      4     2  format version, big-endian (1)
///      6     8  key identifier (see VaultKey.identifier)
///     14    12  AES-GCM nonce
///     26     n  AES-GCM ciphertext of ConnectionCodec.encode(connection)
///   26+n    16  AES-GCM tag
/// ```
///
/// The associated data is the 14 header bytes followed by the record's binding: by default the connection
/// identifier's UTF-8, so a record copied or renamed to another connection's file does not open. Stores that keep
/// records of several owners side by side (a database table keyed by tenant and connection) pass a binding that
/// names both.
package enum VaultRecordFormat {
    package static let magic = Data(VaultRecordCipher.magic)

    /// Encrypts a record.
    /// - Parameter binding: What the record belongs to, authenticated with it; the connection identifier by default.
    package static func seal(_ connection: Connection, key: VaultKey, binding: String? = nil) throws -> Data {
        let plaintext = try ConnectionCodec.encodeForStore(connection)
        return try seal(plaintext: plaintext, id: connection.id, key: key, binding: binding)
    }

    /// Encrypts arbitrary bytes as the record of `id`; tests use it to make well-encrypted but invalid records.
    package static func seal(plaintext: Data, id: ConnectionID, key: VaultKey, binding: String? = nil) throws -> Data {
        do {
            return try VaultRecordCipher.seal(
                plaintext: plaintext,
                key: key.symmetricKey,
                identifier: key.identifier,
                binding: binding ?? id.rawValue
            )
        } catch {
            throw CredentialStoreError.io.with(message: "The record of \(id) could not be encrypted", cause: error)
        }
    }

    /// Decrypts and checks a record file's bytes.
    ///
    /// - Throws: ``CredentialStoreError/corrupted`` (truncated, tampered, not a record, or another connection's
    ///   record), ``CredentialStoreError/wrongKey`` or ``CredentialStoreError/unsupportedFormat``.
    /// - Parameter binding: The binding the record was sealed with; the connection identifier by default.
    package static func open(_ file: Data, id: ConnectionID, key: VaultKey, binding: String? = nil) throws -> Connection
    {
        let plaintext: Data
        do {
            plaintext = try VaultRecordCipher.open(
                file,
                key: key.symmetricKey,
                identifier: key.identifier,
                binding: binding ?? id.rawValue
            )
        } catch {
            throw storeError(error, id: id)
        }
        return try ConnectionCodec.decodeFromStore(plaintext, id: id, place: "The vault file of \(id)")
    }

    /// The store's error for a record file of `id` that did not open.
    static func storeError(_ failure: VaultRecordCipher.Failure, id: ConnectionID) -> CredentialStoreError {
        switch failure {
        case .notARecord:
            CredentialStoreError.corrupted.with(message: "The vault file of \(id) is not a vault record (bad magic)")
        case .truncated(let cause):
            CredentialStoreError.corrupted.with(message: "The vault file of \(id) is truncated", cause: cause)
        case .unsupportedVersion(let version):
            CredentialStoreError.unsupportedFormat.with(
                message: "The vault file of \(id) has format version \(version); "
                    + "this version of Tether reads format versions up to \(VaultRecordCipher.currentVersion)"
            )
        case .versionZero:
            CredentialStoreError.corrupted.with(message: "The vault file of \(id) has the invalid format version 0")
        case .damagedKeyIdentifier:
            CredentialStoreError.corrupted.with(message: "The vault file of \(id) has a damaged key identifier")
        case .wrongKey:
            CredentialStoreError.wrongKey.with(message: "The vault file of \(id) was written with a different key")
        case .failedAuthentication(let cause):
            CredentialStoreError.corrupted.with(
                message: "The vault file of \(id) failed authentication: it is truncated, tampered with, "
                    + "or belongs to another connection",
                cause: cause
            )
        }
    }

    /// The key identifier in a record's header, to pick the key that opens it from several; `nil` when the bytes
    /// are too short to hold one.
    package static func keyIdentifier(of file: Data) -> Data? {
        VaultRecordCipher.keyIdentifier(inFile: file)
    }
}
