/// A store that can set aside, before a refresh is sent, the space that storing its answer will take.
///
/// A provider that rotates refresh tokens spends the old one the moment it answers. If the answer then cannot be
/// written (a full disk, a quota), the only copy of the new refresh token is in memory, and a process that ends
/// before the store takes it leaves the old, spent one behind: the next refresh with it is a reuse that ends the
/// grant. A ``Session`` therefore asks a store that conforms to reserve the space first, under the refresh lease, and
/// sends nothing when it cannot (docs/decisions.md §36).
package protocol SpaceReservingStore: CredentialStore {
    /// Sets aside the space the next write of a connection's record needs, so that it cannot fail for want of space.
    ///
    /// The reservation stays until the next write of the record takes it (or a sign-out deletes it); reserving again
    /// reuses it. Call it while holding the connection's refresh lease.
    /// - Parameter id: The connection.
    /// - Throws: ``CredentialStoreError/io`` when the space cannot be had (`ENOSPC`, `EDQUOT`), naming the cause; the
    ///   stored record is untouched.
    func reserveSpace(forNextWriteOf id: ConnectionID) async throws
}
