import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Tether
import TetherAsyncHTTPClient
import TetherDevProvider
import TetherServer
import TetherTesting
import TetherURLSession

/// Measures the hot paths named in docs/benchmarks.md. Run in release mode:
/// `swift run -c release TetherBenchmarks`.
@main
struct Benchmarks {
    static func main() async throws {
        let arguments = CommandLine.arguments
        if arguments.count == 4, arguments[1] == "--peer-agent" {
            try await PeerAgent.run(issuer: arguments[2], vault: URL(fileURLWithPath: arguments[3]))
            return
        }
        let quick = CommandLine.arguments.contains("--quick")
        let scale = quick ? 10 : 1
        print("tether benchmarks (\(quick ? "quick" : "full"), \(ProcessInfo.processInfo.activeProcessorCount) cores)")
        print("")
        if let index = arguments.firstIndex(of: "--large-calendar") {
            // `--large-calendar [EVENTS]`: 100,000 events by default (docs/benchmarks.md, "Large calendars").
            let events = arguments.dropFirst(index + 1).first.flatMap { Int($0) } ?? 100_000
            try await LargeCalendarBenchmarks.run(events: events)
            return
        }
        if CommandLine.arguments.contains("--calendar") {
            try await CalendarBenchmarks.run(scale: scale)
            return
        }
        try await validAccessTokenFresh(iterations: 1_000_000 / scale, label: "main actor")
        try await Task.detached { try await validAccessTokenFresh(iterations: 1_000_000 / scale, label: "a task") }
            .value
        try await validAccessTokenConcurrent(tasks: 8, perTask: 200_000 / scale)
        try await vaultWriteAndRead(iterations: 500 / scale)
        try await restoreFromVault(iterations: 300 / scale)
        try await OAuthBenchmarks.run(iterations: 500 / scale)
        try await authorizedClientOverhead(requests: 20_000 / scale)
        try await tokenVerification(iterations: 20_000 / scale)
        try await CalendarBenchmarks.run(scale: scale)
    }

    static let account = Account(providerID: "bench", subject: "user", displayIdentifier: "bench@example.com")
    static let silent = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })

    static func freshTokens(_ issuer: TestIssuer) throws -> TokenSet { try issuer.signInTokens(subject: "user") }

    static func validAccessTokenFresh(iterations: Int, label: String) async throws {
        let issuer = TestIssuer()
        let session = Session(id: "bench", store: MemoryStore(), refresher: issuer, logger: silent)
        try await session.signIn(account: account, tokens: try freshTokens(issuer))
        _ = try await session.validAccessToken()
        // Batches of 1,000 calls; the per-call time of each batch forms the distribution.
        var samples: [Double] = []
        let batch = 1_000
        let clock = ContinuousClock()
        for _ in 0..<(iterations / batch) {
            let start = clock.now
            for _ in 0..<batch { _ = try await session.validAccessToken() }
            samples.append(nanoseconds(clock.now - start) / Double(batch))
        }
        report("validAccessToken(), fresh token, called from \(label)", samples, unit: "ns/call")
    }

    static func validAccessTokenConcurrent(tasks: Int, perTask: Int) async throws {
        let issuer = TestIssuer()
        let session = Session(id: "bench", store: MemoryStore(), refresher: issuer, logger: silent)
        try await session.signIn(account: account, tokens: try freshTokens(issuer))
        let clock = ContinuousClock()
        var samples: [Double] = []
        for _ in 0..<5 {
            let start = clock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<tasks {
                    group.addTask { for _ in 0..<perTask { _ = try await session.validAccessToken() } }
                }
                try await group.waitForAll()
            }
            let elapsed = nanoseconds(clock.now - start)
            samples.append(elapsed / Double(tasks * perTask))
        }
        report(
            "validAccessToken(), fresh token, \(tasks) concurrent tasks (wall time / total calls)",
            samples,
            unit: "ns/call"
        )
        print("    throughput (median): \(Int(1e9 / median(samples))) calls/s")
    }

    static func vaultWriteAndRead(iterations: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tether-bench-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try VaultStore(directory: directory, key: .generate(), logger: silent)
        let issuer = TestIssuer()
        var record = Connection(
            id: "bench",
            account: account,
            tokens: try freshTokens(issuer),
            metadata: ["calendar": "primary"]
        )
        let clock = ContinuousClock()
        var writes: [Double] = []
        var reads: [Double] = []
        for _ in 0..<iterations {
            var start = clock.now
            record = try await store.write(record, expecting: record.version == 0 ? .absent : .version(record.version))
            writes.append(nanoseconds(clock.now - start) / 1000)
            start = clock.now
            _ = try await store.read("bench")
            reads.append(nanoseconds(clock.now - start) / 1000)
        }
        report("VaultStore write (AES-GCM, temp file, fsync, rename, fsync dir)", writes, unit: "µs")
        report("VaultStore read (open, decrypt, decode)", reads, unit: "µs")
    }

    static func restoreFromVault(iterations: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tether-bench-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = VaultKey.generate()
        let store = try VaultStore(directory: directory, key: key, logger: silent)
        let issuer = TestIssuer()
        try await store.write(Connection(id: "bench", account: account, tokens: try freshTokens(issuer)))
        let clock = ContinuousClock()
        var samples: [Double] = []
        for _ in 0..<iterations {
            let start = clock.now
            // A new launch: open the vault, create the session, restore.
            let launchStore = try VaultStore(directory: directory, key: key, logger: silent)
            let session = Session(id: "bench", store: launchStore, refresher: issuer, logger: silent)
            let status = await session.restore()
            samples.append(nanoseconds(clock.now - start) / 1000)
            guard status.kind == .connected else { throw BenchmarkFailure(status: status) }
        }
        report("restore() from the vault, no network (new store + session + restore)", samples, unit: "µs")
    }

    struct BenchmarkFailure: Error { let status: ConnectionStatus }

    static func nanoseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
    }

    static func median(_ samples: [Double]) -> Double { percentile(samples, 0.5) }

    static func percentile(_ samples: [Double], _ p: Double) -> Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .nan }
        let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))
        return sorted[index]
    }

    static func report(_ name: String, _ samples: [Double], unit: String) {
        print(name)
        print(
            String(
                format: "    median %.2f %@, p90 %.2f, p99 %.2f, min %.2f  (n = %d)",
                median(samples),
                unit,
                percentile(samples, 0.9),
                percentile(samples, 0.99),
                samples.min() ?? .nan,
                samples.count
            )
        )
    }
}

