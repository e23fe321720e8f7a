import Foundation
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
        if throttled, !bookkeeping.isRefreshing {
            let clock: any Clock<Duration> = self.clock
            guard
                bookkeeping.allowForcedRefresh(
                    interval: configuration.minimumForcedRefreshInterval,
                    restart: { Self.stopwatch(on: clock) }
                )
            else {
                logger.debug("Forced refresh refused: the last one was too recent")
                throw SessionError.refreshThrottled
            }
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
        while let flight = bookkeeping.flight {
            do {
                _ = try await flight.value()
            } catch {
                try Task.checkCancellation()
            }
        }
    }

    /// Whether a refresh is in flight.
    package var isRefreshing: Bool { bookkeeping.isRefreshing }

    /// The stored token, when a recent transient failure asked for a pause and the token has not expired, or when
    /// the user declined to unlock the refresh token (``CredentialStoreError/locked``): the user is asked again once
    /// the token has expired, not at every call meanwhile.
    func usableDuringBackoff(_ record: Connection, now: Date) -> AccessToken? {
        guard bookkeeping.allowsStoredTokenWithoutRefresh(now: now), let token = record.tokens.accessToken,
            !isExpired(record.tokens)
        else { return nil }
        return token
    }

    func isExpired(_ tokens: TokenSet) -> Bool {
        guard tokens.accessToken != nil else { return true }
        return tokens.expiresAt.map { $0 <= dateSource.now } ?? false
    }

    func notConnectedError() -> SessionError {
        if case .permanent(let reason) = bookkeeping.lastFailure {
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
        if let flight = bookkeeping.flight { return flight }
        let flight = SharedFlight<Connection>()
        let flightGeneration = bookkeeping.beginFlight(flight)
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
        let succeeded: Connection? = if case .success(let connection) = result { connection } else { nil }
        bookkeeping.endFlight(generation: flightGeneration, succeeded: succeeded != nil)
        if let succeeded { adopt(succeeded) }
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
            bookkeeping.lastFailure = .transient(failure, nextAttempt: nil)
            return SessionError(.offline, error.message, accountHint: record?.account, cause: error)
        }
        if error == .locked {
            // The record was read; only its refresh token stays locked. Keep it loaded, so that the stored access
            // token is handed out until it expires without asking the user again.
            bookkeeping.lastFailure = .storage(error)
            logger.debug("The user did not unlock the refresh token")
            return SessionError(.storageUnavailable, error.message, accountHint: record?.account, cause: error)
        }
        bookkeeping.lastFailure = error.isConfigurationError ? .configuration(error.message) : .storage(error)
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
