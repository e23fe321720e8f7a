import Foundation
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Soak under faults: `tether token` loops in separate processes sharing one vault, against the development
/// provider with 2-second access tokens, rotation and reuse detection, while a share of the token requests fail
/// transiently and the provider's clock is off. Then the faults stop and every process must print a valid token.
///
/// Off unless `TETHER_SOAK=1`; it stops by itself. See docs/reliability.md for the settings and the figures.
@Suite struct SoakTests {
    @Test(
        .enabled(if: SoakSettings.isEnabled, "Set TETHER_SOAK=1 to run the soak (see docs/reliability.md)"),
        .timeLimit(.minutes(30))
    )
    func tokenLoopsKeepTheGrantUnderFaults() async throws {
        let settings = SoakSettings(ProcessInfo.processInfo.environment)
        var configuration = DevProvider.Configuration(
            accessTokenLifetime: .seconds(2),
            refreshTokenRotation: true,
            reuseDetection: true,
            reuseGracePeriod: .seconds(settings.graceSeconds)
        )
        configuration.faults.retryAfterSeconds = 1
        let cli = try await CLI.start(configuration)
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let admin = cli.provider.admin
        // A dropped answer after a rotation is only survivable with a grace period (see RefreshOutcomeTests).
        let kinds = DevProvider.RandomFaults.Kind.all.filter { settings.graceSeconds > 0 || $0 != .droppedAnswer }
        await admin.setRandomFaults(
            DevProvider.RandomFaults(rate: Double(settings.faultPercent) / 100, kinds: kinds, seed: settings.seed)
        )
        await admin.setClockSkew(.seconds(settings.skewSeconds))

        let tally = SoakTally()
        let deadline = ContinuousClock.now.advanced(by: .seconds(settings.seconds))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<settings.processes {
                group.addTask {
                    while ContinuousClock.now < deadline {
                        let running = try cli.launch(["token"])
                        await tally.started(running)
                        let result = try await running.finish(timeout: .seconds(300))
                        await tally.finished(running, result)
                    }
                }
            }
            if settings.kill {
                group.addTask {
                    var random = SystemRandomNumberGenerator()
                    while ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(Int.random(in: 100...500, using: &random)))
                        await tally.killOne()
                    }
                }
            }
            try await group.waitForAll()
        }

        // The faults stop; every process must now print a token the provider accepts.
        await admin.setRandomFaults(nil)
        await admin.setClockSkew(.zero)
        let finals = try (0..<settings.processes).map { _ in try cli.launch(["token"]) }
        var finalTokens: [String] = []
        for running in finals {
            let result = try await running.finish(timeout: .seconds(300))
            await tally.finished(running, result, final: true)
            if result.status == 0 { finalTokens.append(result.trimmedOutput) }
        }
        // Each printed token is one the provider issued for the live grant (it may have expired on a loaded
        // machine before the check), and a token printed now is accepted.
        var verdicts: [CLI.TokenVerdict] = []
        for token in Set(finalTokens) { verdicts.append(try await cli.verdict(on: token)) }
        let accepted = verdicts.count { $0 == .accepted }
        let expired = verdicts.count { $0 == .expired }
        let refused = verdicts.count - accepted - expired
        let nextAccepted = try await cli.expectTheNextTokenIsAccepted()

        let provider = await admin.counters()
        let counts = await tally.counts
        let line = [
            "soak: \(settings.seconds) s, \(settings.processes) processes, \(settings.faultPercent) % faults,",
            "seed \(settings.seed), grace \(settings.graceSeconds) s, skew \(settings.skewSeconds) s:",
            "runs=\(counts.runs) ok=\(counts.succeeded)",
            "refreshes=\(provider[.refreshes]) rotations=\(provider[.rotations])",
            "grace_replays=\(provider[.graceReplays]) reuse_detections=\(provider[.reuseDetections])",
            "token_requests=\(provider.requests(to: .token))",
            "faults: server_errors=\(provider[.injectedServerErrors]) rate_limits=\(provider[.injectedRateLimits])",
            "dropped_connections=\(provider[.droppedConnections]) dropped_answers=\(provider[.droppedAnswers])",
            "latencies=\(provider[.injectedLatencies])",
            "failures: unavailable=\(counts.unavailable) signed_out=\(counts.signedOut) vault=\(counts.vault)",
            "other=\(counts.other) kills=\(counts.kills)",
            "final: \(finalTokens.count)/\(settings.processes) printed a token, \(Set(finalTokens).count) distinct:",
            "\(accepted) accepted, \(expired) expired before the check, \(refused) refused;",
            "next token accepted: \(nextAccepted)",
        ].joined(separator: " ")
        print(line)

        #expect(counts.vault == 0, "a vault failed to decode: \(counts.samples)")
        #expect(provider[.reuseDetections] == 0)
        #expect(counts.signedOut == 0, "a process ended signed out: \(counts.samples)")
        #expect(counts.other == 0, "unexpected failures: \(counts.samples)")
        #expect(finalTokens.count == settings.processes, "after the faults: \(counts.samples)")
        #expect(refused == 0, "the provider refused \(refused) of the final tokens")
    }
}

