import Foundation
import Testing
import Tether
import TetherTesting

struct StoreContractTests {
    enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case memory
        case vault

        var testDescription: String { rawValue }
    }

    @Test(arguments: StoreKind.allCases)
    func storeHonoursTheContract(_ kind: StoreKind) async throws {
        switch kind {
        case .memory:
            try await StoreContract().verify(MemoryStore())
        case .vault:
            let fixture = VaultFixture()
            defer { fixture.remove() }
            try await StoreContract().verify(try fixture.store())
        }
    }

    @Test func contractCatchesAStoreThatIgnoresPreconditions() async throws {
        let violation = try await #require(throws: StoreContract.Violation.self) {
            try await StoreContract().verify(CarelessStore())
        }
        #expect(violation.description.contains("versionConflict"))
    }
}

/// A store that writes whatever it is given, to show that the contract notices.
private final class CarelessStore: CredentialStore {
    private let inner = MemoryStore()

    func read(_ id: ConnectionID) async throws -> Connection? { try await inner.read(id) }

    func write(_ connection: Connection, expecting precondition: WritePrecondition) async throws -> Connection {
        try await inner.write(connection, expecting: .any)
    }

    func delete(_ id: ConnectionID) async throws { try await inner.delete(id) }

    func list() async throws -> [ConnectionID] { try await inner.list() }

    func acquireRefreshLease(for id: ConnectionID, timeout: Duration) async throws -> any RefreshLease {
        try await inner.acquireRefreshLease(for: id, timeout: timeout)
    }
}
