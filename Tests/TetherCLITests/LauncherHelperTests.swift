import Foundation
import Testing
import Tether
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// The credential helpers' requests and `tether token`'s formats, answered by the launcher from a fresh token: what
/// it prints and how it ends are those of `tether-cli` on a copy of the same home, and what it read of standard
/// input reaches `tether-cli` unchanged when it falls back.
@Suite(.timeLimit(.minutes(4)))
struct LauncherHelperTests {
    /// One request: the command line (the first word names the executable as the tool calls it), standard input,
    /// extra environment, and whether the launcher answers it alone.
    struct Request: CustomStringConvertible {
        var executable = "tether"
        var arguments: [String]
        var input = ""
        var environment: [String: String] = [:]
        var fast = true

        var description: String { "\(executable) \(arguments.joined(separator: " "))" }
    }

    static let gitInput = "protocol=https\nhost=git.example.com\npath=team/repo.git\n\n"

    static let requests: [Request] = [
        Request(arguments: ["token", "--format", "header"]),
        Request(arguments: ["token", "dev", "--format", "env", "--variable", "API_TOKEN"]),
        Request(arguments: ["token", "dev", "--json"]),
        Request(
            arguments: ["token", "dev", "--format", "bazel", "get", "--host", "api.example.com"],
            input: #"{"uri":"https://api.example.com/artifacts/x"}"#
        ),
        Request(
            arguments: ["token", "dev", "--format", "bazel", "get", "--host", "api.example.com"],
            input: #"{"uri":"https://elsewhere.example/x"}"#
        ),
        Request(arguments: ["token", "dev", "--format", "bazel", "get"], input: "not json", fast: false),
        Request(
            arguments: ["token", "--format", "bazel", "get", "--host", "api.example.com"],
            input: #"{"uri":"https://api.example.com/artifacts/x"}"#,
            fast: false
        ),
        Request(arguments: [
            "token", "dev", "--format", "terraform", "get", "App.Terraform.io", "--host", "app.terraform.io",
        ]),
        Request(arguments: [
            "token", "dev", "--format", "terraform", "get", "other.example", "--host", "app.terraform.io",
        ]),
        Request(arguments: ["token", "dev", "--format", "terraform", "forget", "x", "--host", "x"]),
        Request(arguments: ["token", "--format", "env", "--variable", "1BAD"], fast: false),
        Request(arguments: ["git-credential", "get"], input: gitInput),
        Request(arguments: ["git-credential", "get"], input: "capability[]=authtype\n" + gitInput),
        Request(
            arguments: ["git-credential", "--connection", "dev", "get", "--username", "carol"],
            input: "protocol=https\nhost=unmapped.example\n"
        ),
        Request(executable: "git-credential-tether", arguments: ["get"], input: "host=git.example.com\nusername=bob\n"),
        Request(arguments: ["git-credential", "get"], input: "protocol=http\nhost=git.example.com\n", fast: false),
        Request(arguments: ["git-credential", "get"], input: "protocol=https\nhost=unmapped.example\n", fast: false),
        Request(arguments: ["git-credential", "get"], input: "no equals sign\n", fast: false),
        Request(arguments: ["kube-credential"]),
        Request(arguments: ["kube-credential", "dev", "--token", "access"]),
        Request(
            arguments: ["kube-credential", "dev"],
            environment: [
                "KUBERNETES_EXEC_INFO":
                    #"{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","spec":{}}"#
            ]
        ),
        Request(
            arguments: ["kube-credential", "dev"],
            environment: ["KUBERNETES_EXEC_INFO": #"{"apiVersion":"client.authentication.k8s.io/v2"}"#],
            fast: false
        ),
        Request(arguments: ["kube-credential", "--print-kubeconfig-user", "dev"], fast: false),
        Request(arguments: ["docker-credential", "get"], input: "https://Registry.Example.com/v2/\n"),
        Request(executable: "docker-credential-tether", arguments: ["get"], input: "registry.example.com"),
        Request(arguments: ["docker-credential", "get"], input: "https://index.docker.io/v1/\n", fast: false),
    ]

    /// Signs in with a git host, a git user name and a registry saved with the connection.
    static func signedIn() async throws -> CLI {
        let cli = try await CLI.start()
        let login = try await cli.loginWithDeviceCode([
            "login", "dev", "--issuer", cli.issuer, "--device", "--git-host", "git.example.com", "--git-username",
            "alice", "--docker-registry", "registry.example.com",
        ])
        #expect(login.status == 0, "\(login.stderr)")
        return cli
    }

    /// A folder holding `executable` named `name` (a symbolic link, as git and docker find their helpers).
    static func linked(_ executable: String, as name: String, near cli: CLI) throws -> URL {
        let folder = cli.home.deletingLastPathComponent().appendingPathComponent("bin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let link = folder.appendingPathComponent(name)
        try FileManager.default.createSymbolicLink(
            atPath: link.path,
            withDestinationPath: try CLI.executable(named: executable).path
        )
        return link
    }

    /// Runs the request with the launcher on `cli`'s home, with `tether-cli` on a copy of it, and with a copy of the
    /// launcher that has no `tether-cli` beside it.
    static func run(
        _ request: Request,
        on cli: CLI
    ) async throws -> (
        launcher: LauncherTests.Outcome, full: LauncherTests.Outcome, alone: CLI.Result
    ) {
        let other = try await LauncherTests.copy(cli)
        defer { try? FileManager.default.removeItem(at: other.home) }
        let name = request.executable
        let fullTool = try linked("tether-cli", as: name == "tether" ? "tether-cli" : name, near: cli)
        let launcher = try linked("tether", as: name, near: cli)
        let full = try await ChildProcess.run(
            [fullTool.path] + request.arguments,
            input: request.input,
            environment: other.environment.merging(request.environment) { _, new in new }
        )
        let answered = try await ChildProcess.run(
            [launcher.path] + request.arguments,
            input: request.input,
            environment: cli.environment.merging(request.environment) { _, new in new }
        )
        let alone = try await Self.alone(request, on: cli)
        return (
            LauncherTests.normalized(answered, home: cli.home), LauncherTests.normalized(full, home: other.home), alone
        )
    }

    /// Runs the request with a copy of the launcher that has no `tether-cli` beside it: a copy, not a link, so that
    /// /proc/self/exe names a folder without `tether-cli`. The copy is made once per home and name (a test's requests
    /// run one after the other).
    static func aloneFolder(_ cli: CLI) -> URL {
        cli.home.deletingLastPathComponent().appendingPathComponent("alone-\(cli.home.lastPathComponent)")
    }

    static func alone(_ request: Request, on cli: CLI) async throws -> CLI.Result {
        let folder = aloneFolder(cli)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent(request.executable)
        if !FileManager.default.fileExists(atPath: copy.path) { try await LauncherTests.copyExecutable(to: copy) }
        return try await ChildProcess.run(
            [copy.path] + request.arguments,
            input: request.input,
            environment: cli.environment.merging(request.environment) { _, new in new }
        )
    }

    @Test func eachHelperRequestIsAnsweredAsTheFullToolAnswersIt() async throws {
        let cli = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        defer { try? FileManager.default.removeItem(at: Self.aloneFolder(cli)) }
        let refreshes = await cli.provider.admin.counters()[.refreshes]
        for request in Self.requests {
            let (launcher, full, alone) = try await Self.run(request, on: cli)
            #expect(launcher == full, "\(request)")
            if request.fast {
                #expect(full.status == 0, "\(request): \(full.stderr)")
                #expect(alone.status == 0, "\(request) was not answered by the launcher: \(alone.stderr)")
                #expect(alone.stdout == full.stdout, "\(request)")
            } else {
                #expect(alone.status == 1, "\(request) was answered by the launcher")
                #expect(alone.stdout.isEmpty, "\(request)")
            }
        }
        #expect(await cli.provider.admin.counters()[.refreshes] == refreshes)
    }

    /// After git reported the token refused, the launcher leaves `get` to `tether-cli`, with what git wrote: here
    /// more than a pipe holds, so it goes through a file in the vault's folder, which is gone afterwards.
    @Test func aRefusedTokenIsLeftToTheFullToolWithGitsInput() async throws {
        let cli = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        defer { try? FileManager.default.removeItem(at: Self.aloneFolder(cli)) }
        let token = try await cli.run(["token", "dev"]).trimmedOutput
        let erase = try await cli.run(
            ["git-credential", "erase"],
            input: "protocol=https\nhost=git.example.com\nusername=alice\npassword=\(token)\n"
        )
        #expect(erase.status == 0, "\(erase.stderr)")
        let alone = try await Self.alone(Request(arguments: ["git-credential", "get"], input: Self.gitInput), on: cli)
        #expect(alone.status == 1, "the launcher answered a token git had refused")

        let padding = (0..<3).map { _ in "wwwauth[]=Bearer realm=\"\(String(repeating: "x", count: 40_000))\"" }
        let input = (["protocol=https", "host=git.example.com", "username=carol"] + padding).joined(separator: "\n")
        #expect(input.utf8.count > 65_536)
        let refreshes = await cli.provider.admin.counters()[.refreshes]
        let get = try await cli.run(["git-credential", "get"], input: input + "\n\n")
        #expect(get.status == 0, "\(get.stderr)")
        let lines = get.stdout.split(separator: "\n").map { String($0) }
        #expect(lines.first == "username=carol", "\(lines.first ?? "")")
        let password = lines.first { $0.hasPrefix("password=") } ?? ""
        #expect(password != "password=\(token)")
        #expect(await cli.provider.admin.counters()[.refreshes] == refreshes + 1)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: cli.home.path).filter {
            $0.hasPrefix(".standard-input")
        }
        #expect(leftovers.isEmpty)
        // The new token is fresh and nothing is marked refused: the launcher answers alone again.
        let again = try await Self.alone(Request(arguments: ["git-credential", "get"], input: Self.gitInput), on: cli)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!password.isEmpty && again.stdout.contains(String(password.dropFirst("password=".count))))
    }

