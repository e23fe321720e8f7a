import Foundation
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
/// lease; a process that waited re-reads the record and uses the token the other obtained.
///
/// A rotated refresh token is written to the store before the new access token is handed to anyone; a refresh
/// response without a refresh token keeps the old one (RFC 6749 §6).
///
/// ## Failures
/// - Transient (no network, timeout, 5xx, 429): retried with bounded exponential backoff on the injected clock;
///   the status becomes ``ConnectionStatus/offline(account:nextAttempt:lastError:)`` and the tokens are kept.
///   While the current access token has not expired yet, it is still returned.
/// - Permanent (`invalid_grant`, revoked, user disabled): the tokens are removed, the account and metadata kept
///   as a hint for signing in again; the status becomes ``ConnectionStatus/needsSignIn(reason:accountHint:)``.
/// - Configuration: the status becomes ``ConnectionStatus/misconfigured(problem:)``.
/// - A store that cannot be read yet gives ``ConnectionStatus/storageUnavailable(_:)`` — never "signed out".
///   Call ``restore()`` again when protected data becomes available.
public actor Session {
    /// The connection this session keeps.
    public nonisolated let id: ConnectionID

    private let store: any CredentialStore
    private let refresher: any TokenRefresher
    private let revoker: (any TokenRevoker)?
    private let grantCheck: (any GrantCheck)?
    private let configuration: Configuration
    private let clock: any Clock<Duration>
    private nonisolated let dateSource: DateSource
    private let logger: Logger

    /// The record as last read from or written to the store; meaningful once ``isLoaded``.
    private var record: Connection?
    /// Whether ``record`` reflects the store (a read succeeded since the last storage failure).
    private var isLoaded = false
    /// When the record's access token stops being fresh (expiry minus leeway); `.distantFuture` when its expiry is
    /// unknown, `.distantPast` when there is no access token.
    private var freshUntil = Date.distantPast
    /// The fresh token and its deadline, readable without entering the actor: the hot path of
    /// ``validAccessToken(minimumLifetime:)`` runs on the caller's executor and costs a lock and a clock read.
    /// Written only by ``adopt(_:)``, so it never runs ahead of ``record``.
    private nonisolated let hotToken = LockedState<(token: AccessToken, freshUntil: Date)?>(nil)
    /// What the session is doing now.
    private var activity = Activity.idle
    /// The outcome of the last refresh or store access, when it was a failure.
    private var lastFailure: Failure?
    /// Counts refresh flights, so that a finishing flight clears only its own slot.
    private var generation: UInt64 = 0
    /// Status subscribers.
    private var subscribers: [UInt64: AsyncStream<ConnectionStatus>.Continuation] = [:]
    private var nextSubscriberID: UInt64 = 0
    /// The status last sent to subscribers.
    private var publishedStatus: ConnectionStatus?
    /// Wakes the session when a token without a refresh token expires, so the status follows the clock.
    private var expiryWatch: Task<Void, Never>?
    private var random = SystemRandomNumberGenerator()

    /// What the session is doing.
    private enum Activity {
        /// Nothing in flight.
        case idle
        /// ``restore()`` is reading the store.
        case restoring
        /// A refresh is in flight; callers join `flight`. `generation` identifies it.
        case refreshing(flight: SharedFlight<Connection>, generation: UInt64)
    }

    /// The last failure that the status reflects. Cleared by the next success.
    private enum Failure {
        /// Transient refresh failure; `nextAttempt` is when a retry is due, if scheduled.
        case transient(RefreshError, nextAttempt: Date?)
        /// The grant ended; the record (if any) no longer holds tokens.
        case permanent(SignInReason)
        /// The refresher or store is configured wrongly.
        case configuration(String)
        /// The store could not be read.
        case storage(CredentialStoreError)
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

    // MARK: - Status

    /// The connection's status now, derived from the record, the clock and the last outcome.
    public var status: ConnectionStatus { deriveStatus(now: dateSource.now) }

    /// A stream of status changes; the first element is the current status.
    /// - Parameter bufferingPolicy: What to keep when the consumer is slower than the changes: by default only
    ///   the newest status, which is what a user interface shows; `.unbounded` keeps every transition.
    /// - Returns: A stream that ends when the session is released or the consumer stops iterating.
    public func statusUpdates(
        bufferingPolicy: AsyncStream<ConnectionStatus>.Continuation.BufferingPolicy = .bufferingNewest(1)
    ) -> AsyncStream<ConnectionStatus> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ConnectionStatus.self,
            bufferingPolicy: bufferingPolicy
        )
        publishStatus()
        nextSubscriberID += 1
        let subscriberID = nextSubscriberID
        subscribers[subscriberID] = continuation
        continuation.yield(publishedStatus ?? status)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(subscriberID) }
        }
        return stream
    }

    private func removeSubscriber(_ subscriberID: UInt64) {
        subscribers[subscriberID] = nil
    }

    private func deriveStatus(now: Date) -> ConnectionStatus {
        switch lastFailure {
        case .configuration(let problem): return .misconfigured(problem: problem)
        case .storage(let error): return .storageUnavailable(error)
        default: break
        }
        if case .restoring = activity { return .restoring }
        guard let record else {
            if case .permanent(let reason) = lastFailure { return .needsSignIn(reason: reason, accountHint: nil) }
            return isLoaded ? .notConnected : .restoring
        }
        let tokens = record.tokens
        if case .permanent(let reason) = lastFailure {
            return .needsSignIn(reason: reason, accountHint: record.account)
        }
        let accessTokenAlive = tokens.accessToken != nil && (tokens.expiresAt.map { $0 > now } ?? true)
        guard tokens.refreshToken != nil || accessTokenAlive else {
            let reason: SignInReason = tokens.accessToken == nil ? .grantRevoked : .sessionExpired
            return .needsSignIn(reason: reason, accountHint: record.account)
        }
        if case .transient(let error, let nextAttempt) = lastFailure {
            return .offline(account: record.account, nextAttempt: nextAttempt, lastError: error)
        }
        if case .refreshing = activity { return .refreshing(account: record.account) }
        return .connected(account: record.account, until: tokens.expiresAt)
    }

    /// Sends the status to subscribers if it changed.
    private func publishStatus() {
        let current = status
        guard current != publishedStatus else { return }
        publishedStatus = current
        logger.debug("Connection status changed", metadata: ["session.status": "\(current.kind.rawValue)"])
        for continuation in subscribers.values { continuation.yield(current) }
    }

    // MARK: - Record bookkeeping

    /// Takes `record` as the truth and recomputes what depends on it.
    private func adopt(_ record: Connection?) {
        self.record = record
        isLoaded = true
        if case .storage = lastFailure { lastFailure = nil }
        freshUntil = Self.freshUntil(record?.tokens, configuration: configuration)
        let hot = record?.tokens.accessToken.map { (token: $0, freshUntil: freshUntil) }
        hotToken.withLock { $0 = hot }
        watchExpiry()
    }

    private static func freshUntil(_ tokens: TokenSet?, configuration: Configuration) -> Date {
        guard let tokens, tokens.accessToken != nil else { return .distantPast }
        guard let expiresAt = tokens.expiresAt else { return .distantFuture }
        let leeway = configuration.effectiveLeeway(forLifetime: tokens.lifetime)
        return expiresAt.addingTimeInterval(-leeway.timeInterval)
    }

    /// A token without a refresh token dies at its expiry; wake up then, so the status says so.
    private func watchExpiry() {
        expiryWatch?.cancel()
        expiryWatch = nil
        guard let tokens = record?.tokens, tokens.refreshToken == nil, let expiresAt = tokens.expiresAt else { return }
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
    private func loadIfNeeded() async throws {
        guard !isLoaded else { return }
        do {
            adopt(try await store.read(id))
        } catch let error as CredentialStoreError {
            lastFailure = error.isConfigurationError ? .configuration(error.message) : .storage(error)
            publishStatus()
            throw Self.sessionError(for: error)
        }
    }

    private static func sessionError(for error: CredentialStoreError) -> SessionError {
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
        if case .idle = activity { activity = .restoring }
        publishStatus()
        let record: Connection?
        do {
            record = try await store.read(id)
        } catch let error as CredentialStoreError {
            if case .restoring = activity { activity = .idle }
            lastFailure = error.isConfigurationError ? .configuration(error.message) : .storage(error)
            logger.debug("Restore could not read the store", metadata: ["store.error": "\(error.message)"])
            publishStatus()
            return status
        } catch {
            if case .restoring = activity { activity = .idle }
            lastFailure = .storage(CredentialStoreError.io.with(message: "The store failed", cause: error))
            publishStatus()
            return status
        }
        if case .restoring = activity { activity = .idle }
        if case .configuration = lastFailure { lastFailure = nil }
        adopt(record)
        if let record, let grantCheck, record.tokens.refreshToken != nil || record.tokens.accessToken != nil {
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
        guard let record = self.record, needsRefresh(record, now: dateSource.now), record.tokens.refreshToken != nil
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
    private static func timer(on clock: some Clock<Duration>, for duration: Duration) -> @Sendable () async -> Void {
        let deadline = clock.now.advanced(by: duration)
        return { try? await clock.sleep(until: deadline, tolerance: nil) }
    }

    private func needsRefresh(_ record: Connection, now: Date) -> Bool {
        record.tokens.accessToken == nil || now >= freshUntil
    }

    // MARK: - Access tokens

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

    private func accessTokenRefreshingIfNeeded(minimumLifetime: Duration?) async throws -> AccessToken {
        let now = dateSource.now
        try await loadIfNeeded()
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
        try await loadIfNeeded()
        guard let record else { throw notConnectedError() }
        let rejected = rejectedToken ?? record.tokens.accessToken
        if let current = record.tokens.accessToken, current != rejected, dateSource.now < freshUntil {
            return current
        }
        let refreshed = try await refreshed(rejecting: rejected, allowingUnexpired: false)
        guard let token = refreshed.tokens.accessToken else { throw notConnectedError() }
        return token
    }

    /// The stored token, when a recent transient failure asked for a pause and the token has not expired.
    private func usableDuringBackoff(_ record: Connection, now: Date) -> AccessToken? {
        guard case .transient(_, let nextAttempt?) = lastFailure, now < nextAttempt,
            let token = record.tokens.accessToken, !isExpired(record.tokens)
        else { return nil }
        return token
    }

    private func isExpired(_ tokens: TokenSet) -> Bool {
        guard tokens.accessToken != nil else { return true }
        return tokens.expiresAt.map { $0 <= dateSource.now } ?? false
    }

    private func notConnectedError() -> SessionError {
        if case .permanent(let reason) = lastFailure {
            return SessionError(.needsSignIn, reason.message, signInReason: reason, accountHint: record?.account)
        }
        return .notConnected
    }

    /// Joins the refresh in flight or starts one. When the provider is unreachable, a stored token that has not
    /// expired is still handed out — the stale one too if `allowingUnexpired`, otherwise only a newer one.
    private func refreshed(rejecting rejected: AccessToken?, allowingUnexpired: Bool) async throws -> Connection {
        let flight = startRefresh(rejecting: rejected)
        do {
            return try await flight.value()
        } catch let error as SessionError where error == .offline {
            if let record, let token = record.tokens.accessToken, allowingUnexpired || token != rejected,
                !isExpired(record.tokens)
            {
                return record
            }
            throw error
        }
    }

    /// Installs a refresh flight, or returns the one in flight. No `await` between the check and the install.
    private func startRefresh(rejecting rejected: AccessToken?) -> SharedFlight<Connection> {
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
                result = .success(try await self.performRefresh(rejecting: rejected))
            } catch {
                result = .failure(error)
            }
            self.finishRefresh(generation: flightGeneration, result: result)
            flight.resolve(result)
        }
        return flight
    }

    private func finishRefresh(generation flightGeneration: UInt64, result: Result<Connection, any Error>) {
        if case .refreshing(_, let current) = activity, current == flightGeneration {
            activity = .idle
        }
        if case .success(let connection) = result {
            lastFailure = nil
            adopt(connection)
        }
        publishStatus()
    }

    // MARK: - The refresh itself

    /// Refreshes under the store's lease. Runs on the actor, but every state change goes through a small
    /// synchronous method, so reentrant callers only ever see whole states.
    private func performRefresh(rejecting rejected: AccessToken?) async throws -> Connection {
        let lease: any RefreshLease
        do {
            lease = try await store.acquireRefreshLease(for: id, timeout: configuration.leaseTimeout)
        } catch let error as CredentialStoreError {
            throw storageFailure(error)
        }
        do {
            let result = try await refreshUnderLease(rejecting: rejected)
            await lease.release()
            return result
        } catch {
            await lease.release()
            throw error
        }
    }

    private func refreshUnderLease(rejecting rejected: AccessToken?) async throws -> Connection {
        // Another process (or session) may have refreshed while we waited for the lease: re-read.
        let current: Connection?
        do {
            current = try await store.read(id)
        } catch let error as CredentialStoreError {
            throw storageFailure(error)
        }
        guard let current else {
            adopt(nil)
            throw notConnectedError()
        }
        let now = dateSource.now
        if let token = current.tokens.accessToken, token != rejected,
            now < Self.freshUntil(current.tokens, configuration: configuration)
        {
            logger.debug("Using the token another refresh stored", metadata: ["store.version": "\(current.version)"])
            return current
        }
        guard let refreshToken = current.tokens.refreshToken else {
            adopt(current)
            let reason = SignInReason.sessionExpired
            throw SessionError(.needsSignIn, reason.message, signInReason: reason, accountHint: current.account)
        }
        let request = RefreshRequest(
            connectionID: id,
            refreshToken: refreshToken,
            account: current.account,
            tokens: current.tokens
        )
        var attempt = 0
        while true {
            attempt += 1
            logger.trace(
                "Refreshing access token",
                metadata: ["oauth.grant_type": "refresh_token", "session.attempt": "\(attempt)"]
            )
            let response: TokenResponse
            do {
                response = try await refresher.refresh(request)
            } catch {
                let failure = Self.classify(error)
                switch failure.kind {
                case .transient:
                    try await handleTransient(failure, attempt: attempt)
                    continue
                case .permanent(let reason):
                    try await endGrant(current, reason: reason, failure: failure)
                case .configuration:
                    lastFailure = .configuration(failure.message)
                    logger.debug("Refresh failed: configuration", metadata: ["oauth.error": "\(failure.message)"])
                    throw SessionError(.misconfigured, failure.message, cause: failure)
                }
            }
            let receivedAt = dateSource.now
            let updated = Connection(
                id: current.id,
                account: current.account,
                tokens: current.tokens.applying(response, receivedAt: receivedAt),
                metadata: current.metadata
            )
            let written = try await persist(updated, over: current)
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

    /// Records a transient failure and sleeps before the next attempt, or throws when attempts are used up.
    private func handleTransient(_ failure: RefreshError, attempt: Int) async throws {
        let retry = configuration.retry
        let wait = retry.delay(afterAttempt: attempt, retryAfter: failure.retryAfter, using: &random)
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
    private func endGrant(_ current: Connection, reason: SignInReason, failure: RefreshError) async throws -> Never {
        logger.info("Refresh rejected; the user must sign in again", metadata: ["session.reason": "\(reason.code)"])
        var ended = current
        ended.tokens = TokenSet(
            accessToken: nil,
            tokenType: current.tokens.tokenType,
            receivedAt: dateSource.now,
            expiresAt: nil
        )
        do {
            adopt(try await store.write(ended, expecting: .version(current.version)))
        } catch {
            // Someone else changed the record (signed in again, signed out): leave their version alone.
            logger.debug("Record changed while ending the grant; leaving it", metadata: ["store.error": "\(error)"])
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
    private func persist(_ updated: Connection, over current: Connection) async throws -> Connection {
        var base = current
        for _ in 0..<3 {
            var candidate = base
            candidate.tokens = updated.tokens
            do {
                return try await store.write(candidate, expecting: .version(base.version))
            } catch let error as CredentialStoreError where error == .versionConflict {
                let newer: Connection?
                do {
                    newer = try await store.read(id)
                } catch let error as CredentialStoreError {
                    throw storageFailure(error)
                }
                guard let newer else {
                    adopt(nil)
                    throw SessionError.notConnected
                }
                guard newer.tokens.refreshToken == current.tokens.refreshToken else {
                    logger.debug("The record's tokens changed during the refresh; keeping the newer record")
                    return newer
                }
                base = newer
            } catch let error as CredentialStoreError {
                // The provider may have rotated the refresh token; without storing it the grant may be lost.
                logger.info("Refreshed tokens could not be stored", metadata: ["store.error": "\(error.message)"])
                throw storageFailure(error)
            }
        }
        throw storageFailure(CredentialStoreError.versionConflict)
    }

    private func storageFailure(_ error: CredentialStoreError) -> SessionError {
        if error == .leaseTimeout {
            let failure = RefreshError.transient(error.message)
            lastFailure = .transient(failure, nextAttempt: nil)
            return SessionError(.offline, error.message, accountHint: record?.account, cause: error)
        }
        lastFailure = error.isConfigurationError ? .configuration(error.message) : .storage(error)
        isLoaded = false
        return Self.sessionError(for: error)
    }

    /// Turns whatever a refresher threw into a classified failure; unknown errors are transient.
    static func classify(_ error: any Error) -> RefreshError {
        if let error = error as? RefreshError { return error }
        if let error = error as? any RefreshErrorConvertible { return error.refreshError }
        if error is CancellationError { return .transient("The refresh was cancelled") }
        return .transient("The refresh failed: \(type(of: error))")
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
        let existing: Connection?
        do {
            existing = try await store.read(id)
        } catch let error as CredentialStoreError {
            // A damaged record is not overwritten silently: the caller signs out (deletes) first.
            throw storageFailure(error)
        }
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
            lastFailure = nil
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
            let current: Connection?
            do {
                current = try await store.read(id)
            } catch let error as CredentialStoreError {
                throw storageFailure(error)
            }
            guard var next = current else { throw SessionError.notConnected }
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
        let existing = try? await store.read(id)
        let toRevoke = existing ?? record
        do {
            try await store.delete(id)
        } catch let error as CredentialStoreError {
            logger.debug("Sign-out could not delete the record", metadata: ["store.error": "\(error.message)"])
            throw storageFailure(error)
        }
        lastFailure = nil
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
