import Tether
import TetherCommandSupport

/// A store that changes only how refresh leases are taken and forwards everything else to `base`.
protocol ForwardingStore: SpaceReservingStore {
    /// The store records are read from and written to.
    var base: any CredentialStore { get }
}

extension ForwardingStore {
    func read(_ id: ConnectionID) async throws -> Connection? { try await base.read(id) }

    func write(_ connection: Connection, expecting precondition: WritePrecondition) async throws -> Connection {
        try await base.write(connection, expecting: precondition)
    }

    func delete(_ id: ConnectionID) async throws { try await base.delete(id) }

    func list() async throws -> [ConnectionID] { try await base.list() }

    func reserveSpace(forNextWriteOf id: ConnectionID) async throws {
        try await (base as? any SpaceReservingStore)?.reserveSpace(forNextWriteOf: id)
    }
}
