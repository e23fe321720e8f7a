import Foundation
import HTTPTypes
import Testing
import Tether
import TetherAsyncHTTPClient
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

@testable import TetherCLI

/// Which transport `tether` sends its requests through, and its proxies (docs/decisions.md §28, §46): always
/// AsyncHTTPClient, through the proxy the environment names. The end-to-end tests go through a real `CONNECT`
/// proxy on 127.0.0.1 (a Python stand-in that checks the proxy's Basic credentials and logs every tunnel).
@Suite(.timeLimit(.minutes(3)))
struct WorkspaceTransportTests {
    @Test func theTransportReadsTheProxiesOfTheEnvironmentItIsGiven() throws {
        let direct = try #require(Workspace.transport(environment: [:]) as? CommandHome.SharedAsyncTransport)
        #expect(direct.proxies == .direct)
        let proxied = try #require(
            Workspace.transport(environment: ["HTTPS_PROXY": "http://127.0.0.1:3128"])
                as? CommandHome.SharedAsyncTransport
        )
        #expect(proxied.proxies == ProxyEnvironment(environment: ["HTTPS_PROXY": "http://127.0.0.1:3128"]))
        #expect(!proxied.proxies.isEmpty)
    }

    /// A signed-in CLI, the provider's resource URL, and a proxy with its log.
    struct Proxied {
        let cli: CLI
        let resource: String
        let proxy: ScriptServer
        let log: URL

        /// Starts them; the proxy wants `credentials` (`user:password`; empty: none).
        static func start(credentials: String) async throws -> Proxied {
            let cli = try await CLI.start()
            #expect(try await cli.loginWithDeviceCode().status == 0)
            let log = cli.home.deletingLastPathComponent().appendingPathComponent("proxy-\(UUID().uuidString).log")
            let proxy = try await ScriptServer.start(
                script: StandInServers.connectProxy,
                arguments: [log.path, credentials],
                environment: ProcessInfo.processInfo.environment
            )
            return Proxied(cli: cli, resource: cli.provider.url("/resource").absoluteString, proxy: proxy, log: log)
        }

        /// The provider's address under a name (`resource.test:PORT`), which only the proxy resolves.
        var namedAuthority: String { "resource.test:\(URL(string: resource)?.port ?? 0)" }

        /// A request for the provider's resource under ``namedAuthority``, with `token`.
        func resourceRequest(token: String) -> HTTPRequest {
            var request = HTTPRequest(method: .get, scheme: "http", authority: namedAuthority, path: "/resource")
            request.headerFields[.authorization] = "Bearer \(token)"
            return request
        }

        /// The proxy's log: one line per request it was sent.
        var tunnels: [String] {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        func stop() {
            proxy.stop()
            try? FileManager.default.removeItem(at: log)
            Task { await cli.stop() }
        }
    }

    @Test func requestsGoThroughTheProxyOfHttpProxyWithItsCredentials() async throws {
        let setup = try await Proxied.start(credentials: "ada:pr0xy pass")
        defer { setup.stop() }
        let (cli, proxy) = (setup.cli, setup.proxy)
        let token = try await cli.run(["token", "dev"]).trimmedOutput
        let before = await cli.provider.admin.counters()

        // A name, not this machine's address: requests to this machine never go through a proxy. The proxy takes
        // every `.test` name for 127.0.0.1.
        let transport = Workspace.transport(environment: [
            "http_proxy": "http://ada:pr0xy%20pass@127.0.0.1:\(proxy.port)"
        ])
        let (response, _) = try await transport.send(setup.resourceRequest(token: token), body: nil)

        #expect(response.status == .ok)
        let after = await cli.provider.admin.counters()
        #expect(after.requests(to: .resource) - before.requests(to: .resource) == 1)
        #expect(setup.tunnels == ["CONNECT \(setup.namedAuthority) authorized"], "\(setup.tunnels)")
    }

    @Test func thisMachineIsReachedDirectlyWhateverTheProxyVariablesSay() async throws {
        let setup = try await Proxied.start(credentials: "")
        defer { setup.stop() }
        let (cli, resource, proxy) = (setup.cli, setup.resource, setup.proxy)
        let proxyURL = "http://127.0.0.1:\(proxy.port)"
        let before = await cli.provider.admin.counters()

        let result = try await cli.with([
            "http_proxy": proxyURL, "HTTPS_PROXY": proxyURL, "ALL_PROXY": proxyURL,
        ]).run(["request", "dev", resource])

        #expect(result.status == 0, "\(result.stderr)")
        let after = await cli.provider.admin.counters()
        #expect(after.requests(to: .resource) - before.requests(to: .resource) == 1)
        #expect(setup.tunnels.isEmpty, "\(setup.tunnels)")
    }

    @Test func noProxyNamesTheHostsThatAreReachedDirectly() async throws {
        let setup = try await Proxied.start(credentials: "")
        defer { setup.stop() }
        let (cli, proxy) = (setup.cli, setup.proxy)
        let token = try await cli.run(["token", "dev"]).trimmedOutput
        let proxyURL = "http://127.0.0.1:\(proxy.port)"

        // Sent directly, `resource.test` does not resolve: the request fails and the proxy sees nothing.
        for exception in ["resource.test", ".test", "example.com, *.test", "*"] {
            let transport = AsyncHTTPClientTransport(
                configuration: HTTPTransportConfiguration(timeout: .seconds(5)),
                proxies: ProxyEnvironment(environment: ["http_proxy": proxyURL, "NO_PROXY": exception])
            )
            await #expect(throws: TransportError.self, "\(exception)") {
                try await transport.send(setup.resourceRequest(token: token), body: nil)
            }
            try await transport.shutdown()
        }
        #expect(setup.tunnels.isEmpty, "\(setup.tunnels)")

        // Neither a name nor a range that matches, and `*` in a list, which means nothing there (as in curl).
        let transport = AsyncHTTPClientTransport(
            proxies: ProxyEnvironment(environment: ["http_proxy": proxyURL, "NO_PROXY": "example.com,10.0.0.0/8,*"])
        )
        let (response, _) = try await transport.send(setup.resourceRequest(token: token), body: nil)
        try await transport.shutdown()
        #expect(response.status == .ok)
        #expect(setup.tunnels == ["CONNECT \(setup.namedAuthority) authorized"], "\(setup.tunnels)")
    }

    @Test func aProxyThatRefusesTheCredentialsFailsTheRequestWithoutSendingIt() async throws {
        let setup = try await Proxied.start(credentials: "ada:right")
        defer { setup.stop() }
        let (cli, proxy) = (setup.cli, setup.proxy)
        let token = try await cli.run(["token", "dev"]).trimmedOutput
        let before = await cli.provider.admin.counters()

        let result = try await cli.with(["https_proxy": "http://ada:wrong-s3cret@127.0.0.1:\(proxy.port)"])
            .run(["request", "dev", "https://\(setup.namedAuthority)/resource"])

        #expect(result.status != 0)
        #expect(result.stderr.contains("refused its credentials"), "\(result.stderr)")
        #expect(result.stderr.contains("https_proxy"), "\(result.stderr)")
        let after = await cli.provider.admin.counters()
        #expect(after.requests(to: .resource) == before.requests(to: .resource))
        #expect(!setup.tunnels.isEmpty)
        #expect(setup.tunnels.allSatisfy { $0 == "CONNECT \(setup.namedAuthority) refused" }, "\(setup.tunnels)")
        #expect(!result.stderr.contains("wrong-s3cret"))
        #expect(!token.isEmpty && !result.stderr.contains(token))
    }

    @Test(arguments: [
        ("https://ada:hunter2@127.0.0.1:9", "https_proxy names a https:// proxy"),
        ("socks5://ada:hunter2@127.0.0.1:9", "https_proxy names a SOCKS proxy with credentials"),
    ])
    func aProxyOfAKindTetherCannotUseIsNamedAndNothingGoesOutDirectly(value: String, message: String) async throws {
        let setup = try await Proxied.start(credentials: "")
        defer { setup.stop() }
        let cli = setup.cli
        let before = await cli.provider.admin.counters()

        let result = try await cli.with(["https_proxy": value])
            .run(["request", "dev", "https://\(setup.namedAuthority)/resource"])

        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("hunter2"))
        let after = await cli.provider.admin.counters()
        #expect(after.requests(to: .resource) == before.requests(to: .resource))
        #expect(setup.tunnels.isEmpty)
    }
}

