import Foundation
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// connections.json is bound to the vault key: someone who can write `TETHER_HOME` but does not have the key cannot
/// redirect a connection's endpoints, nor pass a profile off as one from before profiles were bound.
@Suite(.timeLimit(.minutes(3)))
struct ProfileBindingTests {
    @Test func aProfileWhoseTokenEndpointWasChangedIsRefusedAndNoRefreshTokenLeaves() async throws {
        let cli = try await CLI.start(DevProvider.Configuration(accessTokenLifetime: .seconds(2)))
        defer { Task { await cli.stop() } }
        let attacker = try await DevProvider(DevProvider.Configuration()).start()
        defer { Task { await attacker.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        #expect(try await cli.run(["token"]).status == 0, "an honest profile must work")

        try cli.editProfile("dev") { profile in
            var provider = try #require(profile["provider"] as? [String: Any])
            provider["token_endpoint"] = attacker.url("/token").absoluteString
            profile["provider"] = provider
        }
        let settings = try Data(contentsOf: cli.settingsFile)
        let records = try cli.recordFiles()
        // The access token has expired: using the profile would send the refresh token to its token endpoint.
        try await Task.sleep(for: .seconds(2))

        for arguments in [["token"], ["request", cli.provider.url("/userinfo").absoluteString], ["logout"]] {
            let refused = try await cli.run(arguments)
            #expect(refused.status == 5, "\(arguments): \(refused.stderr)")
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr.contains("do not match their MAC"), "\(refused.stderr)")
            #expect(refused.stderr.contains("left untouched"))
            #expect(refused.stderr.contains("tether login"))
        }
        #expect(await attacker.admin.counters().requests(to: .token) == 0, "a refresh token went to another endpoint")
        #expect(try Data(contentsOf: cli.settingsFile) == settings, "connections.json changed")
        #expect(try cli.recordFiles() == records, "the vault record changed")

        // Signing in again with the provider's options replaces the refused settings.
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let token = try await cli.run(["token"])
        #expect(token.status == 0, "\(token.stderr)")
        #expect(await attacker.admin.counters().requests(to: .token) == 0)
    }

    @Test func aProfileWithoutItsMACIsRefused() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode(name: "work").status == 0)
        try cli.editProfile("work") { profile in
            #expect(profile.removeValue(forKey: "mac") != nil, "login wrote no MAC")
        }
        let settings = try Data(contentsOf: cli.settingsFile)

        let token = try await cli.run(["token"])
        #expect(token.status == 5, "\(token.stderr)")
        #expect(token.stderr.contains("are not bound to the vault key"), "\(token.stderr)")
        let relogin = try await cli.run(["login", "work", "--device"])
        #expect(relogin.status == 5, "`tether login NAME` must not reuse settings it cannot trust: \(relogin.stderr)")
        #expect(try Data(contentsOf: cli.settingsFile) == settings, "connections.json changed")
        #expect(try !cli.recordFiles().isEmpty, "the record was deleted")
    }

    @Test func aProfileMovedToAnotherNameOrAnotherVaultIsRefused() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode(name: "work").status == 0)
        #expect(try await cli.loginWithDeviceCode(name: "home").status == 0)
        // Each profile keeps its MAC, but "home" now carries the settings (and MAC) of "work".
        let work = try #require(try cli.profiles().first { $0["name"] as? String == "work" })
        try cli.editProfile("home") { profile in
            profile = work
            profile["name"] = "home"
        }
        #expect(try await cli.run(["token", "work"]).status == 0)
        #expect(try await cli.run(["token", "home"]).status == 5)

        // `tether status` shows the refused profile as one broken row and the others as they are.
        let status = try await cli.statusRows()
        #expect(status["work"]?["state"] as? String == "connected")
        #expect(status["home"]?["state"] as? String == "misconfigured")
        #expect((status["home"]?["lastError"] as? String)?.contains("do not match their MAC") == true)

        // Another vault key: every profile is refused, and using one fails.
        let otherKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let other = cli.with(["TETHER_VAULT_KEY": otherKey])
        #expect(try await other.run(["token", "work"]).status == 5)
        let rows = try await other.statusRows()
        #expect(rows.count == 2)
        #expect(rows.values.allSatisfy { $0["state"] as? String == "misconfigured" }, "\(rows)")
    }
}

extension CLI {
    /// `tether status --json`, which must succeed, as rows by name.
    func statusRows() async throws -> [String: [String: Any]] {
        let result = try await run(["status", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        return Dictionary(rows.compactMap { row in (row["name"] as? String).map { ($0, row) } }) { first, _ in first }
    }
}

extension CLI {
    var settingsFile: URL { home.appendingPathComponent("connections.json") }

    /// The profiles in connections.json, as JSON objects.
    func profiles() throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: settingsFile)) as? [String: Any]
        return try #require(object?["connections"] as? [[String: Any]])
    }

    /// Changes one profile in connections.json as someone with write access to `TETHER_HOME` could.
    func editProfile(_ name: String, _ change: (inout [String: Any]) throws -> Void) throws {
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: settingsFile)) as? [String: Any]
        )
        var profiles = try #require(object["connections"] as? [[String: Any]])
        let index = try #require(profiles.firstIndex { $0["name"] as? String == name })
        try change(&profiles[index])
        object["connections"] = profiles
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]).write(
            to: settingsFile
        )
    }

    /// The vault's record files and their bytes.
    func recordFiles() throws -> [String: Data] {
        let folder = home.appendingPathComponent("records")
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }
}
