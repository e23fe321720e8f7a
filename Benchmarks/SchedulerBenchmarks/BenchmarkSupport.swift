import Foundation
import Logging
import Metrics
import PostgresNIO
import Tether

/// A swift-metrics factory that keeps counter totals and every recorded value, by label (dimensions summed).
final class CollectingMetrics: MetricsFactory {
    private struct State {
        var counters: [String: Int64] = [:]
        var recorded: [String: [Double]] = [:]
    }

    private let state = LockedState(State())

    func total(_ label: String) -> Int64 { state.withLock { $0.counters[label, default: 0] } }

    func values(_ label: String) -> [Double] { state.withLock { $0.recorded[label, default: []] } }

    fileprivate func add(_ amount: Int64, to label: String) {
        state.withLock { $0.counters[label, default: 0] += amount }
    }

    fileprivate func record(_ value: Double, in label: String) {
        state.withLock { $0.recorded[label, default: []].append(value) }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        CollectedCounter(label: label, metrics: self)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        CollectedRecorder(label: label, metrics: self)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        CollectedRecorder(label: label, metrics: self)
    }

    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

private final class CollectedCounter: CounterHandler {
    let label: String
    let metrics: CollectingMetrics

    init(label: String, metrics: CollectingMetrics) {
        self.label = label
        self.metrics = metrics
    }

    func increment(by amount: Int64) { metrics.add(amount, to: label) }
    func reset() {}
}

private final class CollectedRecorder: RecorderHandler, TimerHandler {
    let label: String
    let metrics: CollectingMetrics

    init(label: String, metrics: CollectingMetrics) {
        self.label = label
        self.metrics = metrics
    }

    func record(_ value: Int64) { metrics.record(Double(value), in: label) }
    func record(_ value: Double) { metrics.record(value, in: label) }
    func recordNanoseconds(_ duration: Int64) { metrics.record(Double(duration), in: label) }
}

/// Every refresh sent to the provider, by connection and by the expiry of the tokens it replaced: two refreshes of
/// one connection for one expiry are a double refresh.
final class RefreshLog: Sendable {
    private struct State {
        var calls = 0
        var expiries: Set<String> = []
        var connections: Set<ConnectionID> = []
    }

    private let state = LockedState(State())

    func note(_ request: RefreshRequest) {
        let expiry = request.tokens.expiresAt?.timeIntervalSince1970 ?? 0
        let key = "\(request.connectionID.rawValue) \(expiry)"
        state.withLock { state in
            state.calls += 1
            state.expiries.insert(key)
            state.connections.insert(request.connectionID)
        }
    }

    /// Refreshes sent, distinct (connection, expiry) pairs, distinct connections.
    var counts: (calls: Int, expiries: Int, connections: Int) {
        state.withLock { ($0.calls, $0.expiries.count, $0.connections.count) }
    }
}

/// The OAuth client, noting each refresh in a ``RefreshLog`` before sending it.
struct RecordingRefresher: TokenRefresher {
    let inner: any TokenRefresher
    let log: RefreshLog

    func refresh(_ request: RefreshRequest) async throws -> TokenResponse {
        log.note(request)
        return try await inner.refresh(request)
    }
}

/// Queries about the server: its version, its transaction counters and the CPU time of its processes.
enum PostgresProbe {
    /// Runs `body` with a one-connection pool (no keep-alive queries), closed on return.
    static func withClient<T: Sendable>(
        _ configuration: PostgresClient.Configuration,
        maximumConnections: Int = 1,
        _ body: (PostgresClient) async throws -> T
    ) async throws -> T {
        var configuration = configuration
        configuration.options.maximumConnections = maximumConnections
        configuration.options.keepAliveBehavior = nil
        let client = PostgresClient(configuration: configuration, backgroundLogger: SchedulerBenchmarks.silent)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }

    static func serverVersion(_ configuration: PostgresClient.Configuration) async throws -> String {
        try await withClient(configuration) { client in
            for try await version in try await client.query("SHOW server_version").decode(String.self) {
                return version
            }
            return "?"
        }
    }

    /// The database's committed and rolled-back transactions (`pg_stat_database`), and the server's CPU time.
    struct Snapshot {
        var transactions: Int64
        var serverCPU: Double
    }

    /// Takes a snapshot. Backends report their counters when they go idle or exit (at most once a second, or
    /// after 10 s idle), so close the pools whose work should be counted first.
    static func snapshot(_ client: PostgresClient) async throws -> Snapshot {
        let rows = try await client.query(
            """
            SELECT xact_commit + xact_rollback, pg_backend_pid() FROM pg_stat_database
            WHERE datname = current_database()
            """
        )
        var transactions: Int64 = 0
        var backend: Int32 = 0
        for try await (count, pid) in rows.decode((Int64, Int32).self) {
            transactions = count
            backend = pid
        }
        return Snapshot(transactions: transactions, serverCPU: serverCPUSeconds(backend: backend))
    }

    /// The CPU time of the postmaster that started `backend`, its live children, and its children that exited
    /// (`cutime`, `cstime`), from `/proc`; 0 when unreadable (another user's server, or not Linux).
    static func serverCPUSeconds(backend: Int32) -> Double {
        guard let parent = procStat(backend)?.parent, let postmaster = procStat(parent) else { return 0 }
        var ticks = postmaster.ownTicks + postmaster.childTicks
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), let stat = procStat(pid), stat.parent == parent else { continue }
            ticks += stat.ownTicks
        }
        return Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private struct ProcStat {
        var parent: Int32
        var ownTicks: Int
        var childTicks: Int
    }

    /// Fields of `/proc/PID/stat` after the command name: state (3), ppid (4), …, utime (14), stime (15),
    /// cutime (16), cstime (17).
    private static func procStat(_ pid: Int32) -> ProcStat? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 14, let parent = Int32(fields[1]) else { return nil }
        let numbers = fields[11...14].map { Int($0) ?? 0 }
        return ProcStat(parent: parent, ownTicks: numbers[0] + numbers[1], childTicks: numbers[2] + numbers[3])
    }
}

/// This process's CPU time (user and system), in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Prints a line and flushes it, so that progress shows when the output goes to a file.
func say(_ line: String) {
    print(line)
    fflush(nil)
}

/// The load average over the last minute.
func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init)
        ?? "?"
}

enum Statistics {
    static func percentile(_ samples: [Double], _ p: Double) -> Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .nan }
        let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))
        return sorted[index]
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// A time in seconds, in the unit that suits it.
    static func time(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "—" }
        let magnitude = abs(seconds)
        if magnitude >= 1 { return String(format: "%.2f s", seconds) }
        if magnitude >= 1e-3 { return String(format: "%.2f ms", seconds * 1e3) }
        if magnitude >= 1e-6 { return String(format: "%.1f µs", seconds * 1e6) }
        return String(format: "%.0f ns", seconds * 1e9)
    }

    /// A whole number with thousands separators.
    static func count(_ value: Int) -> String {
        let digits = String(abs(value))
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (value < 0 ? "-" : "") + grouped
    }
}