    /// An ID token within its leeway is renewed by `tether-cli`, although the access token is still fresh.
    @Test func anExpiringIDTokenIsLeftToTheFullTool() async throws {
        let cli = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        defer { try? FileManager.default.removeItem(at: Self.aloneFolder(cli)) }
        let vault = try VaultStore(directory: cli.home, environment: [:])
        let record = try #require(try await vault.read(ConnectionID("dev")))
        var tokens = record.tokens
        let now = Int(Date().timeIntervalSince1970)
        let claims = #"{"iss":"x","sub":"ada","aud":"tether","iat":\#(now - 3_000),"exp":\#(now + 30)}"#
        let payload = Data(claims.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        tokens.idToken = IDToken("e30.\(payload).c2ln")
        var changed = record
        changed.tokens = tokens
        _ = try await vault.write(changed, expecting: .version(record.version))
        let alone = try await Self.alone(Request(arguments: ["kube-credential", "dev"]), on: cli)
        #expect(alone.status == 1, "the launcher answered an ID token within its leeway")
        let refreshes = await cli.provider.admin.counters()[.refreshes]
        let renewed = try await cli.run(["kube-credential", "dev"])
        #expect(renewed.status == 0, "\(renewed.stderr)")
        #expect(await cli.provider.admin.counters()[.refreshes] == refreshes + 1)
    }
}
