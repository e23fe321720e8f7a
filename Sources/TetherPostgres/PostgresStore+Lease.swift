import Foundation
import Logging
import PostgresNIO
public import Tether

extension PostgresStore {
    public func acquireRefreshLease(for id: ConnectionID, timeout: Duration) async throws -> any RefreshLease {
        try await prepare()
        let holder = UUID().uuidString
        let taken = try await clock.poll(timeout: timeout, longestPause: configuration.leasePollInterval) {
            try await tryTake(id: id, holder: holder)
        }
        guard taken else {
            throw CredentialStoreError.leaseTimeout.with(
                message: "Another worker held the refresh lease of \(id) for longer than \(timeout)"
            )
        }
        logger.debug("Took refresh lease", metadata: ["connection": "\(id)"])
        return PostgresRefreshLease(store: self, id: id, holder: holder)
    }

    /// Takes the lease when no one holds it or its holder's expiry has passed, by the database's clock, so that
    /// the machines' clocks need not agree. One statement: concurrent takers are ordered by the row lock.
    private func tryTake(id: ConnectionID, holder: String) async throws -> Bool {
        let seconds = Self.seconds(configuration.leaseDuration)
        return try await returnsARow(
            "take the refresh lease of \(id)",
            """
            INSERT INTO tether_refresh_leases (tenant, connection_id, holder, expires_at)
            VALUES (\(tenant), \(id.rawValue), \(holder), now() + \(seconds) * interval '1 second')
            ON CONFLICT (tenant, connection_id) DO UPDATE
                SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
                WHERE tether_refresh_leases.expires_at < now()
            RETURNING holder
            """
        )
    }

    /// Takes over the lease that `holder` holds, for another process of the same program (a refresh worker that
    /// outlives the process that took it): renews it now and keeps renewing it until released.
    /// - Returns: The lease, or `nil` when `holder` no longer holds it.
    package func adoptRefreshLease(for id: ConnectionID, holder: String) async throws -> (any RefreshLease)? {
        try await prepare()
        guard try await renew(id: id, holder: holder) else { return nil }
        logger.debug("Adopted refresh lease", metadata: ["connection": "\(id)"])
        return PostgresRefreshLease(store: self, id: id, holder: holder)
    }

    /// Pushes the lease's expiry forward; `false` when the lease is no longer this holder's.
    func renew(id: ConnectionID, holder: String) async throws -> Bool {
        let seconds = Self.seconds(configuration.leaseDuration)
        return try await returnsARow(
            "renew the refresh lease of \(id)",
            """
            UPDATE tether_refresh_leases SET expires_at = now() + \(seconds) * interval '1 second'
            WHERE tenant = \(tenant) AND connection_id = \(id.rawValue) AND holder = \(holder)
            RETURNING holder
            """
        )
    }

    /// Runs a lease statement that ends in `RETURNING holder`: `true` when it returned a row, that is when the
    /// statement left the lease with the holder it named.
    private func returnsARow(_ operation: String, _ query: PostgresQuery) async throws -> Bool {
        let client = self.client
        let logger = self.logger
        return try await perform(operation) {
            let rows = try await client.query(query, logger: logger)
            for try await _ in rows { return true }
            return false
        }
    }

    /// Gives the lease back if this holder still has it.
    func giveBack(id: ConnectionID, holder: String) async throws {
        let tenant = self.tenant
        let client = self.client
        let logger = self.logger
        try await perform("release the refresh lease of \(id)") {
            _ = try await client.query(
                """
                DELETE FROM tether_refresh_leases
                WHERE tenant = \(tenant) AND connection_id = \(id.rawValue) AND holder = \(holder)
                """,
                logger: logger
            )
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// A lease row held by one ``PostgresStore`` call, renewed in the background until released.
package final class PostgresRefreshLease: RefreshLease {
    private let store: PostgresStore
    private let id: ConnectionID
    /// The holder's identifier, which ``PostgresStore/adoptRefreshLease(for:holder:)`` takes.
    package let holder: String
    private let renewal: LockedState<Task<Void, Never>?>

    init(store: PostgresStore, id: ConnectionID, holder: String) {
        self.store = store
        self.id = id
        self.holder = holder
        self.renewal = LockedState(nil)
        let interval = store.configuration.leaseDuration / 3
        let task = Task { [store, id, holder] in
            await Self.keepRenewing(store: store, id: id, holder: holder, every: interval)
        }
        renewal.withLock { $0 = task }
    }

    private static func keepRenewing(
        store: PostgresStore,
        id: ConnectionID,
        holder: String,
        every interval: Duration
    )
        async
    {
        while !Task.isCancelled {
            do {
                try await store.clock.sleep(for: interval)
            } catch {
                return
            }
            do {
                if try await store.renew(id: id, holder: holder) { continue }
                store.logger.warning(
                    "Lost the refresh lease: it lapsed before it could be renewed",
                    metadata: ["connection": "\(id)"]
                )
                return
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                // The database may be back before the lease lapses; keep trying.
                store.logger.warning(
                    "Could not renew the refresh lease",
                    metadata: ["connection": "\(id)", "error": "\(error)"]
                )
            }
        }
    }

    package func release() async {
        guard
            let task = renewal.withLock({ task in
                defer { task = nil }
                return task
            })
        else { return }
        task.cancel()
        do {
            try await store.giveBack(id: id, holder: holder)
            store.logger.debug("Released refresh lease", metadata: ["connection": "\(id)"])
        } catch {
            // The row lapses on its own after the lease duration.
            store.logger.warning(
                "Could not release the refresh lease; it lapses on its own",
                metadata: ["connection": "\(id)", "error": "\(error)"]
            )
        }
    }

    deinit {
        // A lease dropped without release stops being renewed and lapses.
        renewal.withLock { $0?.cancel() }
    }
}

extension Clock where Duration == Swift.Duration {
    /// Calls `attempt` until it returns `true` or `timeout` passes on this clock, pausing 10 ms, doubling up to
    /// `longestPause`, between calls.
    /// - Returns: Whether an attempt succeeded in time.
    func poll(timeout: Duration, longestPause: Duration, _ attempt: () async throws -> Bool) async throws -> Bool {
        let deadline = now.advanced(by: timeout)
        var pause = Duration.milliseconds(10)
        while true {
            try Task.checkCancellation()
            if try await attempt() { return true }
            let remaining = now.duration(to: deadline)
            if remaining <= .zero { return false }
            try await sleep(for: min(pause, remaining))
            pause = min(pause * 2, longestPause)
        }
    }
}
