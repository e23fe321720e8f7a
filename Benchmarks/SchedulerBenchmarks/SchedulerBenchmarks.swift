import Foundation
import Logging
import PostgresNIO
import Tether
import TetherAsyncHTTPClient
import TetherDevProvider
import TetherOAuth
import TetherPostgres

/// The benchmark of `PostgresStore` and `RefreshScheduler` (docs/benchmarks.md, "PostgreSQL store and refresh
/// scheduler"). Needs a PostgreSQL server in `TETHER_POSTGRES_URL`:
///
///     swift build -c release --scratch-path .build-bench --product SchedulerBenchmarks
///     Scripts/start-postgres.sh .build-bench/release/SchedulerBenchmarks [--connections N]
///
/// It starts the development provider in-process on 127.0.0.1 (rotation and reuse detection on, no grace), measures
/// `validAccessToken()`, `restore()` and `read()` on `PostgresStore` beside `VaultStore`, then, for each number of
/// workers K, seeds N connections in a fresh tenant and lets K schedulers (each with its own pool, in this process)
/// keep them fresh until every connection was refreshed once or the time limit passed.
@main
struct SchedulerBenchmarks {
    static let silent = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })

    static func main() async throws {
        let options: Options
        do {
            options = try Options(CommandLine.arguments.dropFirst())
        } catch {
            say("\(error)\n\n\(Options.usage)")
            exit(2)
        }
        if options.help {
            say(Options.usage)
            return
        }
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["TETHER_POSTGRES_URL"], !url.isEmpty else {
            say("TETHER_POSTGRES_URL is not set; run under Scripts/start-postgres.sh\n\n\(Options.usage)")
            exit(2)
        }
        let database = try PostgresStore.clientConfiguration(url: url)
        let machine = await Machine.describe(database: database)
        say("tether scheduler benchmarks")
        say("command: \(CommandLine.arguments.joined(separator: " "))")
        say(machine.summary)
        say(options.summary)
        say("")

        let time = BenchmarkTime()
        let provider = try await DevProvider(
            DevProvider.Configuration(
                host: "127.0.0.1",
                port: 0,
                accessTokenLifetime: .seconds(options.lifetime),
                refreshTokenRotation: true,
                reuseDetection: true,
                reuseGracePeriod: .zero,
                now: { time.now }
            )
        )
        .start()
        let discoveryTransport = AsyncHTTPClientTransport()
        let discovered = try await ProviderConfiguration.discover(
            issuer: provider.issuer.absoluteString,
            clientID: "tether-dev-client",
            redirectURI: URL(string: "http://127.0.0.1/callback"),
            providerID: "dev",
            transport: discoveryTransport
        )
        try await discoveryTransport.shutdown()

        var costs: [CostRow] = []
        if options.costIterations > 0 {
            costs = try await StoreCosts.run(
                database: database,
                provider: provider,
                discovered: discovered,
                scopes: options.scopes,
                iterations: options.costIterations
            )
            say("")
            say(CostRow.table(costs))
            say("")
        }

        var results: [SchedulerRun.Result] = []
        for workers in options.workers {
            let run = SchedulerRun(
                options: options,
                workers: workers,
                database: database,
                provider: provider,
                discovered: discovered,
                time: time
            )
            results.append(try await run.run())
            say("")
        }
        await provider.stop()

        say("")
        say("command: \(CommandLine.arguments.joined(separator: " "))")
        say(machine.summary)
        say(options.summary)
        say("")
        if !costs.isEmpty {
            say(CostRow.table(costs))
            say("")
        }
        if !results.isEmpty {
            say(SchedulerRun.Result.table(results, options: options))
            say("")
            say(SchedulerRun.Result.detailTable(results))
        }
    }
}

/// The command line.
struct Options {
    var connections = 100_000
    var workers = [1, 2, 4]
    /// The access tokens' lifetime L, in seconds.
    var lifetime = 600
    /// The longest one K may run, in seconds; by default the window plus two minutes.
    var timeLimit: Int?
    var batchSize = 50
    var concurrency = 8
    var seedConcurrency = 8
    var costIterations = 2_000
    /// The scopes of the seeded grants. Without `openid` the provider signs no ID token per refresh.
    var scopes = ["offline_access"]
    var help = false

