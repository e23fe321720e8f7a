import Foundation
import Testing
import Tether
import TetherTestSupport
import TetherTesting

/// Several real processes share one vault and one strict issuer (rotation + reuse detection, state in a file).
struct CrossProcessRefreshTests {
    @Test(.timeLimit(.minutes(3)))
    func processesSharingAVaultNeverReuseARotatedRefreshToken() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let stateFile = fixture.directory.appendingPathComponent("issuer-state.json")
        let lifetimeMillis = 1_000
        let seconds = 4.0
        let issuer = TestIssuer(lifetime: .milliseconds(lifetimeMillis), stateFile: stateFile)
        let store = try fixture.store()
        let account = Account(providerID: "dev", subject: "user-1")
        try await store.write(
            Connection(id: "shared", account: account, tokens: try issuer.signInTokens(subject: "user-1"))
        )

        let started = ContinuousClock.now
        let probes = try (0..<4).map { _ in
            try ProbeProcess.launch(
                ["refresh-loop", fixture.directory.path, stateFile.path, "shared", "\(seconds)", "\(lifetimeMillis)"],
                key: fixture.key
            )
        }
        defer { for probe in probes { probe.kill() } }
        for probe in probes {
            #expect(await probe.waitForExit(timeout: .seconds(30)))
            #expect(probe.process.terminationReason == .exit)
            #expect(probe.process.terminationStatus == 0, "a process ended without a token the issuer accepts")
        }

        // The processes start and stop at different moments on a busy machine, so tokens are needed for longer
        // than each process's own `seconds`.
        let span = (ContinuousClock.now - started) / .seconds(1)
        let counters = try issuer.counters()
        #expect(counters.reuseDetections == 0)
        #expect(counters.failedRefreshes == 0)
        // A 1 s token is refreshed 0.25 s before expiry, once for all four processes: about every 0.75 s. Four
        // processes refreshing on their own would need four times as many. A loaded machine runs the loops for
        // less of their time (a run saw 3 refreshes in 4 s), so the floor only says that refreshes happened.
        #expect(counters.refreshes >= 2, "refreshes: \(counters.refreshes)")
        #expect(Double(counters.refreshes) <= span / 0.75 + 2, "refreshes: \(counters.refreshes) in \(span) s")
        let stored = try #require(try await store.read("shared"))
        // The stored token is one the issuer issued; it may have expired since the processes stopped.
        #expect(try issuer.issued(try #require(stored.tokens.accessToken)))
    }
}
