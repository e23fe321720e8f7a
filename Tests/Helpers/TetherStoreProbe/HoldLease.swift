import Foundation
import Tether

/// `hold-lease <dir> <id> <millis|input>`: takes the connection's refresh lease, prints `held`, keeps it for
/// `millis` milliseconds (or, with `input`, until standard input closes), releases it and prints `released`. The
/// vault key comes from `TETHER_VAULT_KEY`.
func holdLease(_ arguments: [String]) async -> Int32 {
    let untilInput = arguments.count == 3 && arguments[2] == "input"
    guard arguments.count == 3, untilInput || (Int(arguments[2]).map { $0 >= 0 } ?? false) else {
        probeFail("usage: TetherStoreProbe hold-lease <dir> <id> <millis|input>")
        return 64
    }
    do {
        let store = try VaultStore(directory: URL(fileURLWithPath: arguments[0], isDirectory: true))
        let lease = try await store.acquireRefreshLease(for: ConnectionID(arguments[1]), timeout: .seconds(30))
        probeSay("held")
        if untilInput {
            // On a thread of its own: the read blocks until the test closes its end.
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread.detachNewThread {
                    _ = FileHandle.standardInput.readDataToEndOfFile()
                    done.resume()
                }
            }
        } else {
            // A composition root: the real clock is the point here.
            try? await ContinuousClock().sleep(for: .milliseconds(Int(arguments[2]) ?? 0))
        }
        await lease.release()
        probeSay("released")
        return 0
    } catch {
        probeFail("hold-lease failed: \(error)")
        return 1
    }
}
