import Foundation
import PostgresNIO
import Tether
import TetherAsyncHTTPClient
import TetherDevProvider
import TetherOAuth
import TetherPostgres

/// One row of the cost table.
struct CostRow {
    var what: String
    var samples: [Double]
    var note: String

    static func table(_ rows: [CostRow]) -> String {
        var lines = [
            "| what | median | p90 | p99 | n |",
            "| --- | --- | --- | --- | --- |",
        ]
        for row in rows {
            let cells = [0.5, 0.9, 0.99].map { Statistics.time(Statistics.percentile(row.samples, $0)) }
            lines.append("| \(row.what) | \(cells.joined(separator: " | ")) | \(row.note) |")
        }
        return lines.joined(separator: "\n")
    }
}

/// `validAccessToken()` with a fresh token, `restore()` and a plain `read()`, on `PostgresStore` beside `VaultStore`,
/// one task, nothing else running.
enum StoreCosts {
    static let id: ConnectionID = "cost"

    static func run(
        database: PostgresClient.Configuration,
        provider: RunningDevProvider,
        discovered: ProviderConfiguration,
        scopes: [String],
        iterations: Int
    ) async throws -> [CostRow] {
        let transport = AsyncHTTPClientTransport()
        let client = try OAuthClient(
            configuration: discovered,
            transport: transport,
            logger: SchedulerBenchmarks.silent
        )
        let issued = try await provider.admin.issueTokens(username: "ada", scopes: scopes)
        let now = Date()
        // A grant straight from the provider, fresh for the whole measurement (no refresh is sent).
        let connection = Connection(
            id: id,
            account: Account(providerID: "dev", subject: "ada"),
            tokens: TokenSet(
                accessToken: AccessToken(issued.accessToken),
                refreshToken: issued.refreshToken.map { RefreshToken($0) },
                receivedAt: now,
                expiresAt: now.addingTimeInterval(TimeInterval(issued.expiresIn))
            )
        )
        let key = VaultKey.generate()
        var rows: [CostRow] = []

        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tether-scheduler-bench-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let vault = try VaultStore(directory: directory, key: key, environment: [:], logger: SchedulerBenchmarks.silent)
        _ = try await vault.write(connection, expecting: .absent)
        rows += try await measure(store: vault, name: "`VaultStore`", refresher: client, iterations: iterations)

        rows += try await PostgresProbe.withClient(database, maximumConnections: 4) { pool in
            let store = try PostgresStore(
                client: pool,
                configuration: .init(tenant: "bench-costs-\(UUID().uuidString)", key: key),
                logger: SchedulerBenchmarks.silent
            )
            _ = try await store.write(connection, expecting: .absent)
            return try await measure(store: store, name: "`PostgresStore`", refresher: client, iterations: iterations)
        }
        try await transport.shutdown()
        // Side by side, store by store.
        return rows.enumerated().sorted { ($0.offset % 3, $0.offset) < ($1.offset % 3, $1.offset) }.map(\.element)
    }

    static func measure(
        store: any CredentialStore,
        name: String,
        refresher: any TokenRefresher,
        iterations: Int
    ) async throws -> [CostRow] {
        let clock = ContinuousClock()
        func session() -> Session {
            Session(id: id, store: store, refresher: refresher, logger: SchedulerBenchmarks.silent)
        }

        // validAccessToken() on a restored session: 1,000 batches of 1,000 calls, per-call time of each batch.
        let restored = session()
        let status = await restored.restore()
        guard status.kind == .connected else { throw CostFailure("restore on \(name) gave \(status)") }
        for _ in 0..<10_000 { _ = try await restored.validAccessToken() }
        var fresh: [Double] = []
        for _ in 0..<1_000 {
            let start = clock.now
            for _ in 0..<1_000 { _ = try await restored.validAccessToken() }
            fresh.append(Statistics.seconds(clock.now - start) / 1_000)
        }

        // restore(): a new session on the open store (a request or a job picking up a connection), then restore.
        var restores: [Double] = []
        for _ in 0..<iterations {
            let start = clock.now
            let status = await session().restore()
            restores.append(Statistics.seconds(clock.now - start))
            guard status.kind == .connected else { throw CostFailure("restore on \(name) gave \(status)") }
        }

        // read(): the store alone (Postgres: one SELECT and opening the sealed record).
        var reads: [Double] = []
        for _ in 0..<iterations {
            let start = clock.now
            guard try await store.read(id) != nil else { throw CostFailure("\(name) lost the record") }
            reads.append(Statistics.seconds(clock.now - start))
        }
        return [
            CostRow(
                what: "`validAccessToken()`, fresh token, on \(name)",
                samples: fresh,
                note: "1,000 batches of 1,000 calls"
            ),
            CostRow(
                what: "`restore()` on \(name): new `Session` on the open store + `restore()`",
                samples: restores,
                note: "\(Statistics.count(iterations))"
            ),
            CostRow(what: "`read()` on \(name)", samples: reads, note: "\(Statistics.count(iterations))"),
        ]
    }

    struct CostFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
