package import Crypto

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// The bytes of a vault record file, without the record inside: the one place that seals and opens them, for the
/// core's `VaultRecordFormat` and for the `tether` launcher, which reads a fresh token without the core.
///
/// ```
/// offset  size  field
///      0     4  magic "TVLT"
///      4     2  format version, big-endian (1)
///      6     8  key identifier (see keyIdentifier(of:))
///     14    12  AES-GCM nonce
///     26     n  AES-GCM ciphertext of the record's JSON
///   26+n    16  AES-GCM tag
/// ```
///
/// The associated data is the 14 header bytes followed by the record's binding (the connection identifier's UTF-8
/// by default), so a record copied or renamed to another connection's file does not open.
package enum VaultRecordCipher {
    package static let magic: [UInt8] = Array("TVLT".utf8)
    package static let currentVersion: UInt16 = 1
    static let headerCount = 14
    static let nonceCount = 12
    static let tagCount = 16
    static let minimumCount = headerCount + nonceCount + tagCount

    /// Why a record file did not open. It names no content of the file: the caller turns it into its own error.
    package enum Failure: Error {
        /// The file does not start with the magic bytes.
        case notARecord
        /// The file is too short for its header, nonce and tag.
        case truncated(cause: (any Error)?)
        /// A format version newer than this code reads.
        case unsupportedVersion(UInt16)
        /// The format version 0, which was never written.
        case versionZero
        /// The key identifier was damaged: the record opens when it is put back.
        case damagedKeyIdentifier
        /// Another key wrote the file.
        case wrongKey
        /// The ciphertext, the tag, the header or the binding does not authenticate.
        case failedAuthentication(cause: any Error)
    }

    /// Identifies a key without revealing it: the first 8 bytes of SHA-256 over a fixed label and the key.
    /// - Parameter key: The vault key.
    /// - Returns: 8 bytes.
    package static func keyIdentifier(of key: SymmetricKey) -> Data {
        var hasher = SHA256()
        hasher.update(data: Data("tether.vault.key-identifier.v1".utf8))
        key.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return Data(hasher.finalize().prefix(8))
    }

    /// Reads a vault key from its base64 encoding, surrounded by ASCII white space at most.
    /// - Parameter text: The base64 encoding of 32 bytes.
    /// - Returns: The key, or `nil` when the text is anything else.
    package static func key(base64 text: some StringProtocol) -> SymmetricKey? {
        let bytes = Array(text.utf8)
        let isSpace: (UInt8) -> Bool = { [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D].contains($0) }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return nil }
        guard let data = Data(base64Encoded: Data(bytes[first...last])), data.count == 32 else { return nil }
        return SymmetricKey(data: data)
    }

    /// Encrypts a record's bytes.
    /// - Parameters:
    ///   - plaintext: The record's JSON.
    ///   - key: The vault key.
    ///   - identifier: The key's ``keyIdentifier(of:)``.
    ///   - binding: What the record belongs to, authenticated with it.
    /// - Returns: The file's bytes.
    /// - Throws: What AES-GCM throws.
    package static func seal(plaintext: Data, key: SymmetricKey, identifier: Data, binding: String) throws -> Data {
        let header = header(version: currentVersion, identifier: identifier)
        let box = try AES.GCM.seal(
            plaintext,
            using: key,
            authenticating: associatedData(header: header, binding: binding)
        )
        var file = header
        file.append(contentsOf: box.nonce)
        file.append(box.ciphertext)
        file.append(box.tag)
        return file
    }

    /// Decrypts and checks a record file's bytes.
    /// - Parameters:
    ///   - file: The file's bytes.
    ///   - key: The vault key.
    ///   - identifier: The key's ``keyIdentifier(of:)``.
    ///   - binding: The binding the record was sealed with.
    /// - Returns: The record's JSON.
    /// - Throws: ``Failure``.
    package static func open(
        _ file: Data,
        key: SymmetricKey,
        identifier: Data,
        binding: String
    ) throws(Failure) -> Data {
        let bytes = [UInt8](file)
        guard bytes.count >= magic.count, bytes.prefix(magic.count).elementsEqual(magic) else {
            throw .notARecord
        }
        guard bytes.count >= 6 else { throw .truncated(cause: nil) }
        let version = UInt16(bytes[4]) << 8 | UInt16(bytes[5])
        guard version <= currentVersion else { throw .unsupportedVersion(version) }
        guard version >= 1 else { throw .versionZero }
        guard bytes.count >= minimumCount else { throw .truncated(cause: nil) }
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
            throw .truncated(cause: error)
        }

        guard storedIdentifier == identifier else {
            // Either another key wrote the file, or its key identifier was damaged. Only the latter opens when
            // the identifier is put back, and telling them apart costs nothing on the normal path.
            let repaired = header(version: version, identifier: identifier)
            if (try? AES.GCM.open(box, using: key, authenticating: associatedData(header: repaired, binding: binding)))
                != nil
            {
                throw .damagedKeyIdentifier
            }
            throw .wrongKey
        }
        do {
            return try AES.GCM.open(
                box,
                using: key,
                authenticating: associatedData(header: Data(bytes[0..<headerCount]), binding: binding)
            )
        } catch {
            throw .failedAuthentication(cause: error)
        }
    }

    /// The key identifier in a record's header, to pick the key that opens it from several; `nil` when the bytes
    /// are too short to hold one.
    package static func keyIdentifier(inFile file: Data) -> Data? {
        guard file.count >= headerCount else { return nil }
        let start = file.startIndex
        return Data(file[(start + 6)..<(start + headerCount)])
    }

    static func header(version: UInt16, identifier: Data) -> Data {
        var header = Data(magic)
        header.append(UInt8(version >> 8))
        header.append(UInt8(version & 0xFF))
        header.append(identifier)
        return header
    }

    static func associatedData(header: Data, binding: String) -> Data {
        var data = header
        data.append(contentsOf: binding.utf8)
        return data
    }
}