// MARK: HTTP client and server verification

extension Benchmarks {
    /// A loopback Hummingbird server answering `GET /ping` with two bytes.
    static func startPingServer() async throws -> (port: Int, task: Task<Void, Never>) {
        let router = Router()
        router.get("/ping") { _, _ in "ok" }
        return try await startServer(router)
    }

    /// Runs `router` on 127.0.0.1 with a port the system picks; returns once it listens.
    static func startServer(
        _ router: Router<BasicRequestContext>
    ) async throws -> (port: Int, task: Task<Void, Never>) {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: silent
        )
        let task = Task {
            try? await app.run()
            continuation.finish()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else { throw CancellationError() }
        return (port, task)
    }

    /// Sequential loopback GETs, raw transport against `AuthorizedClient` over the same transport, interleaved in
    /// blocks of 500 so that drift affects both alike.
    static func authorizedClientOverhead(requests: Int) async throws {
        let (port, server) = try await startPingServer()
        defer { server.cancel() }
        let issuer = TestIssuer()
        let session = Session(id: "bench", store: MemoryStore(), refresher: issuer, logger: silent)
        try await session.signIn(account: account, tokens: try freshTokens(issuer))
        let request = HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:\(port)/ping")!)
        // The raw request carries the same bearer header, so both sides send the same bytes and the difference is
        // what the client adds: the token lookup, the header, the status check.
        var bearerRequest = request
        bearerRequest.headerFields[.authorization] = "Bearer \(try await session.validAccessToken().revealedValue)"
        let ahc = AsyncHTTPClientTransport()
        let transports: [(String, any HTTPTransport)] = [
            ("URLSessionTransport", URLSessionTransport()), ("AsyncHTTPClientTransport", ahc),
        ]
        let clock = ContinuousClock()
        for (name, transport) in transports {
            let client = AuthorizedClient(session: session, transport: transport, logger: silent)
            for _ in 0..<200 {
                _ = try await transport.send(bearerRequest, body: nil)
                _ = try await client.send(request)
            }
            var raw: [Double] = []
            var authorized: [Double] = []
            let block = 500
            for _ in 0..<max(1, requests / (2 * block)) {
                for _ in 0..<block {
                    let start = clock.now
                    _ = try await transport.send(bearerRequest, body: nil)
                    raw.append(nanoseconds(clock.now - start) / 1000)
                }
                for _ in 0..<block {
                    let start = clock.now
                    _ = try await client.send(request)
                    authorized.append(nanoseconds(clock.now - start) / 1000)
                }
            }
            report("\(name): loopback GET, raw transport", raw, unit: "µs")
            report("\(name): loopback GET through AuthorizedClient", authorized, unit: "µs")
            let overhead = median(authorized) - median(raw)
            print(
                String(
                    format: "    overhead (median): %.2f µs, %.1f %%",
                    overhead,
                    overhead / median(raw) * 100
                )
            )
        }
        try await ahc.shutdown()
    }

    /// `AccessTokenVerifier.verify` on a JWT access token from the development provider (RS256), keys cached:
    /// no HTTP per verification. One task (one core), then one task per core.
    static func tokenVerification(iterations: Int) async throws {
        let running = try await DevProvider(DevProvider.Configuration(accessTokenFormat: .jwt)).start()
        let transport = URLSessionTransport()
        let issued = try await running.admin.issueTokens(username: "ada")
        let verifier = AccessTokenVerifier.oidc(
            issuer: running.issuer.absoluteString,
            jwksURL: running.issuer.appendingPathComponent("jwks"),
            audience: running.issuer.absoluteString + "/resource",
            transport: transport,
            logger: silent
        )
        _ = try await verifier.verify(issued.accessToken)
        let clock = ContinuousClock()
        var samples: [Double] = []
        let batch = 1_000
        for _ in 0..<max(1, iterations / batch) {
            let start = clock.now
            for _ in 0..<batch { _ = try await verifier.verify(issued.accessToken) }
            samples.append(nanoseconds(clock.now - start) / 1000 / Double(batch))
        }
        report("AccessTokenVerifier.verify, RS256 JWT access token, one task", samples, unit: "µs/token")
        print("    verifications per second on one core (median): \(Int(1e6 / median(samples)))")

        let cores = ProcessInfo.processInfo.activeProcessorCount
        let perTask = iterations / 2
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<cores {
                group.addTask { for _ in 0..<perTask { _ = try await verifier.verify(issued.accessToken) } }
            }
            try await group.waitForAll()
        }
        let total = Double(cores * perTask) / (nanoseconds(clock.now - start) / 1e9)
        print(
            "    \(cores) concurrent tasks: \(Int(total)) verifications/s in all, \(Int(total / Double(cores))) per core"
        )
        await running.stop()
    }
}
