package import Foundation
import Logging

extension Session {
    /// Returns an access token that stays valid for the leeway (or `minimumLifetime`), refreshing if needed.
    ///
    /// Concurrent callers share one refresh. Cancelling the calling task stops its wait, not the refresh.
    /// - Parameter minimumLifetime: How long the token must stay valid at least; `nil` uses the configured
    ///   leeway.
    /// - Returns: The access token.
    /// - Throws: ``SessionError`` — `notConnected`, `needsSignIn`, `offline`, `storageUnavailable`,
    ///   `misconfigured`, `tokenLifetimeTooShort` — or `CancellationError`.
    public nonisolated func validAccessToken(minimumLifetime: Duration? = nil) async throws -> AccessToken {
        if minimumLifetime == nil, let hot = hotToken.withLock({ $0 }), dateSource.now < hot.freshUntil {
            return hot.token
        }
        return try await accessTokenRefreshingIfNeeded(minimumLifetime: minimumLifetime)
    }

    func accessTokenRefreshingIfNeeded(minimumLifetime: Duration?) async throws -> AccessToken {
        let now = dateSource.now
        try await loadIfNeeded()
        await retryUnsavedWrite()
        guard let record else { throw notConnectedError() }
        if let token = record.tokens.accessToken {
            let freshEnough: Bool
            if let minimumLifetime, let expiresAt = record.tokens.expiresAt {
                freshEnough = now.addingTimeInterval(minimumLifetime.timeInterval) < expiresAt
            } else {
                freshEnough = now < freshUntil
            }
            if freshEnough { return token }
        }
        if let token = usableDuringBackoff(record, now: now) { return token }
        let refreshed = try await refreshed(rejecting: record.tokens.accessToken, allowingUnexpired: true)
        guard let token = refreshed.tokens.accessToken else { throw notConnectedError() }
        if let minimumLifetime, let expiresAt = refreshed.tokens.expiresAt,
            dateSource.now.addingTimeInterval(minimumLifetime.timeInterval) >= expiresAt
        {
            throw SessionError.tokenLifetimeTooShort
        }
        return token
    }

    /// Refreshes now, even if the stored token looks valid: the path for a 401 `invalid_token` answer.
    ///
    /// When another caller already replaced `rejectedToken` and the newer token is still fresh (outside the
    /// refresh leeway), it is returned without a second refresh; a newer token that is already stale is refreshed
    /// like any other, so the one retry after a 401 never goes out with a token about to expire. Calls made while
    /// a refresh is in flight join it.
    /// - Parameter rejectedToken: The token the resource server rejected; `nil` for the current one.
    /// - Returns: A new access token.
    /// - Throws: See ``validAccessToken(minimumLifetime:)``.
    public func forceRefresh(rejecting rejectedToken: AccessToken? = nil) async throws -> AccessToken {
        try await forceRefresh(rejecting: rejectedToken, throttled: false)
    }

    /// ``forceRefresh(rejecting:)`` for a client that refreshes on its own after a `401`: when `throttled`, at most
    /// one such refresh starts per ``Configuration/minimumForcedRefreshInterval``, so that a resource server that
    /// rejects every token cannot make the session refresh for every request.
    /// - Parameters:
    ///   - rejectedToken: The token the resource server rejected; `nil` for the current one.
    ///   - throttled: Whether the minimum interval applies.
    ///   - claims: The claims request of a claims challenge (decoded JSON), sent with the refresh; `nil` for none.
    ///     A refresh already in flight is joined as it is.
    /// - Returns: A new access token.
    /// - Throws: See ``validAccessToken(minimumLifetime:)``; ``SessionError/refreshThrottled`` when a throttled
    ///   refresh was forced less than the minimum interval ago.
    package func forceRefresh(
        rejecting rejectedToken: AccessToken?,
        throttled: Bool,
        claims: String? = nil
    ) async throws -> AccessToken {
        try await loadIfNeeded()
        await retryUnsavedWrite()
        guard let record else { throw notConnectedError() }
        let rejected = rejectedToken ?? record.tokens.accessToken
        if let current = record.tokens.accessToken, current != rejected, dateSource.now < freshUntil {
            return current
        }
        // Joining a refresh in flight costs the provider nothing; only a new refresh counts against the limit.
        if !throttled {
        } else if case .refreshing = activity {
        } else {
            let interval = configuration.minimumForcedRefreshInterval
            if let sinceForcedRefresh, interval > .zero, sinceForcedRefresh() < interval {
                logger.debug("Forced refresh refused: the last one was too recent")
                throw SessionError.refreshThrottled
            }
            let clock: any Clock<Duration> = self.clock
            sinceForcedRefresh = Self.stopwatch(on: clock)
        }
        let refreshed = try await refreshed(
            rejecting: rejected,
            allowingUnexpired: false,
            claims: claims,
            refused: true
        )
        guard let token = refreshed.tokens.accessToken else { throw notConnectedError() }
        return token
    }

