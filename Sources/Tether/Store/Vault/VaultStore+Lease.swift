extension VaultStore {
    public func acquireRefreshLease(for id: ConnectionID, timeout: Duration) async throws -> any RefreshLease {
        let names = try requireNames(for: id)
        return try await leases.acquire(lockFile: names.leaseLock, id: id, timeout: timeout)
    }
}
