import Foundation
import Tether

/// `hold-lease <dir> <id> <millis>`: takes the connection's refresh lease, prints `held`, keeps it for `millis`
/// milliseconds, releases it and prints `released`. The vault key comes from `TETHER_VAULT_KEY`.
func holdLease(_ arguments: [String]) async -> Int32 {
    guard arguments.count == 3, let millis = Int(arguments[2]), millis >= 0 else {
        probeFail("usage: TetherStoreProbe hold-lease <dir> <id> <millis>")
        return 64
    }
    do {
        let store = try VaultStore(directory: URL(fileURLWithPath: arguments[0], isDirectory: true))
        let lease = try await store.acquireRefreshLease(for: ConnectionID(arguments[1]), timeout: .seconds(30))
        probeSay("held")
        // A composition root: the real clock is the point here.
        try? await ContinuousClock().sleep(for: .milliseconds(millis))
        await lease.release()
        probeSay("released")
        return 0
    } catch {
        probeFail("hold-lease failed: \(error)")
        return 1
    }
}
