package import Foundation
import Logging

extension Session {
    /// The connection's status now, derived from the record, the clock and the last outcome.
    public var status: ConnectionStatus {
        var isRestoring = false
        var isRefreshing = false
        switch bookkeeping.activity {
        case .idle: break
        case .restoring: isRestoring = true
        case .refreshing: isRefreshing = true
        }
        return Self.deriveStatus(
            record: record,
            isLoaded: isLoaded,
            isRestoring: isRestoring,
            isRefreshing: isRefreshing,
            lastFailure: bookkeeping.lastFailure,
            now: dateSource.now
        )
    }

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

    func removeSubscriber(_ subscriberID: UInt64) {
        subscribers[subscriberID] = nil
    }

    /// The status of a session in the given state: a pure function of the record, what the session is doing,
    /// the last failure and the wall time.
    /// - Parameters:
    ///   - record: The record as last read or written.
    ///   - isLoaded: Whether `record` reflects the store.
    ///   - isRestoring: Whether ``restore()`` is reading the store.
    ///   - isRefreshing: Whether a refresh is in flight.
    ///   - lastFailure: The last failure the status reflects.
    ///   - now: The wall time, for the access token's expiry.
    /// - Returns: The status.
    package static func deriveStatus(
        record: Connection?,
        isLoaded: Bool,
        isRestoring: Bool,
        isRefreshing: Bool,
        lastFailure: Failure?,
        now: Date
    ) -> ConnectionStatus {
        switch lastFailure {
        case .configuration(let problem): return .misconfigured(problem: problem)
        case .storage(let error), .unsavedTokens(let error): return .storageUnavailable(error)
        default: break
        }
        if isRestoring { return .restoring }
        guard let record else {
            if case .permanent(let reason) = lastFailure { return .needsSignIn(reason: reason, accountHint: nil) }
            return isLoaded ? .notConnected : .restoring
        }
        let tokens = record.tokens
        if case .permanent(let reason) = lastFailure {
            return .needsSignIn(reason: reason, accountHint: record.account)
        }
        let accessTokenAlive = tokens.accessToken != nil && (tokens.expiresAt.map { $0 > now } ?? true)
        guard tokens.hasRefreshToken || accessTokenAlive else {
            let reason: SignInReason = tokens.accessToken == nil ? .grantRevoked : .sessionExpired
            return .needsSignIn(reason: reason, accountHint: record.account)
        }
        if case .transient(let error, let nextAttempt) = lastFailure {
            return .offline(account: record.account, nextAttempt: nextAttempt, lastError: error)
        }
        if isRefreshing { return .refreshing(account: record.account) }
        return .connected(account: record.account, until: tokens.expiresAt)
    }

    /// Sends the status to subscribers if it changed.
    func publishStatus() {
        let current = status
        guard current != publishedStatus else { return }
        publishedStatus = current
        logger.debug("Connection status changed", metadata: ["session.status": "\(current.kind.rawValue)"])
        for continuation in subscribers.values { continuation.yield(current) }
    }
}
