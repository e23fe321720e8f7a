import Foundation
import Tether

/// `write-loop <dir> <connection-id> <count>`: writes the record `count` times as fast as it can, each time with
/// `metadata["counter"]` one higher than the stored record's, starting from whatever is stored. The vault key comes
/// from `TETHER_VAULT_KEY`. Prints `ready` once the vault is open; a test kills the process at a random moment
/// and checks that the record still decodes and that its counter never went backwards.
func writeLoop(_ arguments: [String]) async -> Int32 {
    guard arguments.count == 3, let count = Int(arguments[2]), count >= 0 else {
        probeFail("usage: TetherStoreProbe write-loop <dir> <connection-id> <count>")
        return 64
    }
    do {
        let store = try VaultStore(directory: URL(fileURLWithPath: arguments[0], isDirectory: true))
        let id = ConnectionID(arguments[1])
        var current = try await store.read(id)
        probeSay("ready")
        for _ in 0..<count {
            let counter = current.flatMap { $0.metadata["counter"].flatMap(Int.init) } ?? 0
            var next =
                current
                ?? Connection(
                    id: id,
                    account: Account(
                        providerID: "probe",
                        subject: "probe-subject",
                        displayIdentifier: "probe@example.com"
                    ),
                    tokens: TokenSet(
                        accessToken: AccessToken("probe-access"),
                        refreshToken: RefreshToken("probe-refresh"),
                        receivedAt: Date(timeIntervalSince1970: 1_700_000_000),
                        expiresAt: Date(timeIntervalSince1970: 1_700_003_600)
                    )
                )
            next.metadata["counter"] = String(counter + 1)
            let precondition: WritePrecondition = current.map { .version($0.version) } ?? .absent
            current = try await store.write(next, expecting: precondition)
        }
        probeSay("done \(current?.metadata["counter"] ?? "0")")
        return 0
    } catch {
        probeFail("write-loop failed: \(error)")
        return 1
    }
}
