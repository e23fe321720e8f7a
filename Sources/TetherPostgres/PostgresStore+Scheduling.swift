public import Foundation
import Logging
package import PostgresNIO
public import Tether

/// The columns beside a sealed record that let ``RefreshScheduler`` find due connections without opening records.
struct RefreshSchedule {
    /// When the access token was received; `nil` when the record cannot be refreshed.
    let receivedAt: Date?
    /// When the access token expires; `nil` when the record cannot be refreshed or its expiry is unknown.
    let expiresAt: Date?
    /// Whether the record holds a refresh token.
    let canRefresh: Bool
    /// The mark of a record that holds no token at all: its grant ended and the user must sign in again.
    let endedReason: String?

    init(_ tokens: TokenSet) {
        canRefresh = tokens.refreshToken != nil
        receivedAt = canRefresh ? tokens.receivedAt : nil
        expiresAt = canRefresh ? tokens.expiresAt : nil
        endedReason = tokens.refreshToken == nil && tokens.accessToken == nil ? Self.signInRequired : nil
    }

    /// The reason recorded when a session, not the scheduler, ended the grant.
    static let signInRequired = "sign_in_required"
}

extension PostgresStore {
    /// A connection whose grant ended: the provider refused its refresh token, and only the user signing in again
    /// brings it back. The record is kept (account and metadata, as a hint for signing in again).
    public struct ConnectionNeedingSignIn: Sendable, Hashable {
        /// The connection.
        public var id: ConnectionID
        /// Why, as a ``Tether/SignInReason`` code (`grant_revoked`, `refresh_answer_lost`, …), or
        /// `sign_in_required` when a session ended the grant without saying why to the store.
        public var reason: String
        /// When the store noted it, by the database's clock.
        public var since: Date

        /// Creates an entry.
        /// - Parameters:
        ///   - id: The connection.
        ///   - reason: The reason code.
        ///   - since: When the grant was marked as ended.
        public init(id: ConnectionID, reason: String, since: Date) {
            self.id = id
            self.reason = reason
            self.since = since
        }
    }

    /// The connections of this store's tenant whose grant ended, oldest first, so that the product can ask their
    /// users to sign in again. A new sign-in (a record with a refresh token) clears the mark.
    /// - Returns: The connections and their reasons.
    /// - Throws: ``Tether/CredentialStoreError/unavailable`` when the database cannot be reached.
    public func connectionsNeedingSignIn() async throws -> [ConnectionNeedingSignIn] {
        try await prepare()
        let tenant = self.tenant
        let client = self.client
        let logger = self.logger
        return try await perform("list the connections needing sign-in") {
            let rows = try await client.query(
                """
                SELECT connection_id, sign_in_reason, coalesce(sign_in_marked_at, updated_at)
                FROM tether_credentials WHERE tenant = \(tenant) AND sign_in_reason IS NOT NULL
                ORDER BY 3, 1
                """,
                logger: logger
            )
            var found: [ConnectionNeedingSignIn] = []
            for try await (id, reason, since) in rows.decode((String, String, Date).self) {
                found.append(ConnectionNeedingSignIn(id: ConnectionID(id), reason: reason, since: since))
            }
            return found
        }
    }

    /// Claims up to `limit` connections whose access token is due for a refresh at `now`, soonest expiry first,
    /// for `claim`: rows another worker is claiming at the same moment are skipped (`FOR UPDATE SKIP LOCKED`),
    /// and a claimed row is not handed out again until its claim lapses or is released.
    ///
    /// A token is due once `now` passes its expiry minus the leeway, the leeway being at most `leewayFraction`
    /// of the token's lifetime, as a session judges it.
    package func claimDueConnections(
        at now: Date,
        leeway: Duration,
        leewayFraction: Double,
        limit: Int,
        claim: Duration
    ) async throws -> [(id: ConnectionID, expiresAt: Date)] {
        try await prepare()
        let tenant = self.tenant
        let client = self.client
        let logger = self.logger
        let leewaySeconds = Self.seconds(leeway)
        let claimSeconds = Self.seconds(claim)
        let limit = Int64(max(1, limit))
        let statement = Self.claimStatement(
            tenant: tenant,
            now: now,
            leewaySeconds: leewaySeconds,
            leewayFraction: leewayFraction,
            limit: limit,
            claimSeconds: claimSeconds
        )
        return try await perform("claim due connections") {
            let rows = try await client.query(statement, logger: logger)
            var claimed: [(id: ConnectionID, expiresAt: Date)] = []
            for try await (id, expiresAt) in rows.decode((String, Date).self) {
                claimed.append((ConnectionID(id), expiresAt))
            }
            return claimed.sorted { $0.expiresAt < $1.expiresAt }
        }
    }

