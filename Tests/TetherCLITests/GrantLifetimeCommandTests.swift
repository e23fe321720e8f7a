import Foundation
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// `tether status` shows when a grant ends and why, and `tether keep-alive` refreshes only grants that would end of
/// disuse, against a development provider.
@Suite(.timeLimit(.minutes(3)))
struct GrantLifetimeCommandTests {
    static func gitHubCLI(refreshTokenLifetime: Duration? = nil) async throws -> CLI {
        var configuration = DevProvider.Configuration()
        configuration.dialect = .github
        configuration.refreshTokenIssuance = .always
        configuration.refreshTokenLifetime = refreshTokenLifetime
        let cli = try await CLI.start(configuration)
        let login = try await cli.loginWithDeviceCode([
            "login", "github", "--issuer", cli.issuer, "--client-id", "tether-dev-client", "--device",
        ])
        #expect(login.status == 0, "\(login.stderr)")
        return cli
    }

    static func date(_ value: Any?) throws -> Date {
        let text = try #require(value as? String)
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return try #require(ISO8601DateFormatter().date(from: text) ?? fractional.date(from: text))
    }

    @Test func aGrantWithRefreshTokenExpiresInShowsItsEnd() async throws {
        let cli = try await Self.gitHubCLI()
        defer { Task { await cli.stop() } }
        let row = try #require(try await cli.status().first)
        #expect(row["grantEnd"] as? String == "absolute")
        #expect(row["grantNote"] as? String == "GitHub user tokens last 6 months")
        let ends = try Self.date(row["grantEndsAt"])
        let sixMonths = Date().addingTimeInterval(15_897_600)
        #expect(abs(ends.timeIntervalSince(sixMonths)) < 300, "\(ends)")
        let lastUsed = try Self.date(row["lastUsed"])
        #expect(abs(lastUsed.timeIntervalSinceNow) < 300)
        #expect(row["expiresSoon"] as? Bool == false)

        let table = try await cli.run(["status"])
        #expect(table.stdout.contains("GRANT ENDS"), "\(table.stdout)")
        #expect(!table.stdout.contains("expires soon"), "\(table.stdout)")
    }

    /// Every key of a `status --json` row is named in `tether status --help`, and the grant's keys in
    /// docs/keep-alive.md.
    @Test func everyStatusKeyIsDocumented() async throws {
        let cli = try await Self.gitHubCLI()
        defer { Task { await cli.stop() } }
        let row = try #require(try await cli.status().first)
        let help = try await cli.run(["status", "--help"])
        #expect(help.status == 0, "\(help.stderr)")
        let words = Set(help.stdout.split(whereSeparator: { !$0.isLetter }).map(String.init))
        for key in row.keys { #expect(words.contains(key), "\(key) is not in tether status --help") }
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/keep-alive.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        for key in ["grantEndsAt", "grantEnd", "grantNote", "lastUsed", "expiresSoon"] {
            #expect(row.keys.contains(key))
            #expect(text.contains("| `\(key)` |"), "\(key) is not in docs/keep-alive.md")
        }
    }

    @Test func aConnectionPastItsThresholdExpiresSoon() async throws {
        let cli = try await Self.gitHubCLI(refreshTokenLifetime: .seconds(2 * 86_400))
        defer { Task { await cli.stop() } }
        let row = try #require(try await cli.status().first)
        #expect(row["state"] as? String == "connected")
        #expect(row["expiresSoon"] as? Bool == true)

        let narrow = try await cli.run(["status", "--json", "--expiring-within", "1d"])
        #expect(narrow.status == 0, "\(narrow.stderr)")
        #expect(narrow.stdout.contains(#""expiresSoon" : false"#), "\(narrow.stdout)")

        let table = try await cli.run(["status"])
        #expect(table.stdout.contains("github: expires soon, ends "), "\(table.stdout)")
        #expect(table.stdout.contains("sign in again with `tether login github`"), "\(table.stdout)")

        let bad = try await cli.run(["status", "--expiring-within", "soon"])
        #expect(bad.status == 2, "\(bad.stderr)")
    }

    @Test func keepAliveNeverTouchesAnAbsoluteEnd() async throws {
        let cli = try await Self.gitHubCLI(refreshTokenLifetime: .seconds(2 * 86_400))
        defer { Task { await cli.stop() } }
        let run = try await cli.run(["keep-alive", "--margin", "400d"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("github: not renewable, ends "), "\(run.stdout)")
        #expect(run.stdout.contains("never extends an absolute lifetime"), "\(run.stdout)")
        #expect(await cli.provider.admin.counters()[.refreshes] == 0)
    }

    @Test func keepAliveRefreshesAnIdleGrantWithinItsMarginOnly() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let login = try await cli.loginWithDeviceCode([
            "login", "dev", "--issuer", cli.issuer, "--device", "--name", "dev", "--grant-inactivity", "3d",
        ])
        #expect(login.status == 0, "\(login.stderr)")
        let row = try #require(try await cli.status().first)
        #expect(row["grantEnd"] as? String == "inactivity")
        #expect(row["grantNote"] as? String == "unused for 0 days: dev ends it after 3")
        #expect(row["expiresSoon"] as? Bool == true)

        let notDue = try await cli.run(["keep-alive", "--margin", "1d"])
        #expect(notDue.status == 0, "\(notDue.stderr)")
        #expect(notDue.stdout.contains("dev: not due, unused for 0 days: dev ends it after 3"), "\(notDue.stdout)")
        #expect(await cli.provider.admin.counters()[.refreshes] == 0)

        let due = try await cli.run(["keep-alive", "dev", "--margin", "5d"])
        #expect(due.status == 0, "\(due.stderr)")
        #expect(due.stdout.contains("dev: refreshed, unused for 0 days: dev ends it after 3"), "\(due.stdout)")
        #expect(await cli.provider.admin.counters()[.refreshes] == 1)
        let after = try #require(try await cli.status().first)
        // Whole seconds: the refresh may fall in the sign-in's second; the provider's count above says it happened.
        #expect(try Self.date(after["lastUsed"]) >= Self.date(row["lastUsed"]))
        #expect(after["grantNote"] as? String == "unused for 0 days: dev ends it after 3")

        let unknown = try await cli.run(["keep-alive", "nobody"])
        #expect(unknown.status == 3, "\(unknown.stderr)")
        let bad = try await cli.run(["keep-alive", "--margin", "-1d"])
        #expect(bad.status == 2, "\(bad.stderr)")
    }

    @Test func aBadGrantDurationIsAUsageErrorBeforeSignIn() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let login = try await cli.run([
            "login", "dev", "--issuer", cli.issuer, "--device", "--grant-inactivity", "ninety days",
        ])
        #expect(login.status == 2, "\(login.stderr)")
        #expect(login.stderr.contains("--grant-inactivity"), "\(login.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("connections.json").path))
    }
}
