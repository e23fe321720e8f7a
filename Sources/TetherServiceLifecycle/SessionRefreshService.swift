public import ServiceLifecycle
public import Tether

/// A `Service` for swift-service-lifecycle's `ServiceGroup` that, on graceful shutdown, waits for the refreshes
/// its sessions have in flight, so that a rotated refresh token reaches the store before the process exits.
///
/// It does nothing until graceful shutdown begins (`SIGTERM`, `SIGINT`, or the group's own trigger); then it
/// calls ``Tether/Session/finishRefreshesInFlight()`` on every session and returns. Cancellation (the group's
/// deadline) stops the wait; the refreshes themselves run on regardless, for as long as the process does.
///
/// A `ServiceGroup` shuts its services down in reverse order, waiting for each: list this service *before* the
/// services that use the sessions (an HTTP server), so that it waits once they have stopped taking requests.
///
/// ```swift
/// let refreshes = SessionRefreshService(sessions: [calendar, mail])
/// let group = ServiceGroup(
///     services: [refreshes, server],
///     gracefulShutdownSignals: [.sigterm, .sigint],
///     logger: logger
/// )
/// try await group.run()
/// ```
public struct SessionRefreshService: Service {
    private let sessions: @Sendable () async -> [Session]

    /// A service for a fixed set of sessions.
    /// - Parameter sessions: The sessions whose refreshes shutdown waits for.
    public init(sessions: [Session]) {
        self.sessions = { sessions }
    }

    /// A service for sessions that come and go (one per user, say): `sessions` is asked once shutdown begins.
    /// - Parameter sessions: Returns the sessions alive at shutdown.
    public init(sessions: @escaping @Sendable () async -> [Session]) {
        self.sessions = sessions
    }

    /// Waits for graceful shutdown, then for the sessions' refreshes in flight.
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func run() async throws {
        try await gracefulShutdown()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for session in await sessions() {
                group.addTask { try await session.finishRefreshesInFlight() }
            }
            try await group.waitForAll()
        }
    }
}
