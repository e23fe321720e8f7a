import Foundation
import Logging

extension Session {
    /// Refreshes while holding the store's lease: re-reads the record (another process may have refreshed while this
    /// one waited), exchanges the refresh token, and stores the answer.
    func refreshUnderLease(
        rejecting rejected: AccessToken?,
        claims: String? = nil,
        refused: Bool = false,
        lease: any RefreshLease
    ) async throws -> Connection {
        await retryUnsavedWrite(holdingLease: true)
        let stored = try await storedRecordUnderLease()
        // Tokens the store has not taken yet replace the spent ones it still holds: the old refresh token is
        // never presented again.
        var current = stored
        if let record { current.tokens = record.tokens }
        if let token = current.tokens.accessToken, token != rejected,
            dateSource.now < Self.freshUntil(current.tokens, configuration: configuration)
        {
            logger.debug("Using the token another refresh stored", metadata: ["store.version": "\(current.version)"])
            return current
        }
        if current.tokens.refreshToken == nil, let fingerprint = current.tokens.lockedRefreshToken {
            current.tokens = current.tokens.unlocking(with: try await unlockRefreshToken(of: current, fingerprint))
        }
        guard let refreshToken = current.tokens.refreshToken else {
            try await refreshTokenMissing(current, rejected: rejected, refused: refused)
        }
        let request = RefreshRequest(
            connectionID: id,
            refreshToken: refreshToken,
            account: current.account,
            tokens: current.tokens,
            claims: claims
        )
        // A refresher that can hand the refresh to a worker outliving this process gets it whole; tokens kept in
        // memory after a failed write (not in the store the worker reads) are refreshed here, and so is a refresh
        // carrying a claims request, which the worker does not take.
        let delegating = current.tokens == stored.tokens && claims == nil ? refresher as? any DelegatedRefresher : nil
        let response = try await exchange(request, of: current, delegating: delegating, lease: lease)
        counts.refreshes += 1
        // After a lost answer, the tokens may be a grace replay issued when it was sent: their lifetime counts from
        // then, never longer than the provider counts it.
        let receivedAt = answerMayDateFrom(refreshToken) ?? dateSource.now
        bookkeeping.noteAnswered()
        guard let response else { return try await storedByWorker(replacing: stored) }
        let updated = Connection(
            id: current.id,
            account: current.account,
            tokens: current.tokens.applying(response, receivedAt: receivedAt),
            metadata: current.metadata
        )
        return try await storeRefreshed(updated, replacing: current, stored: stored)
    }

    /// The record as the store holds it now, taken as the truth.
    /// - Throws: The session error for a store failure, or for a record that was deleted.
    func storedRecordUnderLease() async throws -> Connection {
        guard let stored = try await readRecord() else {
            adopt(nil)
            throw notConnectedError()
        }
        adopt(stored)
        return stored
    }

    /// Ends a refresh that has no refresh token to send. When a resource server refused the only token, and
    /// nothing can renew it (GitHub's non-expiring OAuth app tokens answer a revocation with 401 "Bad
    /// credentials"), the grant is gone.
    /// - Throws: Always ``SessionError/needsSignIn``.
    func refreshTokenMissing(_ current: Connection, rejected: AccessToken?, refused: Bool) async throws -> Never {
        if refused, let rejected, current.tokens.accessToken == rejected {
            let reason = SignInReason(
                code: SignInReason.sessionExpired.code,
                message: "An API refused the access token, and without a refresh token it cannot be renewed; "
                    + "sign in again"
            )
            try await endGrant(
                current,
                reason: reason,
                failure: .permanent(reason, "The access token was refused and there is no refresh token")
            )
        }
        adopt(current)
        // As the status says it (`deriveStatus`): a record without any token is a grant the provider ended, which
        // another process found and stored; one whose only token ran out expired.
        let reason: SignInReason = current.tokens.accessToken == nil ? .grantRevoked : .sessionExpired
        throw SessionError(.needsSignIn, reason.message, signInReason: reason, accountHint: current.account)
    }

    /// Sends the refresh, retrying transient failures as ``Configuration/retry`` allows.
    /// - Returns: The provider's answer, or `nil` when a worker (`delegating`) stored it.
    /// - Throws: The session error that ends the refresh: offline after the last attempt, needs sign-in, a
    ///   configuration or storage failure.
    func exchange(
        _ request: RefreshRequest,
        of current: Connection,
        delegating: (any DelegatedRefresher)?,
        lease: any RefreshLease
    ) async throws -> TokenResponse? {
        var attempt = 0
        while true {
            attempt += 1
            logger.trace(
                "Refreshing access token",
                metadata: ["oauth.grant_type": "refresh_token", "session.attempt": "\(attempt)"]
            )
            let sentAt = dateSource.now
            do {
                if let delegating,
                    try await delegating.refreshAndStore(
                        request,
                        holding: lease,
                        answerMayDateFrom: answerMayDateFrom(request.refreshToken)
                    )
                {
                    return nil
                }
                try await reserveSpaceForAnswer()
                return try await refresher.refresh(request)
            } catch let error as CredentialStoreError {
                // No room for the answer, so nothing was sent; or a worker got an answer it could not store and keeps
                // it. Either way no second refresh with this refresh token may follow: storage trouble, not offline.
                logger.debug("Refresh stopped by the store", metadata: ["store.error": "\(error.message)"])
                throw storageFailure(error)
            } catch {
                let failure = Self.classify(error)
                try await handleFailure(failure, of: current, refreshToken: request.refreshToken, attempt, sentAt)
            }
        }
    }

