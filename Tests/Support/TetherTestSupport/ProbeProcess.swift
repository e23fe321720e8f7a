package import Foundation
package import Tether

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A running `TetherStoreProbe`, with its standard output readable line by line. Started with `posix_spawn`
/// (``SpawnedProcess``), not Foundation's `Process`, whose `run()` can crash a test process that holds many descriptors.
package final class ProbeProcess: @unchecked Sendable {  // driven by one task at a time
    package let process: SpawnedProcess
    /// The read end of the probe's standard output.
    private let output: Int32
    /// The write end of the probe's standard input; -1 once closed.
    private var input: Int32
    private var buffer = ""

    private init(process: SpawnedProcess, output: Int32, input: Int32) {
        self.process = process
        self.output = output
        self.input = input
    }

    deinit {
        close(output)
        if input >= 0 { close(input) }
    }

    package struct Missing: Error, CustomStringConvertible {
        let path: String
        package var description: String {
            "TetherStoreProbe not found at \(path); run `swift build --build-tests` first"
        }
    }

    /// The probe executable, beside the test bundle in `.build/<triple>/debug/`.
    package static func executable() throws -> URL {
        let testBinary =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        let probe = URL(fileURLWithPath: testBinary).deletingLastPathComponent()
            .appendingPathComponent("TetherStoreProbe")
        guard FileManager.default.isExecutableFile(atPath: probe.path) else { throw Missing(path: probe.path) }
        return probe
    }

    /// Starts the probe with `arguments`, and `key` in `TETHER_VAULT_KEY` when given.
    package static func launch(_ arguments: [String], key: VaultKey? = nil) throws -> ProbeProcess {
        var environment = ProcessInfo.processInfo.environment
        environment["TETHER_VAULT_KEY"] = key?.revealedBase64
        let output = try ClosingPipe()
        let input = try ClosingPipe()
        let process: SpawnedProcess
        do {
            process = try SpawnedProcess(
                [try executable().path] + arguments,
                environment: environment,
                input: input.reading,
                output: output.writing,
                error: 2
            )
        } catch {
            for descriptor in [output.reading, output.writing, input.reading, input.writing] { close(descriptor) }
            throw error
        }
        // The child has its own copies of these ends.
        close(output.writing)
        close(input.reading)
        return ProbeProcess(process: process, output: output.reading, input: input.writing)
    }

    /// Closes the probe's standard input, which subcommands that wait for it take as the signal to go on.
    package func closeInput() {
        guard input >= 0 else { return }
        close(input)
        input = -1
    }

    /// Waits until the probe prints `line`, on a thread of its own: the blocking `poll` must not hold one of the
    /// few threads that run every test's tasks.
    /// - Returns: Whether it did before `timeout` (or before it closed its output).
    package func waitForLine(_ line: String, timeout: Duration) async throws -> Bool {
        try await Self.offThePool { try self.blockingWaitForLine(line, timeout: timeout) }
    }

    private func blockingWaitForLine(_ line: String, timeout: Duration) throws -> Bool {
        let fd = output
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
    package func kill() {
        if process.isRunning {
            #if canImport(Glibc)
            _ = Glibc.kill(process.processIdentifier, SIGKILL)
            #else
            _ = Darwin.kill(process.processIdentifier, SIGKILL)
            #endif
        }
    }

    /// Waits for the probe to exit, on a thread of its own (see ``waitForLine(_:timeout:)``).
    /// - Returns: Whether it exited within `timeout`.
    package func waitForExit(timeout: Duration) async -> Bool {
        (try? await Self.offThePool { self.blockingWaitForExit(timeout: timeout) }) ?? false
    }

    /// Runs blocking work on a new thread and resumes the caller when it is done.
    private static func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    private func blockingWaitForExit(timeout: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while process.isRunning {
            guard clock.now < deadline else { return false }
            usleep(2_000)
        }
        return true
    }
}
