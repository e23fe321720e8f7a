package import Foundation
public import Logging

/// Keeps one connection signed in: restores it at launch, hands out fresh access tokens, refreshes them once
/// for all callers, reports a truthful status and signs out.
///
/// A session is the only writer of its connection's record. Create one per connection and keep it for the life
/// of the app or process:
///
/// ```swift
/// let session = Session(id: "google", store: try VaultStore(), refresher: oauthClient)
/// let status = await session.restore()          // at launch, within 2 s
/// let token = try await session.validAccessToken() // before each request
/// ```
///
/// ## Refreshing
/// ``validAccessToken(minimumLifetime:)`` returns the stored token while it is valid beyond the leeway (see
/// ``Configuration``) and otherwise refreshes. Concurrent callers share one refresh; a caller that is cancelled
/// stops waiting, but the refresh goes on, because with rotating refresh tokens an aborted refresh can spend the
/// old token without storing the new one. Across processes sharing a store, a refresh holds the store's refresh
/// lease; a process that waited re-reads the record and uses the token the other obtained. Before the process
/// exits, ``finishRefreshesInFlight()`` waits for a refresh in flight, so that the rotated refresh token reaches
/// the store (a graceful shutdown; `TetherServiceLifecycle` offers it as a `Service`).
///
/// A rotated refresh token is written to the store before the new access token is handed to anyone; a refresh
/// response without a refresh token keeps the old one (RFC 6749 §6). When the store refuses the write, the new
/// tokens are kept in memory and handed out (the old refresh token is spent), the status is
/// ``ConnectionStatus/storageUnavailable(_:)``, and every call writes them again until the store takes them.
///
/// ## Failures
/// - Transient (no network, timeout, 5xx, 429): retried with bounded exponential backoff on the injected clock;
///   the status becomes ``ConnectionStatus/offline(account:nextAttempt:lastError:)`` and the tokens are kept.
///   While the current access token has not expired yet, it is still returned.
/// - Permanent (`invalid_grant`, revoked, user disabled): the tokens are removed, the account and metadata kept
///   as a hint for signing in again; the status becomes ``ConnectionStatus/needsSignIn(reason:accountHint:)``.
/// - Outcome unknown: a refresh that was sent but got no usable answer (a timeout, a connection dropped after the
///   request was written, a 5xx; see ``RefreshError/isOutcomeUnknown``) may have rotated the refresh token at the
///   provider. It is retried promptly, with the same refresh token, so that a provider's reuse grace period lets
///   the retry succeed. When the retry is refused with `invalid_grant`, the reason is
///   ``SignInReason/refreshAnswerLost`` rather than ``SignInReason/grantRevoked``; ``counters`` counts both.
/// - Configuration: the status becomes ``ConnectionStatus/misconfigured(problem:)``.
/// - A store that cannot be read yet gives ``ConnectionStatus/storageUnavailable(_:)`` — never "signed out".
///   Call ``restore()`` again when protected data becomes available.
/// - A store that keeps the refresh token behind the user's presence (`KeychainStore` with
///   `refreshTokenProtection`) is asked to unlock it once per refresh, never for a fresh access token. When the user
///   declines, the status is ``ConnectionStatus/storageUnavailable(_:)`` with ``CredentialStoreError/locked``, the
///   unexpired access token is still handed out, and the next refresh asks again.
public actor Session {
    /// The connection this session keeps.
    public nonisolated let id: ConnectionID

    let store: any CredentialStore
    let refresher: any TokenRefresher
    let revoker: (any TokenRevoker)?
    let grantCheck: (any GrantCheck)?
    let configuration: Configuration
    let clock: any Clock<Duration>
    nonisolated let dateSource: DateSource
    let logger: Logger

    /// The record as last read from or written to the store; meaningful once ``isLoaded``.
    var record: Connection?
    /// Whether ``record`` reflects the store (a read succeeded since the last storage failure).
    var isLoaded = false
    /// When the record's access token stops being fresh (expiry minus leeway); `.distantFuture` when its expiry is
    /// unknown, `.distantPast` when there is no access token.
    var freshUntil = Date.distantPast
    /// The fresh token and its deadline, readable without entering the actor: the hot path of
    /// ``validAccessToken(minimumLifetime:)`` runs on the caller's executor and costs a lock and a clock read.
    /// Written only by ``adopt(_:)``, so it never runs ahead of ``record``.
    nonisolated let hotToken = LockedState<(token: AccessToken, freshUntil: Date)?>(nil)
    /// What the session remembers about its refreshes: the refresh in flight, the last failure, unsaved tokens, the
    /// refresh that got no answer.
    var bookkeeping = RefreshBookkeeping()
    /// Status subscribers.
    var subscribers: [UInt64: AsyncStream<ConnectionStatus>.Continuation] = [:]
    var nextSubscriberID: UInt64 = 0
    /// The status last sent to subscribers.
    var publishedStatus: ConnectionStatus?
    /// Wakes the session when a token without a refresh token expires, so the status follows the clock.
    var expiryWatch: Task<Void, Never>?
    var random = SystemRandomNumberGenerator()
    /// What the session counted since it was created (see ``counters``).
    var counts = Counters()

    /// The last failure that the status reflects. Cleared by the next success.
    package enum Failure: Sendable {
        /// Transient refresh failure; `nextAttempt` is when a retry is due, if scheduled.
        case transient(RefreshError, nextAttempt: Date?)
        /// The grant ended; the record (if any) no longer holds tokens.
        case permanent(SignInReason)
        /// The refresher or store is configured wrongly.
        case configuration(String)
        /// The store could not be read.
        case storage(CredentialStoreError)
        /// The store refused refreshed tokens; the session keeps them in memory until a write succeeds.
        case unsavedTokens(CredentialStoreError)
    }

    /// Creates a session for one connection.
    /// - Parameters:
    ///   - id: The connection's name in the store.
    ///   - store: Where the record lives.
    ///   - refresher: Exchanges refresh tokens for new tokens (the OAuth client).
    ///   - revoker: Revokes tokens at the provider on sign-out, best-effort; `nil` to skip.
    ///   - grantCheck: Asks the provider at restore whether the grant still stands (Sign in with Apple's
    ///     credential state); `nil` to skip.
    ///   - configuration: Leeway, budgets and retry policy.
    ///   - clock: The monotonic clock for sleeping, backoff and budgets.
    ///   - dateSource: The wall clock for expiry.
    ///   - logger: Where the session logs, at trace and debug level, without secrets.
    public init(
        id: ConnectionID,
        store: any CredentialStore,
        refresher: any TokenRefresher,
        revoker: (any TokenRevoker)? = nil,
        grantCheck: (any GrantCheck)? = nil,
        configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock(),
        dateSource: DateSource = .system,
        logger: Logger = .current
    ) {
        self.id = id
        self.store = store
        self.refresher = refresher
        self.revoker = revoker
        self.grantCheck = grantCheck
        self.configuration = configuration
        self.clock = clock
        self.dateSource = dateSource
        var logger = logger
        logger[metadataKey: "session.connection"] = "\(id)"
        self.logger = logger
    }

    deinit {
        expiryWatch?.cancel()
        for continuation in subscribers.values { continuation.finish() }
    }

    // MARK: - Record bookkeeping

    /// Takes `record` as the truth and recomputes what depends on it.
    ///
    /// Refreshed tokens the store has not taken yet stay the truth over a stored record that still holds the
    /// tokens they replaced; a record with other tokens (a new sign-in) or none supersedes them.
    func adopt(_ record: Connection?) {
        let record = bookkeeping.overlayUnsaved(on: record)
        self.record = record
        isLoaded = true
        bookkeeping.recordAdopted()
        freshUntil = Self.freshUntil(record?.tokens, configuration: configuration)
        // While tokens are unsaved, every caller goes through the actor, which writes them again.
        let hot =
            bookkeeping.unsaved == nil ? record?.tokens.accessToken.map { (token: $0, freshUntil: freshUntil) } : nil
        hotToken.withLock { $0 = hot }
        watchExpiry()
    }

    static func freshUntil(_ tokens: TokenSet?, configuration: Configuration) -> Date {
        guard let tokens, tokens.accessToken != nil else { return .distantPast }
        guard let expiresAt = tokens.expiresAt else { return .distantFuture }
        let leeway = configuration.effectiveLeeway(forLifetime: tokens.lifetime)
        return expiresAt.addingTimeInterval(-leeway.timeInterval)
    }

    /// A token without a refresh token dies at its expiry; wake up then, so the status says so.
    func watchExpiry() {
        expiryWatch?.cancel()
        expiryWatch = nil
        guard let tokens = record?.tokens, !tokens.hasRefreshToken, let expiresAt = tokens.expiresAt else { return }
        let remaining = expiresAt.timeIntervalSince(dateSource.now)
        guard remaining > 0 else { return }
        let clock = self.clock
        expiryWatch = Task { [weak self] in
            try? await clock.sleep(for: .seconds(remaining))
            guard !Task.isCancelled else { return }
            await self?.publishStatus()
        }
    }

    /// Reads the record if it has not been read yet (or the last read failed).
    func loadIfNeeded() async throws {
        guard !isLoaded else { return }
        do {
            adopt(try await store.read(id))
        } catch let error as CredentialStoreError {
            bookkeeping.lastFailure = error.isConfigurationError ? .configuration(error.message) : .storage(error)
            publishStatus()
            throw Self.sessionError(for: error)
        }
    }

    static func sessionError(for error: CredentialStoreError) -> SessionError {
        if error.isConfigurationError {
            return SessionError(.misconfigured, error.message, cause: error)
        }
        return SessionError(.storageUnavailable, error.message, cause: error)
    }

    // MARK: - Restore

    /// Loads the record at launch and, if the access token is missing or stale and a refresh token exists,
    /// refreshes it — all within ``Configuration/restoreBudget``.
    ///
    /// A refresh that takes longer goes on in the background; the returned status is then
    /// ``ConnectionStatus/refreshing(account:)`` and a later status update reports the outcome. A network
    /// failure keeps the session (``ConnectionStatus/offline(account:nextAttempt:lastError:)``); only the
    /// provider's word that the grant is gone leads to ``ConnectionStatus/needsSignIn(reason:accountHint:)``.
    /// Call it again when a store that was unavailable (before first unlock) becomes readable.
    /// - Returns: The status when restore finished.
    @discardableResult
    public func restore() async -> ConnectionStatus {
        let clock: any Clock<Duration> = self.clock
        let budgetElapsed = Self.timer(on: clock, for: configuration.restoreBudget)
        logger.trace("Restoring connection")
        isLoaded = false
        bookkeeping.beginRestore()
        publishStatus()
        let record: Connection?
        do {
            record = try await store.read(id)
        } catch let error as CredentialStoreError {
            bookkeeping.endRestore()
            bookkeeping.lastFailure = error.isConfigurationError ? .configuration(error.message) : .storage(error)
            logger.debug("Restore could not read the store", metadata: ["store.error": "\(error.message)"])
            publishStatus()
            return status
        } catch {
            bookkeeping.endRestore()
            bookkeeping.lastFailure = .storage(CredentialStoreError.io.with(message: "The store failed", cause: error))
            publishStatus()
            return status
        }
        bookkeeping.endRestore()
        if case .configuration = bookkeeping.lastFailure { bookkeeping.lastFailure = nil }
        adopt(record)
        if let record, let grantCheck, record.tokens.hasRefreshToken || record.tokens.accessToken != nil {
            do {
                if case .revoked(let reason) = try await grantCheck.grantStatus(of: record) {
                    // endGrant records the outcome (tokens removed, needs sign-in) and always throws.
                    _ = try? await endGrant(
                        record,
                        reason: reason,
                        failure: .permanent(reason, "The grant was revoked")
                    )
                    publishStatus()
                    return status
                }
            } catch {
                logger.debug(
                    "The grant check failed; keeping the session",
                    metadata: ["session.error": "\(type(of: error))"]
                )
            }
        }
        guard let record = self.record, needsRefresh(record, now: dateSource.now), record.tokens.hasRefreshToken
        else {
            publishStatus()
            return status
        }
        logger.debug("Restored token is missing or stale; refreshing")
        let flight = startRefresh(rejecting: record.tokens.accessToken)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = try? await flight.value() }
            group.addTask { await budgetElapsed() }
            await group.next()
            group.cancelAll()
        }
        return status
    }

    /// Starts measuring `duration` on `clock` now; the returned closure sleeps until it has passed.
    static func timer(on clock: some Clock<Duration>, for duration: Duration) -> @Sendable () async -> Void {
        let deadline = clock.now.advanced(by: duration)
        return { try? await clock.sleep(until: deadline, tolerance: nil) }
    }

    /// Starts measuring on `clock` now; the returned closure tells how much time has passed since.
    static func stopwatch(on clock: some Clock<Duration>) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    func needsRefresh(_ record: Connection, now: Date) -> Bool {
        record.tokens.accessToken == nil || now >= freshUntil
    }

    // MARK: - Sign-in, metadata, sign-out

    /// Stores a new sign-in, replacing whatever the connection held. Existing metadata is kept when the same
    /// account signs in again, and dropped for a different account.
    /// - Parameters:
    ///   - account: Who signed in.
    ///   - tokens: The tokens from the code exchange, anchored at the moment they were received.
    ///   - metadata: Metadata to merge into the record.
    /// - Returns: The stored record.
    /// - Throws: ``SessionError/storageUnavailable`` or ``SessionError/misconfigured`` when the store fails.
    @discardableResult
    public func signIn(
        account: Account,
        tokens: TokenSet,
        metadata: [String: String] = [:]
    ) async throws
        -> Connection
    {
        // A damaged record is not overwritten silently: the caller signs out (deletes) first.
        let existing = try await readRecord()
        let sameAccount =
            existing.map { $0.account.providerID == account.providerID && $0.account.subject == account.subject }
            ?? false
        var merged = sameAccount ? existing?.metadata ?? [:] : [:]
        merged.merge(metadata) { _, new in new }
        let connection = Connection(id: id, account: account, tokens: tokens, metadata: merged)
        do {
            let written = try await store.write(
                connection,
                expecting: existing.map { .version($0.version) } ?? .absent
            )
            bookkeeping.recordReplaced()
            adopt(written)
            logger.debug("Signed in", metadata: ["store.version": "\(written.version)"])
            publishStatus()
            return written
        } catch let error as CredentialStoreError {
            throw storageFailure(error)
        }
    }

    /// Changes the record's metadata (a selected calendar, the last sync) without touching the tokens.
    /// - Parameter change: Edits the metadata.
    /// - Returns: The stored record.
    /// - Throws: ``SessionError/notConnected`` when there is no record, or a storage error.
    @discardableResult
    public func updateMetadata(_ change: @Sendable (inout [String: String]) -> Void) async throws -> Connection {
        for _ in 0..<5 {
            guard var next = try await readRecord() else { throw SessionError.notConnected }
            change(&next.metadata)
            do {
                let written = try await store.write(next, expecting: .version(next.version))
                adopt(written)
                publishStatus()
                return written
            } catch let error as CredentialStoreError where error == .versionConflict {
                continue
            } catch let error as CredentialStoreError {
                throw storageFailure(error)
            }
        }
        throw storageFailure(CredentialStoreError.versionConflict)
    }

    /// The stored record, read from the store if it has not been read yet.
    /// - Returns: The record, or `nil` when not connected.
    /// - Throws: A storage ``SessionError``.
    public func connection() async throws -> Connection? {
        try await loadIfNeeded()
        return record
    }

    /// Signs out: revokes the tokens at the provider (best-effort) and deletes the record from every place the
    /// store keeps it. Nothing else is touched. Signing out twice is fine.
    /// - Throws: A storage ``SessionError`` when the record could not be deleted; the user is then still signed
    ///   in, and the call can be repeated.
    public func signOut() async throws {
        // Under the refresh lease, so that a refresh in flight finishes first: otherwise it could rotate the refresh
        // token after it was read here, and the revocation would spend itself on the old token while the new one
        // stays live at the provider.
        let lease: (any RefreshLease)?
        do {
            lease = try await store.acquireRefreshLease(for: id, timeout: configuration.leaseTimeout)
        } catch {
            // Signing out must not depend on the lease; a refresh racing this one may then outlive it.
            logger.warning(
                "Signing out without the refresh lease",
                metadata: ["store.error": "\((error as? CredentialStoreError)?.message ?? "\(type(of: error))")"]
            )
            lease = nil
        }
        do {
            try await signOutHoldingLease()
            await lease?.release()
        } catch {
            await lease?.release()
            throw error
        }
    }

    /// Reads, deletes and revokes the record that is current at the time of the delete.
    private func signOutHoldingLease() async throws {
        let existing = try? await store.read(id)
        let toRevoke = bookkeeping.unsaved?.updated ?? existing ?? record
        do {
            try await store.delete(id)
        } catch let error as CredentialStoreError {
            logger.debug("Sign-out could not delete the record", metadata: ["store.error": "\(error.message)"])
            throw storageFailure(error)
        }
        bookkeeping.recordReplaced()
        adopt(nil)
        publishStatus()
        logger.debug("Signed out")
        if let toRevoke, let revoker, toRevoke.tokens.refreshToken != nil || toRevoke.tokens.accessToken != nil {
            do {
                try await revoker.revoke(toRevoke.tokens, account: toRevoke.account)
            } catch {
                logger.info(
                    "Revocation at the provider failed; signed out locally",
                    metadata: ["oauth.error": "\(type(of: error))"]
                )
            }
        }
    }
}