    /// Handles a refresh that failed: waits before the next attempt of a transient failure, or throws the error
    /// that ends the refresh.
    func handleFailure(
        _ failure: RefreshError,
        of current: Connection,
        refreshToken: RefreshToken,
        _ attempt: Int,
        _ sentAt: Date
    ) async throws {
        switch failure.kind {
        case .transient:
            if failure.isOutcomeUnknown { noteUnanswered(refreshToken, attempt: attempt, sentAt: sentAt) }
            try await handleTransient(failure, attempt: attempt)
        case .permanent(let reason):
            try await endGrant(current, reason: reasonAfterLostAnswers(reason, for: refreshToken), failure: failure)
        case .configuration:
            bookkeeping.lastFailure = .configuration(failure.message)
            logger.debug("Refresh failed: configuration", metadata: ["oauth.error": "\(failure.message)"])
            throw SessionError(.misconfigured, failure.message, cause: failure)
        }
    }

    /// Stores refreshed tokens; when the store refuses them, keeps them in memory (the provider may have rotated
    /// the refresh token, and this process then holds the only copy), hands them out and writes them again on the
    /// next call.
    func storeRefreshed(
        _ updated: Connection,
        replacing current: Connection,
        stored: Connection
    ) async throws
        -> Connection
    {
        let written: Connection
        do {
            written = try await persist(updated, over: stored)
            bookkeeping.unsavedStored()
        } catch let error as CredentialStoreError {
            logger.warning(
                "Refreshed tokens could not be stored; keeping them in memory",
                metadata: ["store.error": "\(error.message)"]
            )
            bookkeeping.keepUnsaved(updated, over: stored, error: error)
            return updated
        }
        logger.debug(
            "Refreshed access token",
            metadata: [
                "session.rotated": "\(updated.tokens.rotatesRefreshToken(of: current.tokens))",
                "store.version": "\(written.version)",
            ]
        )
        return written
    }

    /// Asks the store to unlock a refresh token it keeps behind the user's presence (``RefreshTokenUnlocking``):
    /// the one moment the user may be asked, once per refresh, under the lease.
    /// - Throws: ``SessionError/storageUnavailable`` with ``CredentialStoreError/locked`` when the user canceled (the
    ///   record is kept); ``SessionError/needsSignIn`` when the token can never be unlocked again (the tokens are
    ///   removed, the account kept); another storage ``SessionError`` when the store fails.
    func unlockRefreshToken(
        of current: Connection,
        _ fingerprint: RefreshTokenFingerprint
    ) async throws -> RefreshToken {
        guard let unlocking = store as? any RefreshTokenUnlocking else {
            throw storageFailure(
                CredentialStoreError.invalidConfiguration.with(
                    message: "The record of \(id) holds a locked refresh token, but its store cannot unlock one"
                )
            )
        }
        do {
            let token = try await unlocking.unlockRefreshToken(for: id, fingerprint: fingerprint)
            guard RefreshTokenFingerprint(of: token) == fingerprint else {
                throw storageFailure(
                    CredentialStoreError.corrupted.with(
                        message: "The store unlocked another refresh token than the record of \(id) names"
                    )
                )
            }
            return token
        } catch let error as CredentialStoreError {
            throw storageFailure(error)
        } catch let error as RefreshError {
            guard case .permanent(let reason) = error.kind else {
                throw storageFailure(CredentialStoreError.io.with(message: error.message, cause: error))
            }
            try await endGrant(current, reason: reason, failure: error)
        }
    }

    /// Asks a store that can (``SpaceReservingStore``) to set aside the space its answer will need, before a refresh
    /// is sent: a rotated refresh token that arrives must have room to be stored (docs/decisions.md §36).
    /// - Throws: The store's ``CredentialStoreError`` when there is no room; then nothing may be sent.
    func reserveSpaceForAnswer() async throws {
        guard let reserving = store as? any SpaceReservingStore else { return }
        try await reserving.reserveSpace(forNextWriteOf: id)
    }

