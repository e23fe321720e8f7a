import Foundation
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// The real `kubectl` with `tether kube-credential` as its exec credential plugin, against a stand-in API server
/// over TLS on 127.0.0.1 that takes the development provider's ID tokens as an API server configured for OpenID
/// Connect does. A kubeconfig of its own; the user's is never read.
@Suite(
    .timeLimit(.minutes(3)),
    .enabled(if: HelperTools.hasKubectlOpenSSLAndPython, "Needs kubectl, openssl and python3 on PATH")
)
struct KubeCredentialHelperTests {
    struct Fixture: Sendable {
        let cli: CLI
        let server: ScriptServer
        let folder: URL
        let environment: [String: String]
        let browserCalls: URL

        /// - Parameter mode: `id` (the default `--token`) or `access`.
        static func start(lifetime: Int, mode: String = "id") async throws -> Fixture {
            let cli = try await CLI.start(
                DevProvider.Configuration(accessTokenLifetime: .seconds(lifetime), idTokenLifetime: .seconds(lifetime))
            )
            let folder = cli.home.deletingLastPathComponent().appendingPathComponent("kube-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let bin = try cli.helperLinks()
            let browser = try cli.recordingScript(named: "browser")
            var environment = cli.environment
            environment["HOME"] = folder.path
            environment["KUBECONFIG"] = folder.appendingPathComponent("kubeconfig").path
            environment["BROWSER"] = browser.script.path
            environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")

            // A CA and a server certificate for 127.0.0.1 signed by it.
            let openssl = try #require(HelperTools.path(of: "openssl"))
            func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
            try "subjectAltName=IP:127.0.0.1\n".write(toFile: path("san.cnf"), atomically: true, encoding: .utf8)
            for command in [
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("ca.key"), "-out", path("ca.pem"),
                    "-days", "1", "-subj", "/CN=tether test CA",
                ],
                [
                    "req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("server.key"), "-out", path("server.csr"),
                    "-subj", "/CN=127.0.0.1",
                ],
                [
                    "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                    "-CAcreateserial", "-out", path("server.pem"), "-days", "1", "-extfile", path("san.cnf"),
                ],
            ] {
                let result = try await ChildProcess.run([openssl] + command, environment: environment)
                #expect(result.status == 0, "openssl \(command[0]): \(result.stderr)")
            }
            let server = try await ScriptServer.start(
                script: StandInServers.kubernetes,
                arguments: [
                    path("server.pem"), path("server.key"), mode, cli.issuer, "tether-dev-client",
                    cli.provider.url("/userinfo").absoluteString,
                ],
                environment: environment
            )
            let login = try await cli.loginWithDeviceCode()
            #expect(login.status == 0, "\(login.stderr)")

            // The users entry is the one `--print-kubeconfig-user` prints.
            let stanza = try await cli.run(
                ["kube-credential", "--print-kubeconfig-user", "dev"] + (mode == "id" ? [] : ["--token", mode])
            )
            #expect(stanza.status == 0, "\(stanza.stderr)")
            let kubeconfig = """
                apiVersion: v1
                kind: Config
                clusters:
                - name: stand-in
                  cluster:
                    server: https://127.0.0.1:\(server.port)
                    certificate-authority: \(path("ca.pem"))
                contexts:
                - name: stand-in
                  context:
                    cluster: stand-in
                    user: dev
                current-context: stand-in
                \(stanza.stdout)
                """
            try kubeconfig.write(toFile: path("kubeconfig"), atomically: true, encoding: .utf8)
            return Fixture(
                cli: cli,
                server: server,
                folder: folder,
                environment: environment,
                browserCalls: browser.calls
            )
        }

        func launchKubectl() throws -> ChildProcess {
            let kubectl = try #require(HelperTools.path(of: "kubectl"))
            return try ChildProcess([kubectl, "get", "--raw", "/api"], environment: environment)
        }

        func kubectl() async throws -> ChildProcess.Result {
            try await launchKubectl().finish(timeout: .seconds(60))
        }

        func refreshes() async -> Int { await cli.provider.admin.counters()[.refreshes] }

        var browserWasOpened: Bool { FileManager.default.fileExists(atPath: browserCalls.path) }

        func stop() async {
            server.stop()
            try? FileManager.default.removeItem(at: folder)
            await cli.stop()
        }
    }

    @Test func kubectlWorksAndRefreshesOnceAfterExpiryAlsoForEightAtOnce() async throws {
        // Tokens live 16 s: kubectl must use one within the last quarter of its life (the plugin's leeway), even on a
        // loaded machine.
        let fixture = try await Fixture.start(lifetime: 16)
        defer { Task { await fixture.stop() } }
        let first = try await fixture.kubectl()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("APIVersions"), "\(first.stdout)")

