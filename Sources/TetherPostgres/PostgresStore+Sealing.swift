import Foundation
import Tether

extension PostgresStore {
    /// What a record is bound to besides its header: the tenant and the connection identifier, length-prefixed
    /// so that no pair of them reads as another. A record copied to another tenant's or connection's row does
    /// not open.
    func binding(for id: ConnectionID) -> String {
        "tether-postgres:\(tenant.utf8.count):\(tenant):\(id.rawValue)"
    }

    /// Seals a record with the current key.
    func seal(_ connection: Connection) throws -> Data {
        try VaultRecordFormat.seal(connection, key: configuration.key, binding: binding(for: connection.id))
    }

    /// Opens a record with the key its header names: the current key or one of the previous keys.
    func open(_ sealed: Data, id: ConnectionID) throws -> Connection {
        let keys = [configuration.key] + configuration.previousKeys
        let identifier = VaultRecordFormat.keyIdentifier(of: sealed)
        // An unknown key identifier is a wrong key, or a damaged header: the current key's checks tell them apart.
        let key = keys.first { $0.identifier == identifier } ?? configuration.key
        return try VaultRecordFormat.open(sealed, id: id, key: key, binding: binding(for: id))
    }
}