    /// Waits until this session has no refresh in flight: the step of a graceful shutdown that keeps a rotated
    /// refresh token from dying with the process.
    ///
    /// A refresh runs in a task of its own, which a cancelled caller does not stop; but a process that exits
    /// while the provider's answer is on its way, or before it reached the store, loses the new refresh token,
    /// and with rotation and reuse detection the grant with it. Call this after the server stopped taking new
    /// work and before it exits (`TetherServiceLifecycle` does it for a `ServiceGroup`). It returns at once when
    /// nothing is in flight, waits for a refresh started meanwhile as well, and reports no outcome: the callers of
    /// ``validAccessToken(minimumLifetime:)`` get those. How long it can take is bounded by the transport's
    /// timeout and ``Configuration/retry``.
    /// - Throws: `CancellationError` when the waiting task is cancelled; the refresh itself goes on.
    public func finishRefreshesInFlight() async throws {
        while case .refreshing(let flight, _) = activity {
            do {
                _ = try await flight.value()
            } catch {
                try Task.checkCancellation()
            }
        }
    }

    /// Whether a refresh is in flight.
    package var isRefreshing: Bool {
        if case .refreshing = activity { return true }
        return false
    }

    /// The stored token, when a recent transient failure asked for a pause and the token has not expired, or when
    /// the user declined to unlock the refresh token (``CredentialStoreError/locked``): the user is asked again once
    /// the token has expired, not at every call meanwhile.
    func usableDuringBackoff(_ record: Connection, now: Date) -> AccessToken? {
        switch lastFailure {
        case .transient(_, let nextAttempt?) where now < nextAttempt: break
        case .storage(let error) where error == .locked: break
        default: return nil
        }
        guard let token = record.tokens.accessToken, !isExpired(record.tokens) else { return nil }
        return token
    }

    func isExpired(_ tokens: TokenSet) -> Bool {
        guard tokens.accessToken != nil else { return true }
        return tokens.expiresAt.map { $0 <= dateSource.now } ?? false
    }

    func notConnectedError() -> SessionError {
        if case .permanent(let reason) = lastFailure {
            return SessionError(.needsSignIn, reason.message, signInReason: reason, accountHint: record?.account)
        }
        return .notConnected
    }

    /// Joins the refresh in flight or starts one. When the provider is unreachable, a stored token that has not
    /// expired is still handed out — the stale one too if `allowingUnexpired`, otherwise only a newer one.
    func refreshed(
        rejecting rejected: AccessToken?,
        allowingUnexpired: Bool,
        claims: String? = nil,
        refused: Bool = false
    ) async throws -> Connection {
        let flight = startRefresh(rejecting: rejected, claims: claims, refused: refused)
        do {
            return try await flight.value()
        } catch let error as SessionError where error == .offline || Self.isLocked(error) {
            if let record, let token = record.tokens.accessToken, allowingUnexpired || token != rejected,
                !isExpired(record.tokens)
            {
                return record
            }
            throw error
        }
    }

    /// Whether the error says that the user declined to unlock the refresh token (``CredentialStoreError/locked``).
    static func isLocked(_ error: SessionError) -> Bool {
        (error.cause as? CredentialStoreError) == .locked
    }

    /// Installs a refresh flight, or returns the one in flight. No `await` between the check and the install.
    /// `refused` says that a resource server refused `rejected` (a forced refresh), as opposed to a token that is
    /// only about to expire.
    func startRefresh(
        rejecting rejected: AccessToken?,
        claims: String? = nil,
        refused: Bool = false
    ) -> SharedFlight<Connection> {
        if case .refreshing(let flight, _) = activity { return flight }
        generation += 1
        let flightGeneration = generation
        let flight = SharedFlight<Connection>()
        activity = .refreshing(flight: flight, generation: flightGeneration)
        if case .transient = lastFailure { lastFailure = nil }
        publishStatus()
        // An unstructured task: no caller's cancellation may cut a rotating refresh short.
        Task {
            let result: Result<Connection, any Error>
            do {
                result = .success(try await self.performRefresh(rejecting: rejected, claims: claims, refused: refused))
            } catch {
                result = .failure(error)
            }
            self.finishRefresh(generation: flightGeneration, result: result)
            flight.resolve(result)
        }
        return flight
    }

