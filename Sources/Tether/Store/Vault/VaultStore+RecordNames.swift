import Foundation

extension VaultStore {
    static let recordSuffix = ".vault"
    /// Keeps `.<stem>.<random>.tmp` within the 255-byte file name limit.
    static let maximumStemLength = 230

    struct RecordNames {
        let stem: String
        let record: String
        let writeLock: String
        let leaseLock: String
        /// Space set aside for the record's next write (``VaultStore/reserveSpace(forNextWriteOf:)``).
        let slot: String
    }

    func names(for id: ConnectionID) -> RecordNames? {
        let stem = Self.fileStem(for: id)
        guard stem.utf8.count <= Self.maximumStemLength else { return nil }
        return RecordNames(
            stem: stem,
            record: "\(recordsPath)/\(stem)\(Self.recordSuffix)",
            writeLock: "\(locksPath)/\(stem).write",
            leaseLock: "\(locksPath)/\(stem).lease",
            slot: "\(recordsPath)/.\(stem).slot"
        )
    }

    func requireNames(for id: ConnectionID) throws -> RecordNames {
        guard let names = names(for: id) else {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "The connection identifier is too long for a vault file name (at most 172 bytes of UTF-8)"
            )
        }
        return names
    }

    /// The base64url encoding, without padding, of the identifier's UTF-8.
    package static func fileStem(for id: ConnectionID) -> String {
        Base64URL.encode(Data(id.rawValue.utf8))
    }

    /// Reverses ``fileStem(for:)``; `nil` for anything it could not have produced.
    package static func connectionID(fromFileStem stem: String) -> ConnectionID? {
        guard !stem.isEmpty, stem.utf8.count <= maximumStemLength,
            stem.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return nil }
        guard let bytes = Base64URL.decode(stem), let raw = String(data: bytes, encoding: .utf8),
            !raw.isEmpty, raw.count <= 200
        else { return nil }
        let id = ConnectionID(raw)
        // Only the canonical spelling names a record, so that one identifier has one file.
        return fileStem(for: id) == stem ? id : nil
    }
}