extension StandInServers {
    /// An HTTP proxy that answers only `CONNECT` and tunnels to the target (a `.test` name is 127.0.0.1); with
    /// credentials (`user:password`, the second argument; empty for none) it wants them as
    /// `Proxy-Authorization: Basic` and answers 407 otherwise. Every request is a line in the log file (the first
    /// argument): `METHOD TARGET authorized|refused`.
    static let connectProxy = #"""
        import base64, socket, sys, threading

        LOG, CREDENTIALS = sys.argv[1], sys.argv[2]
        EXPECTED = "Basic " + base64.b64encode(CREDENTIALS.encode()).decode() if CREDENTIALS else None

        def pipe(source, target):
            try:
                while True:
                    data = source.recv(65536)
                    if not data:
                        break
                    target.sendall(data)
            except OSError:
                pass
            try:
                target.shutdown(socket.SHUT_WR)
            except OSError:
                pass

        def handle(client):
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(4096)
                if not chunk:
                    client.close()
                    return
                head += chunk
            header, rest = head.split(b"\r\n\r\n", 1)
            lines = header.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            fields = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                fields[name.strip().lower()] = value.strip()
            authorized = EXPECTED is None or fields.get("proxy-authorization") == EXPECTED
            with open(LOG, "a") as log:
                log.write("%s %s %s\n" % (method, target, "authorized" if authorized else "refused"))
            if method != "CONNECT" or not authorized:
                client.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                               b"Proxy-Authenticate: Basic realm=\"proxy\"\r\nContent-Length: 0\r\n"
                               b"Connection: close\r\n\r\n")
                client.close()
                return
            host, _, port = target.rpartition(":")
            host = "127.0.0.1" if host.endswith(".test") else host.strip("[]")
            try:
                upstream = socket.create_connection((host, int(port)), timeout=10)
                upstream.settimeout(None)
            except OSError:
                client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                client.close()
                return
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            if rest:
                upstream.sendall(rest)
            threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()
            pipe(client, upstream)

        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen(64)
        print("listening %d" % server.getsockname()[1], file=sys.stderr, flush=True)
        while True:
            connection, _ = server.accept()
            threading.Thread(target=handle, args=(connection,), daemon=True).start()
        """#
}
