import Foundation
import Logging

extension Session {
    /// Whether refreshed tokens that the store refused are kept in memory only: the process holds the one copy of
    /// a refresh token the provider may have rotated, and must not end before they are stored.
    package var holdsUnsavedTokens: Bool { bookkeeping.unsaved != nil }

    /// Writes refreshed tokens the store refused before, for a process that keeps them until the store takes them
    /// (the CLI's refresh worker).
    /// - Returns: Whether no refreshed tokens wait in memory any more.
    package func storeUnsavedTokens() async -> Bool {
        await retryUnsavedWrite()
        return bookkeeping.unsaved == nil
    }

    /// Writes refreshed tokens the store refused before. On success the status no longer reports storage trouble;
    /// on failure the tokens stay in memory for the next call. Outside the lease it waits while a refresh is in
    /// flight, which writes them (or their successors) itself.
    func retryUnsavedWrite(holdingLease: Bool = false) async {
        if !holdingLease, bookkeeping.isRefreshing { return }
        guard let pending = bookkeeping.beginSavingUnsaved() else { return }
        do {
            let written = try await persist(pending.updated, over: pending.base)
            bookkeeping.endSavingUnsaved(.stored)
            adopt(written)
            logger.info("Stored the refreshed tokens kept in memory", metadata: ["store.version": "\(written.version)"])
        } catch let error as CredentialStoreError {
            bookkeeping.endSavingUnsaved(.failed(error))
            logger.debug("Refreshed tokens still cannot be stored", metadata: ["store.error": "\(error.message)"])
        } catch {
            bookkeeping.endSavingUnsaved(.recordGone)
        }
        publishStatus()
    }
}