    func finishRefresh(generation flightGeneration: UInt64, result: Result<Connection, any Error>) {
        if case .refreshing(_, let current) = activity, current == flightGeneration {
            activity = .idle
        }
        if case .success(let connection) = result {
            lastFailure = unsavedRefresh.map { .unsavedTokens($0.error) }
            adopt(connection)
        }
        publishStatus()
    }

    /// Refreshes under the store's lease. Runs on the actor, but every state change goes through a small
    /// synchronous method, so reentrant callers only ever see whole states.
    func performRefresh(
        rejecting rejected: AccessToken?,
        claims: String? = nil,
        refused: Bool = false
    ) async throws -> Connection {
        let lease: any RefreshLease
        do {
            lease = try await store.acquireRefreshLease(for: id, timeout: configuration.leaseTimeout)
        } catch let error as CredentialStoreError {
            throw storageFailure(error)
        }
        do {
            let result = try await refreshUnderLease(
                rejecting: rejected,
                claims: claims,
                refused: refused,
                lease: lease
            )
            await lease.release()
            return result
        } catch {
            await lease.release()
            throw error
        }
    }

    func refreshUnderLease(
        rejecting rejected: AccessToken?,
        claims: String? = nil,
        refused: Bool = false,
        lease: any RefreshLease
    ) async throws -> Connection {
        await retryUnsavedWrite(holdingLease: true)
        // Another process (or session) may have refreshed while we waited for the lease: re-read.
        guard let stored = try await readRecord() else {
            adopt(nil)
            throw notConnectedError()
        }
        // Tokens the store has not taken yet replace the spent ones it still holds: the old refresh token is
        // never presented again.
        adopt(stored)
        var current = stored
        if let record { current.tokens = record.tokens }
        let now = dateSource.now
        if let token = current.tokens.accessToken, token != rejected,
            now < Self.freshUntil(current.tokens, configuration: configuration)
        {
            logger.debug("Using the token another refresh stored", metadata: ["store.version": "\(current.version)"])
            return current
        }
        if current.tokens.refreshToken == nil, let fingerprint = current.tokens.lockedRefreshToken {
            current.tokens = current.tokens.unlocking(with: try await unlockRefreshToken(of: current, fingerprint))
        }
        guard let refreshToken = current.tokens.refreshToken else {
            if refused, let rejected, current.tokens.accessToken == rejected {
                // A resource server refused the only token, and nothing can renew it (GitHub's non-expiring OAuth
                // app tokens answer a revocation with 401 "Bad credentials"): the grant is gone.
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
            let reason = SignInReason.sessionExpired
            throw SessionError(.needsSignIn, reason.message, signInReason: reason, accountHint: current.account)
        }
        let request = RefreshRequest(
            connectionID: id,
            refreshToken: refreshToken,
            account: current.account,
            tokens: current.tokens,
            claims: claims
        )
        var attempt = 0
        while true {
            attempt += 1
            logger.trace(
                "Refreshing access token",
                metadata: ["oauth.grant_type": "refresh_token", "session.attempt": "\(attempt)"]
            )
            // A refresher that can hand the refresh to a worker outliving this process gets it whole; tokens kept
            // in memory after a failed write (not in the store the worker reads) are refreshed here, and so is a
            // refresh carrying a claims request, which the worker does not take.
            let delegating =
                current.tokens == stored.tokens && claims == nil ? refresher as? any DelegatedRefresher : nil
            let sentAt = dateSource.now
            let response: TokenResponse?
            do {
                if let delegating,
                    try await delegating.refreshAndStore(
                        request,
                        holding: lease,
                        answerMayDateFrom: answerMayDateFrom(refreshToken)
                    )
                {
                    response = nil
                } else {
                    try await reserveSpaceForAnswer()
                    response = try await refresher.refresh(request)
                }
            } catch let error as CredentialStoreError {
                // No room for the answer, so nothing was sent; or a worker got an answer it could not store and keeps
                // it. Either way no second refresh with this refresh token may follow: storage trouble, not offline.
                logger.debug("Refresh stopped by the store", metadata: ["store.error": "\(error.message)"])
                throw storageFailure(error)
            } catch {
                let failure = Self.classify(error)
                switch failure.kind {
                case .transient:
                    if failure.isOutcomeUnknown { noteUnanswered(refreshToken, attempt: attempt, sentAt: sentAt) }
                    try await handleTransient(failure, attempt: attempt)
                    continue
                case .permanent(let reason):
                    try await endGrant(
                        current,
                        reason: reasonAfterLostAnswers(reason, for: refreshToken),
                        failure: failure
                    )
                case .configuration:
                    lastFailure = .configuration(failure.message)
                    logger.debug("Refresh failed: configuration", metadata: ["oauth.error": "\(failure.message)"])
                    throw SessionError(.misconfigured, failure.message, cause: failure)
                }
            }
            counts.refreshes += 1
            // After a lost answer, the tokens may be a grace replay issued when it was sent: their lifetime counts
            // from then, never longer than the provider counts it.
            let receivedAt = answerMayDateFrom(refreshToken) ?? dateSource.now
            unansweredRefreshToken = nil
            unansweredSince = nil
            guard let response else { return try await storedByWorker(replacing: stored) }
            let updated = Connection(
                id: current.id,
                account: current.account,
                tokens: current.tokens.applying(response, receivedAt: receivedAt),
                metadata: current.metadata
            )
            let written: Connection
            do {
                written = try await persist(updated, over: stored)
                unsavedRefresh = nil
            } catch let error as CredentialStoreError {
                // The provider may have rotated the refresh token, and this process now holds the only copy: keep
                // the tokens, hand them out and write them again on the next call.
                logger.warning(
                    "Refreshed tokens could not be stored; keeping them in memory",
                    metadata: ["store.error": "\(error.message)"]
                )
                unsavedRefresh = (updated: updated, base: stored, error: error)
                lastFailure = .unsavedTokens(error)
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

    /// Whether refreshed tokens that the store refused are kept in memory only: the process holds the one copy of
    /// a refresh token the provider may have rotated, and must not end before they are stored.
    package var holdsUnsavedTokens: Bool { unsavedRefresh != nil }

    /// Writes refreshed tokens the store refused before, for a process that keeps them until the store takes them
    /// (the CLI's refresh worker).
    /// - Returns: Whether no refreshed tokens wait in memory any more.
    package func storeUnsavedTokens() async -> Bool {
        await retryUnsavedWrite()
        return unsavedRefresh == nil
    }

    /// Remembers a refresh that was sent at `sentAt` but got no usable answer: the provider may have rotated
    /// `refreshToken` then, and may answer a retry with the tokens it issued then.
    func noteUnanswered(_ refreshToken: RefreshToken, attempt: Int, sentAt: Date) {
        unansweredSince = answerMayDateFrom(refreshToken).map { min($0, sentAt) } ?? sentAt
        unansweredRefreshToken = refreshToken
        counts.unansweredRefreshes += 1
        logger.debug(
            "Refresh got no usable answer; the provider may have rotated the refresh token",
            metadata: [
                "session.attempt": "\(attempt)", "session.unanswered_refreshes": "\(counts.unansweredRefreshes)",
            ]
        )
    }

    /// The earliest time an answer to a refresh with `refreshToken` may date from: when the first unanswered
    /// refresh with it was sent, or `nil` when every refresh with it was answered. Some providers answer a refresh
    /// token presented again within their grace period with the very response they issued the first time, its
    /// `expires_in` counting from then (RFC 9700 §4.14.2 leaves the answer open; django-oauth-toolkit's
    /// `_save_bearer_token` returns the access token it issued then with a full `expires_in`, and so does the
    /// development provider). Counting from the later receipt would hand out a token the provider holds expired.
    func answerMayDateFrom(_ refreshToken: RefreshToken) -> Date? {
        guard let unansweredSince, unansweredRefreshToken == nil || unansweredRefreshToken == refreshToken else {
            return nil
        }
        return unansweredSince
    }

    /// Tells a session that runs one refresh for another process (the CLI's refresh worker) that its caller's earlier
    /// attempt with the same refresh token got no answer at `date`, so that the tokens it stores count their
    /// lifetime from then. The next successful refresh clears it.
    package func assumeUnansweredRefresh(since date: Date) {
        unansweredSince = min(unansweredSince ?? date, date)
    }

    /// The reason to end the grant with: an `invalid_grant` for a refresh token whose earlier refresh got no answer
    /// most likely means the provider rotated it then and its answer was lost (RFC 9700 §4.14.2: a rotated refresh
    /// token presented again is treated as reuse). Counted; ``endGrant(_:reason:failure:)`` logs it.
    func reasonAfterLostAnswers(_ reason: SignInReason, for refreshToken: RefreshToken) -> SignInReason {
        guard reason == .grantRevoked, unansweredRefreshToken == refreshToken else { return reason }
        counts.lostRefreshAnswers += 1
        return .refreshAnswerLost
    }

    /// The record a ``DelegatedRefresher``'s worker stored; it must hold other tokens than `stored`.
    func storedByWorker(replacing stored: Connection) async throws -> Connection {
        guard let newer = try await readRecord() else {
            adopt(nil)
            throw SessionError.notConnected
        }
        guard newer.tokens != stored.tokens else {
            let failure = RefreshError.transient("The refresh finished without storing new tokens")
            lastFailure = .transient(failure, nextAttempt: nil)
            throw SessionError(.offline, failure.message, accountHint: newer.account, cause: failure)
        }
        unsavedRefresh = nil
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
        lastFailure = .transient(failure, nextAttempt: nextAttempt)
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
        lastFailure = .permanent(reason)
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

    /// Writes refreshed tokens the store refused before. On success the status no longer reports storage trouble;
    /// on failure the tokens stay in memory for the next call. Outside the lease it waits while a refresh is in
    /// flight, which writes them (or their successors) itself.
    func retryUnsavedWrite(holdingLease: Bool = false) async {
        if !holdingLease, case .refreshing = activity { return }
        guard let pending = unsavedRefresh, !isSavingUnsaved else { return }
        isSavingUnsaved = true
        defer { isSavingUnsaved = false }
        do {
            let written = try await persist(pending.updated, over: pending.base)
            unsavedRefresh = nil
            if case .unsavedTokens = lastFailure { lastFailure = nil }
            adopt(written)
            logger.info("Stored the refreshed tokens kept in memory", metadata: ["store.version": "\(written.version)"])
        } catch let error as CredentialStoreError {
            unsavedRefresh?.error = error
            if case .unsavedTokens = lastFailure { lastFailure = .unsavedTokens(error) }
            logger.debug("Refreshed tokens still cannot be stored", metadata: ["store.error": "\(error.message)"])
        } catch {
            // The record was deleted (signed out): nothing to write.
            unsavedRefresh = nil
            if case .unsavedTokens = lastFailure { lastFailure = nil }
        }
        publishStatus()
    }

    /// Reads this connection's record from the store; a store failure becomes the session error for it.
    func readRecord() async throws -> Connection? {
        do {
            return try await store.read(id)
        } catch let error as CredentialStoreError {
            throw storageFailure(error)
        }
    }

    func storageFailure(_ error: CredentialStoreError) -> SessionError {
        if error == .leaseTimeout {
            let failure = RefreshError.transient(error.message)
            lastFailure = .transient(failure, nextAttempt: nil)
            return SessionError(.offline, error.message, accountHint: record?.account, cause: error)
        }
        if error == .locked {
            // The record was read; only its refresh token stays locked. Keep it loaded, so that the stored access
            // token is handed out until it expires without asking the user again.
            lastFailure = .storage(error)
            logger.debug("The user did not unlock the refresh token")
            return SessionError(.storageUnavailable, error.message, accountHint: record?.account, cause: error)
        }
        lastFailure = error.isConfigurationError ? .configuration(error.message) : .storage(error)
        isLoaded = false
        return Self.sessionError(for: error)
    }

    /// Turns whatever a refresher threw into a classified failure; unknown errors are transient, with an unknown
    /// outcome.
    static func classify(_ error: any Error) -> RefreshError {
        if let error = error as? RefreshError { return error }
        if let error = error as? any RefreshErrorConvertible { return error.refreshError }
        if error is CancellationError { return .transient("The refresh was cancelled") }
        // Nothing says the request never reached the provider.
        return .transient("The refresh failed: \(type(of: error))", isOutcomeUnknown: true)
    }
}
