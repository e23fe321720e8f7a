import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process of a test (the `tether` binary, a browser stand-in), whose standard output is collected and whose
/// standard error can be read while it runs. Both pipes are drained on threads of their own, so that a chatty child
/// never blocks on a full pipe and no test task is held by a blocking read. Started with `posix_spawn`
/// (``SpawnedProcess``), not Foundation's `Process`.
package final class ChildProcess: @unchecked Sendable {  // the collected output is guarded by `lock`
    package let process: SpawnedProcess
    private let lock = NSLock()
    private var stdoutData = Data()
    private var stderrText = ""
    private let readers = DispatchGroup()

    /// What a finished child printed, and how it ended.
    package struct Result: Sendable {
        package let status: Int32
        package let stdout: String
        package let stderr: String

        /// Standard output without surrounding white space: a token, a JSON document.
        package var trimmedOutput: String { stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// A child that did not do what the test waited for.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) { self.description = description }
    }

    /// Starts `command` (an absolute path, then its arguments) with `environment`, and `input` on its standard
    /// input (written on a thread of its own, then closed), or none.
    package init(_ command: [String], input: [UInt8]? = nil, environment: [String: String]) throws {
        let stdout = try ClosingPipe()
        let stderr = try ClosingPipe()
        let stdin = try input.map { _ in try ClosingPipe() }
        let nullDevice = stdin == nil ? open("/dev/null", O_RDONLY | O_CLOEXEC) : -1
        do {
            process = try SpawnedProcess(
                command,
                environment: environment,
                input: stdin?.reading ?? nullDevice,
                output: stdout.writing,
                error: stderr.writing
            )
        } catch {
            for descriptor in [stdout.reading, stdout.writing, stderr.reading, stderr.writing] { close(descriptor) }
            if let stdin { for descriptor in [stdin.reading, stdin.writing] { close(descriptor) } }
            if nullDevice >= 0 { close(nullDevice) }
            throw error
        }
        // The child has its own copies; the parent keeps only its ends.
        close(stdout.writing)
        close(stderr.writing)
        if let stdin { close(stdin.reading) }
        if nullDevice >= 0 { close(nullDevice) }
        if let stdin, let input {
            Thread.detachNewThread { ClosingPipe.writeAll(input, to: stdin.writing) }
        }
        readers.enter()
        Thread.detachNewThread { [self] in
            var collected = Data()
            ClosingPipe.drain(stdout.reading) { collected.append($0) }
            lock.withLock { stdoutData = collected }
            readers.leave()
        }
        readers.enter()
        Thread.detachNewThread { [self] in
            ClosingPipe.drain(stderr.reading) { chunk in
                lock.withLock { stderrText += String(decoding: chunk, as: UTF8.self) }
            }
            readers.leave()
        }
    }

    /// Runs `command` to completion, killing it after `timeout`.
    package static func run(
        _ command: [String],
        environment: [String: String],
        timeout: Duration = .seconds(60)
    ) async throws -> Result {
        try await ChildProcess(command, environment: environment).finish(timeout: timeout)
    }

    private var name: String { process.executableURL?.lastPathComponent ?? "the child process" }

    /// Standard error so far.
    package var standardError: String { lock.withLock { stderrText } }

    /// Waits until standard error has a line matching `predicate`, and returns it.
    package func waitForErrorLine(timeout: Duration, where predicate: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if let line = standardError.split(separator: "\n").map(String.init).first(where: predicate) {
                return line
            }
            if !process.isRunning {
                readers.wait()
                throw Failure(description: "`\(name)` exited \(process.terminationStatus): \(standardError)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        kill()
        throw Failure(description: "no matching line on standard error within \(timeout): \(standardError)")
    }

    /// Sends `SIGKILL` while the child runs.
    package func kill() {
        if process.isRunning { _ = Foundation.kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits for the exit (killing the child after `timeout`) and returns what it printed.
    package func finish(timeout: Duration) async throws -> Result {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                kill()
                throw Failure(description: "`\(name)` did not finish within \(timeout): \(standardError)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.waitUntilExit()
        readers.wait()
        return lock.withLock {
            Result(
                status: process.terminationStatus,
                stdout: String(decoding: stdoutData, as: UTF8.self),
                stderr: stderrText
            )
        }
    }
}
