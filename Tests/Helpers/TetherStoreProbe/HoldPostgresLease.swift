// The sanitizer package (Sanitizers/) builds this probe without the PostgreSQL store.
#if canImport(TetherPostgres)
import Foundation
import Logging
import PostgresNIO
import Tether
import TetherPostgres

/// `hold-postgres-lease <url> <tenant> <id> <lease-seconds>`: takes the connection's refresh lease in the
/// PostgreSQL store at `url`, prints `held`, and keeps it (renewing it) until its standard input closes or it is
/// killed; then releases it and prints `released`.
func holdPostgresLease(_ arguments: [String]) async -> Int32 {
    guard arguments.count == 4, let seconds = Int(arguments[3]), seconds >= 1 else {
        probeFail("usage: TetherStoreProbe hold-postgres-lease <url> <tenant> <id> <lease-seconds>")
        return 64
    }
    do {
        let client = PostgresClient(
            configuration: try PostgresStore.clientConfiguration(url: arguments[0]),
            backgroundLogger: Logger(label: "probe")
        )
        let store = try PostgresStore(
            client: client,
            configuration: .init(tenant: arguments[1], key: .generate(), leaseDuration: .seconds(seconds))
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let lease = try await store.acquireRefreshLease(for: ConnectionID(arguments[2]), timeout: .seconds(30))
            probeSay("held")
            // Blocks until the parent closes standard input.
            _ = await Task.detached { FileHandle.standardInput.readDataToEndOfFile() }.value
            await lease.release()
            probeSay("released")
            return 0
        }
    } catch {
        probeFail("hold-postgres-lease failed: \(error)")
        return 1
    }
}
#endif