/// The soak's settings, from the environment.
struct SoakSettings: Sendable {
    static var isEnabled: Bool { ProcessInfo.processInfo.environment["TETHER_SOAK"] == "1" }

    /// `TETHER_SOAK_SECONDS`: how long the loops run; 20 by default (300 for the documented run).
    var seconds = 20
    /// `TETHER_SOAK_PROCESSES`: concurrent `tether token` loops; 8 by default.
    var processes = 8
    /// `TETHER_SOAK_FAULT_PERCENT`: the share of token requests that get a random fault; 30 by default.
    var faultPercent = 30
    /// `TETHER_SOAK_SEED`: the seed of the provider's random faults; 1 by default.
    var seed: UInt64 = 1
    /// `TETHER_SOAK_GRACE`: the provider's reuse grace period in seconds; 60 by default. With 0, dropped answers are
    /// left out of the faults (each one would end the grant, by design).
    var graceSeconds = 60
    /// `TETHER_SOAK_SKEW`: how far the provider's clock is off, in seconds; 60 by default.
    var skewSeconds = 60
    /// `TETHER_SOAK_KILL=1`: also send SIGKILL or SIGTERM to a random running `tether` every 0.1–0.5 s.
    var kill = false

    init(_ environment: [String: String]) {
        func number(_ name: String) -> Int? { environment[name].flatMap { Int($0) } }
        seconds = max(1, number("TETHER_SOAK_SECONDS") ?? seconds)
        processes = max(1, number("TETHER_SOAK_PROCESSES") ?? processes)
        faultPercent = min(100, max(0, number("TETHER_SOAK_FAULT_PERCENT") ?? faultPercent))
        seed = environment["TETHER_SOAK_SEED"].flatMap { UInt64($0) } ?? seed
        graceSeconds = max(0, number("TETHER_SOAK_GRACE") ?? graceSeconds)
        skewSeconds = number("TETHER_SOAK_SKEW") ?? skewSeconds
        kill = environment["TETHER_SOAK_KILL"] == "1"
    }
}

/// What the loops saw.
actor SoakTally {
    struct Counts: Sendable {
        var runs = 0
        var succeeded = 0
        /// Exit 4: the provider could not be reached or kept failing; the tokens were kept.
        var unavailable = 0
        /// Exit 3 or the sign-in message.
        var signedOut = 0
        /// A vault record that did not decode.
        var vault = 0
        var other = 0
        var kills = 0
        /// A few of the failures' messages, for the report.
        var samples: [String] = []
    }

    private(set) var counts = Counts()
    private var running: [ObjectIdentifier: CLI.Running] = [:]
    private var killed: Set<ObjectIdentifier> = []

    func started(_ process: CLI.Running) {
        running[ObjectIdentifier(process)] = process
    }

    func finished(_ process: CLI.Running, _ result: CLI.Result, final: Bool = false) {
        let id = ObjectIdentifier(process)
        running[id] = nil
        if killed.remove(id) != nil, process.process.terminationReason == .uncaughtSignal || result.status > 128 {
            return
        }
        counts.runs += 1
        let stderr = result.stderr
        switch result.status {
        case 0 where !result.trimmedOutput.isEmpty:
            counts.succeeded += 1
            return
        case 3:
            counts.signedOut += 1
        case 4:
            counts.unavailable += 1
        default:
            if stderr.contains("tether login") {
                counts.signedOut += 1
            } else if stderr.contains("vault record") {
                counts.vault += 1
            } else {
                counts.other += 1
            }
        }
        if counts.samples.count < 10 {
            counts.samples.append("\(final ? "final " : "")exit \(result.status): \(stderr.prefix(300))")
        }
    }

    func killOne() {
        guard let (id, process) = running.randomElement(), process.process.isRunning else { return }
        let signal = Bool.random() ? SIGKILL : SIGTERM
        if Foundation.kill(process.process.processIdentifier, signal) == 0 {
            killed.insert(id)
            counts.kills += 1
        }
    }
}