    /// The claim's statement. The due rows are chosen and locked once, in a `MATERIALIZED` common table expression,
    /// and the claim then updates them by primary key. As a subquery joined to the table, the choice depended on
    /// the planner's estimates: with statistics taken before a tenant's rows were written, PostgreSQL put it on
    /// the inner side of a nested loop over the tenant's rows and ran it again for each of them, so that one claim
    /// took close to a minute on 20,000 rows and claimed more rows than its limit (docs/benchmarks.md, "PostgreSQL
    /// store and refresh scheduler"; `RefreshSchedulerTests.theClaimChoosesItsRowsOnceWhateverTheStatistics`).
    package static func claimStatement(
        tenant: String,
        now: Date,
        leewaySeconds: Double,
        leewayFraction: Double,
        limit: Int64,
        claimSeconds: Double
    ) -> PostgresQuery {
        """
        WITH due AS MATERIALIZED (
            SELECT connection_id FROM tether_credentials
            WHERE tenant = \(tenant) AND sign_in_reason IS NULL
                AND access_expires_at <= \(now) + \(leewaySeconds) * interval '1 second'
                AND access_expires_at - least(\(leewaySeconds) * interval '1 second',
                    (access_expires_at - access_received_at) * \(leewayFraction)) <= \(now)
                AND (claimed_until IS NULL OR claimed_until < now())
            ORDER BY access_expires_at
            LIMIT \(limit)
            FOR UPDATE SKIP LOCKED
        )
        UPDATE tether_credentials AS c
        SET claimed_until = now() + \(claimSeconds) * interval '1 second'
        WHERE c.tenant = \(tenant) AND c.connection_id = ANY (ARRAY(SELECT connection_id FROM due))
        RETURNING c.connection_id, c.access_expires_at
        """
    }

    /// Gives claims back, so that the next round (of any worker) may take the connections.
    package func releaseClaims(_ ids: [ConnectionID]) async throws {
        guard !ids.isEmpty else { return }
        let tenant = self.tenant
        let client = self.client
        let logger = self.logger
        let names = ids.map(\.rawValue)
        try await perform("release claims") {
            _ = try await client.query(
                """
                UPDATE tether_credentials SET claimed_until = NULL
                WHERE tenant = \(tenant) AND connection_id = ANY(\(names))
                """,
                logger: logger
            )
        }
    }

    /// Marks a connection's grant as ended with `reason`: it is listed by ``connectionsNeedingSignIn()`` and not
    /// scheduled again until a new sign-in writes a refresh token. Only the record at `version` is marked: a
    /// record written since (a new sign-in) is left alone.
    package func markNeedsSignIn(_ id: ConnectionID, version: UInt64, reason: String) async throws {
        let version = Int64(clamping: version)
        let tenant = self.tenant
        let client = self.client
        let logger = self.logger
        try await perform("mark \(id) as needing sign-in") {
            _ = try await client.query(
                """
                UPDATE tether_credentials
                SET sign_in_reason = \(reason), sign_in_marked_at = now(), access_expires_at = NULL,
                    claimed_until = NULL
                WHERE tenant = \(tenant) AND connection_id = \(id.rawValue) AND version = \(version)
                """,
                logger: logger
            )
        }
    }
}
