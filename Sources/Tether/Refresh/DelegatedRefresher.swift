package import Foundation

/// A ``TokenRefresher`` that can hand a whole refresh — the request to the provider and the write of its answer —
/// to a worker that outlives its caller, such as a detached process.
///
/// A ``Session`` whose refresher conforms calls ``refreshAndStore(_:holding:)`` under the refresh lease it holds,
/// instead of ``TokenRefresher/refresh(_:)`` followed by its own write. The worker takes the lease over (for a
/// ``VaultStore`` lease, the `flock`-ed file description, see ``InheritableRefreshLease``), refreshes, stores the
/// result in the same store and finishes; the session then re-reads the record. A caller killed in between loses
/// nothing: the worker still holds the lease, so no other process can present the spent refresh token, and the new
/// one reaches the store. See docs/decisions.md §27.
package protocol DelegatedRefresher: TokenRefresher {
    /// Refreshes and stores elsewhere, and returns when the worker has finished and let the lease go back.
    /// - Parameters:
    ///   - request: The refresh token (the stored one) and its record.
    ///   - lease: The lease the session holds; the worker shares it until it finishes.
    ///   - answerMayDateFrom: When an earlier attempt with this refresh token was sent that got no answer, or
    ///     `nil`: the worker counts the stored tokens' lifetime from then (a grace replay may return the tokens
    ///     issued then).
    /// - Returns: `false` when the refresh cannot be delegated (the lease cannot be shared, or no worker can be
    ///   started); the session then refreshes itself with ``TokenRefresher/refresh(_:)``. `true` when the worker
    ///   finished and stored new tokens.
    /// - Throws: ``RefreshError`` as the worker classified its failure; any other error counts as transient.
    func refreshAndStore(
        _ request: RefreshRequest,
        holding lease: any RefreshLease,
        answerMayDateFrom: Date?
    ) async throws -> Bool
}

/// A ``RefreshLease`` that another process can share: an open file description holding an `flock`, which stays
/// held for as long as any process keeps a descriptor of it open.
package protocol InheritableRefreshLease: RefreshLease {
    /// The descriptor to pass to a child process, which then holds the lease as well. After this call, releasing
    /// the lease closes this process's descriptor without unlocking, so that a child still running keeps it.
    /// - Returns: The descriptor (close-on-exec; map it into the child explicitly), or `nil` once released.
    func descriptorForChild() -> Int32?
}
