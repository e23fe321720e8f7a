import Foundation
import Testing
import Tether
import TetherTestSupport
import TetherTesting

/// Crash safety and the cross-process lease, checked with a real helper process (`TetherStoreProbe`).
@Suite(.timeLimit(.minutes(2)))
struct VaultCrashTests {
    @Test func killedWriterNeverLeavesADamagedOrOlderRecord() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(60))
        let id: ConnectionID = "crash"
        var lastCounter = 0
        var iterations = 0

        // Up to 40 kills within 60 s. Each one checks the whole property, so a machine loaded by the rest of the suite
        // (a probe then takes seconds to start) runs fewer; fewer than 10 means the probe itself is in trouble.
        while iterations < 40 {
            guard clock.now < deadline else {
                if iterations < 10 {
                    Issue.record("The crash test exceeded 60 s after \(iterations) iterations")
                }
                break
            }
            let probe = try ProbeProcess.launch(
                ["write-loop", fixture.directory.path, id.rawValue, "100000000"],
                key: fixture.key
            )
            guard try await probe.waitForLine("ready", timeout: .seconds(10)) else {
                probe.kill()
                Issue.record("The probe did not open the vault within 10 s")
                break
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...80)))
            probe.kill()
            #expect(await probe.waitForExit(timeout: .seconds(10)))
            #expect(probe.process.terminationReason == .uncaughtSignal, "the probe stopped before it was killed")

            // A fresh store, as a process starting after the crash would open it.
            let store = try fixture.store()
            if let record = try await store.read(id) {
                let counter = try #require(record.metadata["counter"].flatMap(Int.init))
                #expect(counter >= lastCounter, "the counter went back from \(lastCounter) to \(counter)")
                #expect(record.version == UInt64(counter), "version \(record.version) for counter \(counter)")
                lastCounter = counter
            } else {
                #expect(lastCounter == 0, "the record vanished after counter \(lastCounter)")
            }
            #expect(try await store.list() == (lastCounter == 0 ? [] : [id]))
            iterations += 1
        }
        #expect(lastCounter > 0, "the probe never completed a write before it was killed")

        // The next write cleans up whatever temporary file a killed writer left behind.
        let store = try fixture.store()
        var record = try #require(try await store.read(id))
        record.metadata["counter"] = "\(lastCounter + 1)"
        _ = try await store.write(record, expecting: .version(record.version))
        let entries = try FileManager.default.contentsOfDirectory(
            atPath: fixture.directory.appendingPathComponent("records").path
        )
        #expect(entries == ["\(VaultStore.fileStem(for: id)).vault"])
    }

    @Test func leaseIsExclusiveAcrossProcesses() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        // The probe holds the lease until its standard input closes: however loaded the machine, the lease is
        // still held when this process asks for it (a fixed hold of 5 s once ran out first under load).
        let probe = try ProbeProcess.launch(
            ["hold-lease", fixture.directory.path, "google", "input"],
            key: fixture.key
        )
        defer { probe.kill() }
        try #require(try await probe.waitForLine("held", timeout: .seconds(10)), "the probe did not take the lease")

        let store = try fixture.store()
        await #expect(throws: CredentialStoreError.leaseTimeout) {
            try await store.acquireRefreshLease(for: "google", timeout: .milliseconds(50))
        }
        probe.closeInput()
        let lease = try await store.acquireRefreshLease(for: "google", timeout: .seconds(20))
        #expect(await probe.waitForExit(timeout: .seconds(10)))
        #expect(probe.process.terminationStatus == 0)
        await lease.release()
    }

    @Test func leaseOfAKilledHolderIsFreed() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let probe = try ProbeProcess.launch(
            ["hold-lease", fixture.directory.path, "google", "60000"],
            key: fixture.key
        )
        defer { probe.kill() }
        try #require(try await probe.waitForLine("held", timeout: .seconds(10)), "the probe did not take the lease")

        let store = try fixture.store()
        await #expect(throws: CredentialStoreError.leaseTimeout) {
            try await store.acquireRefreshLease(for: "google", timeout: .milliseconds(20))
        }
        probe.kill()
        #expect(await probe.waitForExit(timeout: .seconds(10)))
        let lease = try await store.acquireRefreshLease(for: "google", timeout: .seconds(5))
        await lease.release()
    }
}