    static let usage = """
        usage: SchedulerBenchmarks [options]   (with TETHER_POSTGRES_URL set, e.g. by Scripts/start-postgres.sh)
          --connections N       connections to keep fresh (default 100000)
          --workers 1,2,4       numbers of workers to measure, one run each (default 1,2,4)
          --lifetime S          access-token lifetime L in seconds (default 600)
          --time-limit S        longest run per K in seconds (default: the refresh window plus 120)
          --batch-size N        the scheduler's batch size (default 50)
          --concurrency N       refreshes at once per worker (default 8)
          --seed-concurrency N  concurrent seeding tasks (default 8)
          --cost-iterations N   restore()/read() iterations per store, 0 to skip the cost table (default 2000)
          --scopes a,b          scopes of the seeded grants (default offline_access; with openid the provider
                                signs an RS256 ID token on every refresh)
        """

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        func value(_ name: String) throws -> String {
            guard let next = rest.popFirst() else { throw OptionError("\(name) needs a value") }
            return next
        }
        func number(_ name: String, minimum: Int) throws -> Int {
            let text = try value(name)
            guard let number = Int(text.replacingOccurrences(of: "_", with: "")), number >= minimum else {
                throw OptionError("\(name) needs a whole number of at least \(minimum), not \(text)")
            }
            return number
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--connections": connections = try number(argument, minimum: 1)
            case "--lifetime": lifetime = try number(argument, minimum: 20)
            case "--time-limit": timeLimit = try number(argument, minimum: 1)
            case "--batch-size": batchSize = try number(argument, minimum: 1)
            case "--concurrency": concurrency = try number(argument, minimum: 1)
            case "--seed-concurrency": seedConcurrency = try number(argument, minimum: 1)
            case "--cost-iterations": costIterations = try number(argument, minimum: 0)
            case "--workers":
                let text = try value(argument)
                let parsed = text.split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
                guard !parsed.isEmpty else { throw OptionError("--workers needs numbers such as 1,2,4") }
                workers = parsed
            case "--scopes":
                scopes = try value(argument).split(separator: ",").map(String.init)
                guard scopes.contains("offline_access") else {
                    throw OptionError("--scopes needs offline_access, or the provider issues no refresh token")
                }
            case "--help", "-h": help = true
            default: throw OptionError("unknown argument \(argument)")
            }
        }
    }

    /// The sessions' configuration the schedulers use (the defaults: leeway 5 minutes, at most a quarter of the
    /// lifetime).
    var session: Session.Configuration { Session.Configuration() }

    /// The effective leeway ℓ for tokens of lifetime L, in seconds.
    var leeway: Double {
        let configuration = session
        let fraction = Double(lifetime) * configuration.maximumLeewayFraction
        return min(Double(configuration.leeway.components.seconds), fraction)
    }

    /// The refresh window W = L − ℓ: due times are spread uniformly over it, and a refreshed token is due again
    /// W after its refresh.
    var window: Double { Double(lifetime) - leeway }

    var limit: Double { Double(timeLimit ?? Int(window.rounded(.up)) + 120) }

    var summary: String {
        "load: N = \(connections) connections, token lifetime L = \(lifetime) s, leeway ℓ = \(Int(leeway)) s, "
            + "due times spread over W = L − ℓ = \(Int(window)) s (offered "
            + String(format: "%.1f", Double(connections) / window) + " refreshes/s), time limit \(Int(limit)) s "
            + "per K; the K workers run in this process, each with its own pool; scheduler batch \(batchSize), "
            + "concurrency \(concurrency) per worker; scopes "
            + scopes.joined(separator: " ")
    }
}

struct OptionError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What the figures were measured on.
struct Machine {
    var summary: String

    static func describe(database: PostgresClient.Configuration) async -> Machine {
        #if DEBUG
        let build = "debug"
        #else
        let build = "release"
        #endif
        let info = ProcessInfo.processInfo
        let memory = Double(info.physicalMemory) / Double(1 << 30)
        let system = osName()
        let load =
            (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
            .split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
        let server = (try? await PostgresProbe.serverVersion(database)) ?? "?"
        let date = ISO8601DateFormatter().string(from: Date())
        let gigabytes = String(format: "%.0f", memory)
        return Machine(
            summary: "machine: \(system), nproc \(info.activeProcessorCount), \(gigabytes) GiB, \(build) build, "
                + "PostgreSQL \(server), load average \(load) at start, \(date)"
        )
    }

    static func osName() -> String {
        guard let text = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8) else {
            return ProcessInfo.processInfo.operatingSystemVersionString
        }
        for line in text.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
            return line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return ProcessInfo.processInfo.operatingSystemVersionString
    }
}