        try await Task.sleep(for: .seconds(16))
        var before = await fixture.refreshes()
        let afterExpiry = try await fixture.kubectl()
        #expect(afterExpiry.status == 0, "\(afterExpiry.stderr)")
        #expect(await fixture.refreshes() == before + 1)

        try await Task.sleep(for: .seconds(16))
        before = await fixture.refreshes()
        let processes = try (0..<8).map { _ in try fixture.launchKubectl() }
        var results: [ChildProcess.Result] = []
        for process in processes { results.append(try await process.finish(timeout: .seconds(90))) }
        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
        #expect(await fixture.refreshes() == before + 1)
        #expect(await fixture.cli.provider.admin.counters()[.reuseDetections] == 0)
    }

    @Test func theAccessTokenForAServerThatTakesIt() async throws {
        let fixture = try await Fixture.start(lifetime: 60, mode: "access")
        defer { Task { await fixture.stop() } }
        let result = try await fixture.kubectl()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("APIVersions"))
    }

    @Test func aRevokedGrantFailsWithTheSignInLineAndNoBrowser() async throws {
        let fixture = try await Fixture.start(lifetime: 12)
        defer { Task { await fixture.stop() } }
        #expect(try await fixture.kubectl().status == 0)
        _ = await fixture.cli.provider.admin.revokeAllGrants()
        try await Task.sleep(for: .seconds(12))

        let result = try await fixture.kubectl()
        #expect(result.status != 0)
        #expect(result.stderr.contains("tether login dev"), "\(result.stderr)")
        #expect(!fixture.browserWasOpened, "a browser was opened")
    }
}

/// `tether kube-credential` at the protocol level: the ExecCredential kubectl reads, for each apiVersion and token.
@Suite(.timeLimit(.minutes(3)))
struct KubeCredentialCommandTests {
    @Test func kubeCredentialPrintsAnExecCredentialWithTheIDOrAccessToken() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let access = try await cli.run(["token", "dev"]).trimmedOutput
        // A connection without helper settings is saved as before they existed (its MAC covers the same bytes).
        let settings = try String(contentsOf: cli.home.appendingPathComponent("connections.json"), encoding: .utf8)
        #expect(!settings.contains("credentialHelpers"))

        let v1 = try await cli.run(["kube-credential", "dev"])
        #expect(v1.status == 0, "\(v1.stderr)")
        let credential = try #require(try JSONSerialization.jsonObject(with: Data(v1.stdout.utf8)) as? [String: Any])
        #expect(credential["apiVersion"] as? String == "client.authentication.k8s.io/v1")
        #expect(credential["kind"] as? String == "ExecCredential")
        let status = try #require(credential["status"] as? [String: String])
        let idToken = try #require(status["token"])
        #expect(idToken.split(separator: ".").count == 3 && idToken != access)
        let exp = try #require(Self.claims(ofJWT: idToken)["exp"] as? Double)
        let expiration = try #require(status["expirationTimestamp"].flatMap { try? Date($0, strategy: .iso8601) })
        #expect(abs(expiration.timeIntervalSince1970 - exp) < 1)

        let beta = try await cli.run(
            ["kube-credential", "dev", "--token", "access"],
            input: "",
            environment: [
                "KUBERNETES_EXEC_INFO":
                    #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","#
                    + #""spec":{"interactive":false}}"#
            ]
        )
        let betaCredential = try JSONSerialization.jsonObject(with: Data(beta.stdout.utf8)) as? [String: Any]
        #expect(betaCredential?["apiVersion"] as? String == "client.authentication.k8s.io/v1beta1")
        #expect((betaCredential?["status"] as? [String: String])?["token"] == access)
        let bad = try await cli.run(["kube-credential", "dev"], input: "", environment: ["KUBERNETES_EXEC_INFO": "{"])
        #expect(bad.status == 2)

        let stanza = try await cli.run(["kube-credential", "--print-kubeconfig-user", "dev"])
        #expect(stanza.status == 0)
        #expect(stanza.stdout.contains("interactiveMode: Never"))
        #expect(stanza.stdout.contains("command: tether"))
        #expect(stanza.stdout.contains("- kube-credential\n") && stanza.stdout.contains("- 'dev'"), "\(stanza.stdout)")
    }

    /// The claims of a JWT, unverified.
    static func claims(ofJWT token: String) throws -> [String: Any] {
        let parts = token.split(separator: ".")
        try #require(parts.count == 3)
        var payload = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        let data = try #require(Data(base64Encoded: payload))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}
