import Foundation
import Tether

/// `read-record <dir> <id>`: opens the vault with this process's environment (so its key comes from wherever the
/// environment says: the Secret Service, a systemd credential, …), reads the record and prints `found <key source>`
/// or `missing`. Exits with 1 and the error on standard error when the read fails.
func readRecord(_ arguments: [String]) async -> Int32 {
    guard arguments.count == 2 else {
        probeFail("usage: TetherStoreProbe read-record <dir> <id>")
        return 64
    }
    do {
        let store = try VaultStore(directory: URL(fileURLWithPath: arguments[0], isDirectory: true))
        let record = try await store.read(ConnectionID(arguments[1]))
        probeSay(record == nil ? "missing" : "found \(store.keySource.map { "\($0)" } ?? "?")")
        return 0
    } catch {
        probeFail("read-record failed: \(error)")
        return 1
    }
}
