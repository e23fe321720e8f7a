import Foundation
import Logging
import PostgresNIO
import Testing
import Tether
import TetherPostgres
import TetherTesting

/// The PostgreSQL server the tests use: `TETHER_POSTGRES_URL`, set by `Scripts/start-postgres.sh`.
enum PostgresTestDatabase {
    static let environment = ProcessInfo.processInfo.environment

    static var url: String? { environment["TETHER_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 } }

    /// Whether the suite runs: a server is given, or `TETHER_REQUIRE_POSTGRES=1` makes its absence a failure.
    static var isEnabled: Bool { url != nil || environment["TETHER_REQUIRE_POSTGRES"] == "1" }

    static let skipMessage: Comment =
        "TETHER_POSTGRES_URL is not set: run `Scripts/start-postgres.sh swift test --filter PostgresStoreTests`"

    static func requireURL() throws -> String {
        try #require(url, "TETHER_REQUIRE_POSTGRES=1 but TETHER_POSTGRES_URL is not set")
    }

    /// The pool's logger: connection failures are expected while the restart test has the server stopped.
    static let quietLogger: Logger = {
        var logger = Logger(label: "tether.postgres.tests")
        logger.logLevel = .critical
        return logger
    }()

    /// Runs `body` with a running pool (one "worker") on the test server, or on `url`.
    @discardableResult
    static func withClient<T>(url: String? = nil, _ body: (PostgresClient) async throws -> T) async throws -> T {
        let client = PostgresClient(
            configuration: try PostgresStore.clientConfiguration(url: url ?? requireURL()),
            backgroundLogger: quietLogger
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }

    /// Runs `body` with a store of `tenant` on its own pool.
    @discardableResult
    static func withStore<T>(
        tenant: String,
        key: VaultKey,
        previousKeys: [VaultKey] = [],
        leaseDuration: Duration = .seconds(30),
        operationTimeout: Duration = .seconds(10),
        _ body: (PostgresStore, PostgresClient) async throws -> T
    ) async throws -> T {
        try await withClient { client in
            let store = try PostgresStore(
                client: client,
                configuration: .init(
                    tenant: tenant,
                    key: key,
                    previousKeys: previousKeys,
                    leaseDuration: leaseDuration,
                    operationTimeout: operationTimeout,
                    leasePollInterval: .milliseconds(50)
                )
            )
            return try await body(store, client)
        }
    }

    /// A tenant no other test uses, so that every test starts from an empty store.
    static func uniqueTenant(_ name: String = #function) -> String {
        "test-\(name.prefix(40))-\(UUID().uuidString)"
    }

    /// A record whose tokens are the given canaries.
    static func connection(_ id: ConnectionID, canary: String) -> Connection {
        var connection = StoreContract.sampleConnection(id)
        connection.tokens = TokenSet(
            accessToken: AccessToken("access-\(canary)"),
            refreshToken: RefreshToken("refresh-\(canary)"),
            idToken: IDToken("id-\(canary)"),
            tokenType: "Bearer",
            scopes: ["openid"],
            receivedAt: Date(timeIntervalSince1970: 1_700_000_000),
            expiresAt: Date(timeIntervalSince1970: 1_700_003_600)
        )
        return connection
    }
}
