import Foundation
import Tether
import TetherKeychain

#if !canImport(Security)
import KeychainSimulator
import SecItemShim

/// `hold-keychain-lease <lease-dir> <service> <id>`: opens a `KeychainStore` for `service` over an in-memory
/// keychain simulator, shared with other processes through an access group and lease files in `lease-dir`, takes
/// the connection's refresh
/// lease and prints `held`; when its standard input closes, prints `releasing`, releases the lease and prints
/// `released`.
func holdKeychainLease(_ arguments: [String]) async -> Int32 {
    guard arguments.count == 3 else {
        probeFail("usage: TetherStoreProbe hold-keychain-lease <lease-dir> <service> <id>")
        return 64
    }
    let simulator = KeychainSimulator(
        accessGroups: ["TEAMA.com.example.shared"],
        applicationIdentifier: "TEAMA.com.example.extension"
    )
    let secItems = SecItemFunctions(
        add: { SecItemAdd($0, $1) },
        copyMatching: { SecItemCopyMatching($0, $1) },
        update: { SecItemUpdate($0, $1) },
        delete: { SecItemDelete($0) }
    )
    do {
        return try await KeychainSimulator.$current.withValue(simulator) {
            let store = try KeychainStore(
                secItems: secItems,
                configuration: KeychainStore.Configuration(
                    service: arguments[1],
                    accessGroup: "TEAMA.com.example.shared",
                    leaseSharing: .directory(URL(fileURLWithPath: arguments[0], isDirectory: true))
                )
            )
            let lease = try await store.acquireRefreshLease(for: ConnectionID(arguments[2]), timeout: .seconds(30))
            probeSay("held")
            _ = FileHandle.standardInput.readDataToEndOfFile()
            probeSay("releasing")
            await lease.release()
            probeSay("released")
            return 0
        }
    } catch {
        probeFail("hold-keychain-lease failed: \(error)")
        return 1
    }
}
#else
/// `hold-keychain-lease`: only where the keychain simulator stands in for the keychain.
func holdKeychainLease(_ arguments: [String]) async -> Int32 {
    probeFail("hold-keychain-lease runs only over the keychain simulator (not on Apple platforms)")
    return 64
}
#endif
