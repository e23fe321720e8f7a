import Crypto
package import Foundation

/// The binary format of a vault record file.
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
    package static let magic = Data("TVLT".utf8)
    private static let currentVersion: UInt16 = 1
    private static let headerCount = 14
    private static let nonceCount = 12
    private static let tagCount = 16
    private static let minimumCount = headerCount + nonceCount + tagCount

    /// Encrypts a record.
    /// - Parameter binding: What the record belongs to, authenticated with it; the connection identifier by default.
    package static func seal(_ connection: Connection, key: VaultKey, binding: String? = nil) throws -> Data {
        let plaintext = try ConnectionCodec.encodeForStore(connection)
        return try seal(plaintext: plaintext, id: connection.id, key: key, binding: binding)
    }

    /// Encrypts arbitrary bytes as the record of `id`; tests use it to make well-encrypted but invalid records.
    package static func seal(plaintext: Data, id: ConnectionID, key: VaultKey, binding: String? = nil) throws -> Data {
        let header = header(version: currentVersion, key: key)
        do {
            let box = try AES.GCM.seal(
                plaintext,
                using: key.symmetricKey,
                authenticating: associatedData(header: header, binding: binding ?? id.rawValue)
            )
            var file = header
            file.append(contentsOf: box.nonce)
            file.append(box.ciphertext)
            file.append(box.tag)
            return file
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
        let binding = binding ?? id.rawValue
        let bytes = [UInt8](file)
        guard bytes.count >= magic.count, bytes.prefix(magic.count).elementsEqual(magic) else {
            throw CredentialStoreError.corrupted.with(
                message: "The vault file of \(id) is not a vault record (bad magic)"
            )
        }
        guard bytes.count >= 6 else {
            throw CredentialStoreError.corrupted.with(message: "The vault file of \(id) is truncated")
        }
        let version = UInt16(bytes[4]) << 8 | UInt16(bytes[5])
        guard version <= currentVersion else {
            throw CredentialStoreError.unsupportedFormat.with(
                message: "The vault file of \(id) has format version \(version); "
                    + "this version of Tether reads format versions up to \(currentVersion)"
            )
        }
        guard version >= 1 else {
            throw CredentialStoreError.corrupted.with(
                message: "The vault file of \(id) has the invalid format version 0"
            )
        }
        guard bytes.count >= minimumCount else {
            throw CredentialStoreError.corrupted.with(message: "The vault file of \(id) is truncated")
        }
        let storedIdentifier = Data(bytes[6..<headerCount])
        let nonceEnd = headerCount + nonceCount
        let tagStart = bytes.count - tagCount
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: bytes[headerCount..<nonceEnd]),
                ciphertext: bytes[nonceEnd..<tagStart],
                tag: bytes[tagStart...]
            )
        } catch {
            throw CredentialStoreError.corrupted.with(message: "The vault file of \(id) is truncated", cause: error)
        }

        guard storedIdentifier == key.identifier else {
            // Either another key wrote the file, or its key identifier was damaged. Only the latter opens when
            // the identifier is put back, and telling them apart costs nothing on the normal path.
            let repaired = header(version: version, key: key)
            if (try? AES.GCM.open(
                box,
                using: key.symmetricKey,
                authenticating: associatedData(header: repaired, binding: binding)
            ))
                != nil
            {
                throw CredentialStoreError.corrupted.with(
                    message: "The vault file of \(id) has a damaged key identifier"
                )
            }
            throw CredentialStoreError.wrongKey.with(
                message: "The vault file of \(id) was written with a different key"
            )
        }

        let plaintext: Data
        do {
            plaintext = try AES.GCM.open(
                box,
                using: key.symmetricKey,
                authenticating: associatedData(header: Data(bytes[0..<headerCount]), binding: binding)
            )
        } catch {
            throw CredentialStoreError.corrupted.with(
                message: "The vault file of \(id) failed authentication: it is truncated, tampered with, "
                    + "or belongs to another connection",
                cause: error
            )
        }
        return try ConnectionCodec.decodeFromStore(plaintext, id: id, place: "The vault file of \(id)")
    }

    static func header(version: UInt16, key: VaultKey) -> Data {
        var header = magic
        header.append(UInt8(version >> 8))
        header.append(UInt8(version & 0xFF))
        header.append(key.identifier)
        return header
    }

    static func associatedData(header: Data, binding: String) -> Data {
        var data = header
        data.append(contentsOf: binding.utf8)
        return data
    }

    /// The key identifier in a record's header, to pick the key that opens it from several; `nil` when the bytes
    /// are too short to hold one.
    package static func keyIdentifier(of file: Data) -> Data? {
        guard file.count >= headerCount else { return nil }
        let start = file.startIndex
        return Data(file[(start + 6)..<(start + headerCount)])
    }
}
