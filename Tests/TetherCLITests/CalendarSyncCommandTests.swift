import Foundation
import SignInTestSupport
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// `tether calendar sync` as a timer runs it, against the development provider on 127.0.0.1.
@Suite(.timeLimit(.minutes(3)))
struct CalendarSyncCommandTests {
    @Test func aTokenEndingWithinTheLeadIsRefreshedOnceAndTheCalendarsAreCached() async throws {
        // Ten-minute tokens: within the default 30-minute lead from the start.
        let cli = try await CLI.start(DevProvider.Configuration(accessTokenLifetime: .seconds(600)))
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginCalendar("ada-google", api: "google").status == 0)
        #expect(try await cli.loginCalendar("grace-outlook", api: "microsoft", as: "grace").status == 0)
        let before = await cli.provider.admin.counters()[.refreshes]

        let sync = try await cli.json(["calendar", "sync", "--json"])
        #expect(sync.result.status == 0, "\(sync.result.stderr)")
        let document = try #require(sync.object as? [String: Any])
        #expect(Set(document.keys) == ["connections", "nextRun"])
        let connections = try #require(document["connections"] as? [[String: Any]])
        #expect(connections.map { $0["name"] as? String } == ["ada-google", "grace-outlook"])
        #expect(connections.allSatisfy { $0["token"] as? String == "refreshed" }, "\(connections)")
        #expect(connections.allSatisfy { $0["calendar"] as? String == "connected" }, "\(connections)")
        #expect(connections.allSatisfy { ($0["events"] as? Int ?? 0) > 0 }, "\(connections)")
        #expect(await cli.provider.admin.counters()[.refreshes] - before == 2)
        // Ten-minute tokens already inside the lead: the next run is the shortest wait.
        let next = try #require((document["nextRun"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
        #expect(abs(next.timeIntervalSinceNow - 15 * 60) < 120, "\(next)")

        // The cache now serves `calendar sources` as synced.
        let sources = try await cli.json(["calendar", "sources", "--json"])
        let rows = try #require(sources.object as? [[String: Any]])
        #expect(rows.allSatisfy { $0["stale"] as? Bool == false && $0["lastSync"] as? String != nil })

        // With an hour-long lead window closed (lead 0), nothing is refreshed; the table names each source.
        let quiet = try await cli.run(["calendar", "sync", "--lead", "0"])
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(quiet.stdout.contains("ada-google") && quiet.stdout.contains("fresh"), "\(quiet.stdout)")
        #expect(quiet.stdout.contains("Next run due in"), "\(quiet.stdout)")
        #expect(await cli.provider.admin.counters()[.refreshes] - before == 2)
        try await cli.expectNoTokens(in: [sync.result, sources.result, quiet])
    }

    @Test func aRevokedSourceNeedsSignInAndTheOtherIsStillSynced() async throws {
        let cli = try await CLI.start(DevProvider.Configuration(accessTokenLifetime: .seconds(600)))
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginCalendar("ada-google", api: "google").status == 0)
        #expect(try await cli.loginCalendar("grace-outlook", api: "microsoft", as: "grace").status == 0)
        await cli.provider.admin.revokeGrants(ofUser: "ada")

        let sync = try await cli.json(["calendar", "sync", "--json"])
        #expect(sync.result.status == 3, "\(sync.result.stderr)")
        let connections = try #require((sync.object as? [String: Any])?["connections"] as? [[String: Any]])
        let ada = try #require(connections.first { $0["name"] as? String == "ada-google" })
        let grace = try #require(connections.first { $0["name"] as? String == "grace-outlook" })
        #expect(ada["token"] as? String == "needs-sign-in", "\(ada)")
        #expect(ada["calendar"] as? String == "needs-sign-in", "\(ada)")
        #expect(grace["token"] as? String == "refreshed", "\(grace)")
        #expect(grace["calendar"] as? String == "connected", "\(grace)")
        #expect(sync.result.stderr.contains("tether login ada-google"), "\(sync.result.stderr)")
        // Nothing was signed out: the record is still listed.
        let status = try await cli.run(["status"])
        #expect(status.stdout.contains("ada-google"), "\(status.stdout)")
        try await cli.expectNoTokens(in: [sync.result, status])
    }

    @Test func outOfRangeOptionsAreUsageErrors() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        for arguments in [["--budget", "0"], ["--days", "0"], ["--lead", "-1"], ["--days", "400"]] {
            let result = try await cli.run(["calendar", "sync"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
        }
    }
}
