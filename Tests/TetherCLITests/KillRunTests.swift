import Foundation
import Testing
import Tether
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Eight processes loop `tether token` against a provider with 2-second access tokens and rotation with reuse
/// detection, while a killer sends `SIGKILL` or `SIGTERM` to a random one every 0.1–0.5 s. It stops by itself.
///
/// It loads the machine (eight process loops), so it runs alone, after the suite (`.ci/run` runs it for 10 s):
///
///     TETHER_KILL_RUN=1 swift test --skip-build --filter KillRunTests
///     TETHER_KILL_RUN=1 TETHER_KILL_RUN_SECONDS=60 TETHER_KILL_RUN_GRACE=10 swift test --skip-build --filter KillRunTests
///
/// `TETHER_KILL_RUN_SECONDS` sets the duration (default 10), `TETHER_KILL_RUN_GRACE` the provider's reuse grace
/// period in seconds (default 0). The last line printed holds the counts.
@Suite(.timeLimit(.minutes(30)))
struct KillRunTests {
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["TETHER_KILL_RUN"] == "1",
            "Set TETHER_KILL_RUN=1; run it alone"
        )
    )
    func killedTokenProcessesNeverLoseTheGrant() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seconds = environment["TETHER_KILL_RUN_SECONDS"].flatMap(Int.init) ?? 10
        let grace = environment["TETHER_KILL_RUN_GRACE"].flatMap(Int.init) ?? 0
        let cli = try await CLI.start(
            DevProvider.Configuration(
                accessTokenLifetime: .seconds(2),
                refreshTokenRotation: true,
                reuseDetection: true,
                reuseGracePeriod: .seconds(grace)
            )
        )
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let tally = Tally()
        let deadline = ContinuousClock.now.advanced(by: .seconds(seconds))

        try await withThrowingTaskGroup(of: Void.self) { group in
            for slot in 0..<8 {
                group.addTask {
                    while ContinuousClock.now < deadline {
                        let running = try cli.launch(["token"])
                        tally.started(slot, running.process)
                        let result = try await running.finish(timeout: .seconds(200))
                        tally.finished(slot, result, reason: running.process.terminationReason)
                    }
                }
            }
            group.addTask {
                while ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(Int.random(in: 100...500)))
                    tally.killOne()
                }
            }
            try await group.waitForAll()
        }

        let lastAccepted = try await cli.expectTheNextTokenIsAccepted()

        let counters = await cli.provider.admin.counters()
        let counts = tally.counts
        #expect(counters[.reuseDetections] == 0)
        #expect(counts.toldToSignIn == 0, "failures: \(counts.failures.prefix(3))")
        print(
            "kill-run: seconds=\(seconds) grace=\(grace) kills=\(counts.kills) (SIGKILL \(counts.sigkills), "
                + "SIGTERM \(counts.kills - counts.sigkills)) killed-processes=\(counts.killed) "
                + "tokens-printed=\(counts.tokens) other-failures=\(counts.otherFailures) "
                + "refreshes=\(counters[.refreshes]) grace-replays=\(counters[.graceReplays]) "
                + "reuse-detections=\(counters[.reuseDetections]) told-to-sign-in=\(counts.toldToSignIn) "
                + "last-token-accepted=\(lastAccepted)"
        )
    }

    /// What the loops and the killer did.
    final class Tally: @unchecked Sendable {
        struct Counts {
            var kills = 0
            var sigkills = 0
            var killed = 0
            var tokens = 0
            var toldToSignIn = 0
            var otherFailures = 0
            var failures: [String] = []
        }

        private let lock = NSLock()
        private var running: [Int: SpawnedProcess] = [:]
        private var state = Counts()

        var counts: Counts { lock.withLock { state } }

        func started(_ slot: Int, _ process: SpawnedProcess) {
            lock.withLock { running[slot] = process }
        }

        func finished(_ slot: Int, _ result: CLI.Result, reason: SpawnedProcess.TerminationReason) {
            lock.withLock {
                running[slot] = nil
                if reason == .uncaughtSignal {
                    state.killed += 1
                } else if result.status == 0 {
                    state.tokens += 1
                } else if result.status == 3 {
                    state.toldToSignIn += 1
                    state.failures.append(result.stderr)
                } else {
                    state.otherFailures += 1
                    state.failures.append(result.stderr)
                }
            }
        }

        /// Sends `SIGKILL` or `SIGTERM` to a random process that has not been reaped yet (whose pid cannot have
        /// been reused).
        func killOne() {
            lock.withLock {
                guard let process = running.values.filter(\.isRunning).randomElement() else { return }
                let pid = process.processIdentifier
                let signo = Bool.random() ? SIGKILL : SIGTERM
                if kill(pid, signo) == 0 {
                    state.kills += 1
                    if signo == SIGKILL { state.sigkills += 1 }
                }
            }
        }
    }
}