    /// The record a ``DelegatedRefresher``'s worker stored; it must hold other tokens than `stored`.
    func storedByWorker(replacing stored: Connection) async throws -> Connection {
        guard let newer = try await readRecord() else {
            adopt(nil)
            throw SessionError.notConnected
        }
        guard newer.tokens != stored.tokens else {
            let failure = RefreshError.transient("The refresh finished without storing new tokens")
            bookkeeping.lastFailure = .transient(failure, nextAttempt: nil)
            throw SessionError(.offline, failure.message, accountHint: newer.account, cause: failure)
        }
        bookkeeping.unsavedStored()
        logger.debug("Refreshed access token in a worker", metadata: ["store.version": "\(newer.version)"])
        return newer
    }

    /// Records a transient failure and sleeps before the next attempt, or throws when attempts are used up. After
    /// an attempt whose outcome is unknown the wait does not grow: the retry must land within the provider's reuse
    /// grace period, if it has one.
    func handleTransient(_ failure: RefreshError, attempt: Int) async throws {
        let retry = configuration.retry
        let wait = retry.delay(
            afterAttempt: failure.isOutcomeUnknown ? 1 : attempt,
            retryAfter: failure.retryAfter,
            using: &random
        )
        let nextAttempt = (wait ?? failure.retryAfter).map { dateSource.now.addingTimeInterval($0.timeInterval) }
        bookkeeping.lastFailure = .transient(failure, nextAttempt: nextAttempt)
        publishStatus()
        logger.debug(
            "Refresh failed: transient",
            metadata: ["session.attempt": "\(attempt)", "oauth.error": "\(failure.message)"]
        )
        guard attempt < retry.maximumAttempts, let delay = wait else {
            throw SessionError(.offline, failure.message, accountHint: record?.account, cause: failure)
        }
        try await clock.sleep(for: delay)
    }

    /// The provider said the grant is gone: remove the tokens, keep account and metadata as a hint.
    func endGrant(_ current: Connection, reason: SignInReason, failure: RefreshError) async throws -> Never {
        logger.info(
            "Refresh rejected; the user must sign in again",
            metadata: [
                "session.reason": "\(reason.code)",
                "session.unanswered_refreshes": "\(counts.unansweredRefreshes)",
                "session.lost_refresh_answers": "\(counts.lostRefreshAnswers)",
            ]
        )
        var ended = current
        ended.tokens = TokenSet(
            accessToken: nil,
            tokenType: current.tokens.tokenType,
            receivedAt: dateSource.now,
            expiresAt: nil
        )
        do {
            adopt(try await store.write(ended, expecting: .version(current.version)))
        } catch let error as CredentialStoreError where error == .versionConflict {
            // Someone else changed the record (signed in again, signed out): leave their version alone.
            logger.debug("Record changed while ending the grant; leaving it", metadata: ["store.error": "\(error)"])
            isLoaded = false
        } catch {
            // A full disk, a locked store: the record keeps its spent tokens, which the provider refuses again.
            logger.debug("The ended grant could not be stored", metadata: ["store.error": "\(error)"])
            isLoaded = false
        }
        bookkeeping.lastFailure = .permanent(reason)
        throw SessionError(
            .needsSignIn,
            reason.message,
            signInReason: reason,
            accountHint: current.account,
            cause: failure
        )
    }

    /// Writes refreshed tokens. The lease makes conflicts rare; when one happens because the metadata changed,
    /// the new tokens are merged into the newer record — they hold the only copy of a rotated refresh token. When
    /// the tokens changed too (a new sign-in, or a store without a cross-process lease), the newer record wins;
    /// when it was deleted (signed out), nothing is resurrected.
    /// - Throws: A ``CredentialStoreError`` when the store fails; ``SessionError/notConnected`` when the record was
    ///   deleted.
    func persist(_ updated: Connection, over current: Connection) async throws -> Connection {
        var base = current
        // A conflict here means another writer changed the record between our read and our write; under the
        // lease that is a metadata update, and a second one in the same moment is rare. Three rounds leave room
        // for that, while a record that keeps changing ends as a storage failure instead of a loop.
        for _ in 0..<3 {
            var candidate = base
            candidate.tokens = updated.tokens
            do {
                return try await store.write(candidate, expecting: .version(base.version))
            } catch let error as CredentialStoreError where error == .versionConflict {
                let newer = try await store.read(id)
                guard let newer else {
                    adopt(nil)
                    throw SessionError.notConnected
                }
                if newer.tokens == updated.tokens {
                    // An earlier write of these tokens landed although the store reported a failure (it could not
                    // confirm the write is durable): write them once more over it, so that they are.
                    logger.debug("The record already holds the refreshed tokens; writing them again")
                    base = newer
                    continue
                }
                guard newer.tokens.refreshTokenFingerprint == current.tokens.refreshTokenFingerprint else {
                    logger.debug("The record's tokens changed during the refresh; keeping the newer record")
                    return newer
                }
                base = newer
            }
        }
        throw CredentialStoreError.versionConflict.with(message: "The record of \(id) keeps changing")
    }
}
