import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing
import TetherDevProvider

/// Collects log lines, metadata included, rendered as text.
final class CapturedLogs: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        self.lock.withLock { self.lines.append(line) }
    }

    var all: [String] { self.lock.withLock { self.lines } }
}

struct CapturingLogHandler: LogHandler {
    let logs: CapturedLogs
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = self.metadata.merging(event.metadata ?? [:]) { _, new in new }
        self.logs.append("\(event.level) \(event.message) \(merged)")
    }
}

@Suite(.timeLimit(.minutes(3)))
struct LoggingTests {
    @Test func logsNeverContainTokensCodesOrPasswords() async throws {
        let logs = CapturedLogs()
        let clock = ManualClock()
        var configuration = DevProvider.Configuration(issuer: Fixture.issuer)
        configuration.now = { clock.now }
        let logger = Logger(label: "test") { _ in CapturingLogHandler(logs: logs) }
        let provider = DevProvider(configuration, logger: logger)
        let secrets = try await provider.application().test(.router) { client in
            var secrets: [String] = ["lovelace", Fixture.verifier]
            let result = try await client.authorize()
            let code = try #require(result.query["code"])
            secrets.append(code)
            let tokens = try await client.exchange(code: code).json()
            let refreshToken = try #require(tokens["refresh_token"] as? String)
            secrets += [refreshToken, try #require(tokens["access_token"] as? String)]
            secrets.append(try #require(tokens["id_token"] as? String))
            let refreshed = try await client.refresh(refreshToken).json()
            secrets.append(try #require(refreshed["refresh_token"] as? String))
            _ = try await client.refresh(refreshToken)
            _ = try await client.exchange(code: code)
            _ = try await client.post("/revoke", form: [("token", refreshToken), ("client_id", Fixture.clientID)])
            return secrets
        }
        let lines = logs.all
        #expect(!lines.isEmpty)
        for secret in secrets {
            #expect(!lines.contains { $0.contains(secret) })
        }
    }
}
