import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension VaultStore: SpaceReservingStore {
    /// The least space set aside for a record's next write: several times a large record (Microsoft's tokens with an
    /// ID token come to a few KiB sealed).
    static let minimumReservation = 16 * 1024

    /// Allocates `records/.<name>.slot`, the file the record's next write goes into (``writeLocked``), with room for
    /// twice the current record and ``minimumReservation`` more.
    package func reserveSpace(forNextWriteOf id: ConnectionID) async throws {
        let names = try requireNames(for: id)
        try await withWriteLock(names) {
            var info = stat()
            let current = lstat(names.record, &info) == 0 ? Int(info.st_size) : 0
            let size = Self.minimumReservation + 2 * current
            do {
                try VaultFiles.reserve(names.slot, size: size)
            } catch let error as CredentialStoreError {
                throw CredentialStoreError.io.with(
                    message: "There is no room in \(recordsPath) to store refreshed tokens, so no refresh was sent "
                        + "(\(error.message))",
                    cause: error.cause ?? error
                )
            }
        }
        logger.trace("Reserved space for the next vault write", metadata: ["vault.connection": "\(id)"])
    }
}
