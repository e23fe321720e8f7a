import Foundation
import Logging
import Tether
import TetherTesting

/// Measures the hot paths named in docs/benchmarks.md. Run in release mode:
/// `swift run -c release TetherBenchmarks`.
@main
struct Benchmarks {
    static func main() async throws {
        let quick = CommandLine.arguments.contains("--quick")
        let scale = quick ? 10 : 1
        print("tether benchmarks (\(quick ? "quick" : "full"), \(ProcessInfo.processInfo.activeProcessorCount) cores)")
        print("")
        try await validAccessTokenFresh(iterations: 1_000_000 / scale, label: "main actor")
        try await Task.detached { try await validAccessTokenFresh(iterations: 1_000_000 / scale, label: "a task") }
            .value
        try await validAccessTokenConcurrent(tasks: 8, perTask: 200_000 / scale)
        try await vaultWriteAndRead(iterations: 500 / scale)
        try await restoreFromVault(iterations: 300 / scale)
        try await OAuthBenchmarks.run(iterations: 500 / scale)
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
