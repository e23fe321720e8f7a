#if !canImport(Security)
import Foundation
import KeychainSimulator
import SecItemShim
import Tether
import TetherKeychain

/// A fixed instant, so that records never expire in real life.
let fixedDate = Date(timeIntervalSince1970: 1_800_000_000)

/// The app the tests play, unless a test says otherwise.
let appIdentifier = "TEAMA.com.example.app"
let sharedGroup = "TEAMA.com.example.shared"

func makeSimulator(
    accessGroups: [String] = [],
    applicationIdentifier: String = appIdentifier,
    deviceState: KeychainSimulator.DeviceState = .unlocked
) -> KeychainSimulator {
    KeychainSimulator(
        accessGroups: accessGroups,
        applicationIdentifier: applicationIdentifier,
        deviceState: deviceState
    )
}

func makeConnection(_ id: ConnectionID = "google", accessToken: String = "access-canary-1") -> Connection {
    Connection(
        id: id,
        account: Account(providerID: "google", subject: "1234", displayIdentifier: "jane@example.com"),
        tokens: TokenSet(
            accessToken: AccessToken(accessToken),
            refreshToken: RefreshToken("refresh-canary-1"),
            receivedAt: fixedDate,
            expiresAt: fixedDate.addingTimeInterval(3600)
        )
    )
}

func makeStore(
    service: String = "com.example.app.tether",
    accessGroup: String? = nil,
    accessibility: KeychainStore.Accessibility = .afterFirstUnlock,
    connections: KeychainStore.SyncPolicy = .localOnly,
    keyMaterial: KeychainStore.SyncPolicy = .synchronizable,
    previousAccessGroups: [String] = [],
    leaseSharing: KeychainStore.LeaseSharing? = nil
) throws -> KeychainStore {
    // Off Apple platforms there are no app-group containers, so the default sharing of a store with an access
    // group has no folder: these tests, which are not about leases, keep the lease in the process.
    try KeychainStore(
        secItems: .simulator,
        configuration: KeychainStore.Configuration(
            service: service,
            accessGroup: accessGroup,
            accessibility: accessibility,
            synchronization: KeychainStore.Synchronization(connections: connections, keyMaterial: keyMaterial),
            previousAccessGroups: previousAccessGroups,
            leaseSharing: leaseSharing ?? (accessGroup == nil ? .automatic : .inProcess)
        )
    )
}

/// Runs `body` with `simulator` as the keychain of the current task.
@discardableResult
func withKeychain<T>(_ simulator: KeychainSimulator, _ body: () async throws -> T) async rethrows -> T {
    try await KeychainSimulator.$current.withValue(simulator, operation: body)
}

/// Adds an item straight through the SecItem API; returns the status.
@discardableResult
func addItem(_ attributes: [String: Any]) -> OSStatus {
    var query = attributes
    query[kSecClass] = kSecClassGenericPassword
    return SecItemAdd(query, nil)
}

/// Runs SecItemCopyMatching; returns the status and the result.
func copyMatching(_ attributes: [String: Any]) -> (OSStatus, Any?) {
    var query = attributes
    query[kSecClass] = kSecClassGenericPassword
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query, &result)
    return (status, result)
}
#endif

#if !canImport(Security)
extension SecItemFunctions {
    /// KeychainSimulator's SecItem functions, which act on the current task's simulator
    /// (`KeychainSimulator.current`).
    static let simulator = SecItemFunctions(
        add: { SecItemAdd($0, $1) },
        copyMatching: { SecItemCopyMatching($0, $1) },
        update: { SecItemUpdate($0, $1) },
        delete: { SecItemDelete($0) }
    )
}
#endif
