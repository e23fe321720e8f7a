import Foundation
import Testing
import Tether
import TetherTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

        while iterations < 40 {
            guard clock.now < deadline else {
                Issue.record("The crash test exceeded 60 s after \(iterations) iterations")
                break
            }
            let probe = try ProbeProcess.launch(
                ["write-loop", fixture.directory.path, id.rawValue, "100000000"],
                key: fixture.key
            )
            guard try probe.waitForLine("ready", timeout: .seconds(10)) else {
                probe.kill()
                Issue.record("The probe did not open the vault within 10 s")
                break
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...80)))
            probe.kill()
            #expect(probe.waitForExit(timeout: .seconds(10)))
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
        // The probe holds the lease for 5 s: far longer than the gap between its "held" and the attempt below, even
        // on a loaded machine (with 0.5 s a loaded run once saw the lease already released).
        let probe = try ProbeProcess.launch(["hold-lease", fixture.directory.path, "google", "5000"], key: fixture.key)
        defer { probe.kill() }
        try #require(try probe.waitForLine("held", timeout: .seconds(10)), "the probe did not take the lease")

        let store = try fixture.store()
        await #expect(throws: CredentialStoreError.leaseTimeout) {
            try await store.acquireRefreshLease(for: "google", timeout: .milliseconds(50))
        }
        let lease = try await store.acquireRefreshLease(for: "google", timeout: .seconds(20))
        #expect(probe.waitForExit(timeout: .seconds(10)))
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
        try #require(try probe.waitForLine("held", timeout: .seconds(10)), "the probe did not take the lease")

        let store = try fixture.store()
        await #expect(throws: CredentialStoreError.leaseTimeout) {
            try await store.acquireRefreshLease(for: "google", timeout: .milliseconds(20))
        }
        probe.kill()
        #expect(probe.waitForExit(timeout: .seconds(10)))
        let lease = try await store.acquireRefreshLease(for: "google", timeout: .seconds(5))
        await lease.release()
    }
}

/// A running `TetherStoreProbe`, with its standard output readable line by line.
final class ProbeProcess {
    let process = Process()
    private let output = Pipe()
    private var buffer = ""

    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String {
            "TetherStoreProbe not found at \(path); run `swift build --build-tests` first"
        }
    }

    /// The probe executable, beside the test bundle in `.build/<triple>/debug/`.
    static func executable() throws -> URL {
        let testBinary =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        let probe = URL(fileURLWithPath: testBinary).deletingLastPathComponent()
            .appendingPathComponent("TetherStoreProbe")
        guard FileManager.default.isExecutableFile(atPath: probe.path) else { throw Missing(path: probe.path) }
        return probe
    }

    static func launch(_ arguments: [String], key: VaultKey) throws -> ProbeProcess {
        let probe = ProbeProcess()
        probe.process.executableURL = try executable()
        probe.process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["TETHER_VAULT_KEY"] = key.revealedBase64
        probe.process.environment = environment
        probe.process.standardOutput = probe.output
        try probe.process.run()
        return probe
    }

    /// Waits until the probe prints `line`.
    /// - Returns: Whether it did before `timeout` (or before it closed its output).
    func waitForLine(_ line: String, timeout: Duration) throws -> Bool {
        let fd = output.fileHandleForReading.fileDescriptor
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while !buffer.split(separator: "\n").contains(Substring(line)) {
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let millis = Int32(
                max(1, remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
            )
            let ready = poll(&descriptor, 1, millis)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &chunk, chunk.count)
            if count <= 0 { return false }
            buffer += String(decoding: chunk[0..<count], as: UTF8.self)
        }
        return true
    }

    /// Sends SIGKILL if the probe is still running.
    func kill() {
        if process.isRunning {
            #if canImport(Glibc)
            _ = Glibc.kill(process.processIdentifier, SIGKILL)
            #else
            _ = Darwin.kill(process.processIdentifier, SIGKILL)
            #endif
        }
    }

    /// Waits for the probe to exit.
    /// - Returns: Whether it exited within `timeout`.
    func waitForExit(timeout: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while process.isRunning {
            guard clock.now < deadline else { return false }
            usleep(2_000)
        }
        return true
    }
}
