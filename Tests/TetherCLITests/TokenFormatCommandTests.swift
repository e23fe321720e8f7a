import Foundation
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// `tether token --format`: the shapes curl, shells, Bazel and Terraform take.
@Suite(.timeLimit(.minutes(3)))
struct TokenFormatCommandTests {
    @Test func tokenFormatsForCurlShellsBazelAndTerraform() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let token = try await cli.run(["token", "dev"]).trimmedOutput
        let expiry = try #require(await cli.provider.admin.expiry(ofAccessToken: token))

        #expect(
            try await cli.run(["token", "dev", "--format", "header"]).trimmedOutput == "Authorization: Bearer \(token)"
        )
        let json = try await cli.run(["token", "dev", "--json"])
        #expect(try await cli.run(["token", "dev", "--format", "json"]).stdout == json.stdout)
        #expect(json.stdout.contains(token))
        #expect(try await cli.run(["token", "dev", "--json", "--format", "header"]).status == 2)

        // env: eval'ed by a shell, the variable holds the token.
        let tether = try CLI.executable().path
        let shell = try await ChildProcess.run(
            [
                "/bin/sh", "-c",
                "eval \"$('\(tether)' token dev --format env --variable API_TOKEN)\"; printf %s \"$API_TOKEN\"",
            ],
            environment: cli.environment
        )
        #expect(shell.stdout == token, "\(shell.stderr)")
        #expect(try await cli.run(["token", "dev", "--format", "env", "--variable", "1-bad"]).status == 2)

        // Bazel: the answer alone, and the `get` form with the request on standard input.
        let bazel = try await cli.run(["token", "dev", "--format", "bazel"])
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(bazel.stdout.utf8)) as? [String: Any])
        #expect((answer["headers"] as? [String: [String]]) == ["Authorization": ["Bearer \(token)"]])
        let expires = try #require((answer["expires"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
        #expect(abs(expires.timeIntervalSince(expiry)) < 2)
        let bazelGet = try await cli.run(
            ["token", "dev", "--format", "bazel", "--host", "cache.example.com", "get"],
            input: #"{"uri":"https://cache.example.com/cas/abc"}"#
        )
        #expect(bazelGet.stdout == bazel.stdout, "\(bazelGet.stderr)")
        let bazelOther = try await cli.run(
            ["token", "dev", "--format", "bazel", "--host", "cache.example.com", "get"],
            input: #"{"uri":"https://elsewhere.example.com/x"}"#
        )
        #expect(bazelOther.trimmedOutput == "{}")

        // Terraform: `get HOST` answers only for the hosts named.
        let terraform = ["token", "dev", "--format", "terraform", "--host", "app.example.com"]
        #expect(try await cli.run(terraform + ["get", "app.example.com"]).trimmedOutput == "{\"token\":\"\(token)\"}")
        #expect(try await cli.run(terraform + ["get", "registry.example.com"]).trimmedOutput == "{}")
        #expect(
            try await cli.run(["token", "dev", "--format", "terraform", "get", "app.example.com"]).trimmedOutput == "{}"
        )
        let store = try await cli.run(terraform + ["store", "app.example.com"], input: #"{"token":"x"}"#)
        #expect(store.status == 0 && store.stdout.isEmpty)
        #expect(try await cli.run(terraform + ["forget", "app.example.com"]).status == 0)
        #expect(try await cli.run(["token", "dev", "get"]).status == 2)

        // Without a name (the only connection), the operation comes first, as a tool runs the helper.
        let unnamedBazel = try await cli.run(
            ["token", "--format", "bazel", "--host", "cache.example.com", "get"],
            input: #"{"uri":"https://cache.example.com/cas/abc"}"#
        )
        #expect(unnamedBazel.stdout == bazel.stdout, "\(unnamedBazel.stderr)")
        let unnamedTerraform = try await cli.run(
            ["token", "--format", "terraform", "--host", "app.example.com", "get", "app.example.com"]
        )
        #expect(unnamedTerraform.trimmedOutput == "{\"token\":\"\(token)\"}", "\(unnamedTerraform.stderr)")
        #expect(try await cli.run(["token", "--format", "terraform", "forget", "app.example.com"]).status == 0)
    }
}
