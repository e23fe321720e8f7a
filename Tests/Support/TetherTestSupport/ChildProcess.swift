package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process of a test (the `tether` binary, a browser stand-in), whose standard output is collected and whose
/// standard error can be read while it runs. Both pipes are drained on threads of their own, so that a chatty child
/// never blocks on a full pipe and no test task is held by a blocking read.
package final class ChildProcess: @unchecked Sendable {  // the collected output is guarded by `lock`
    package let process: Process
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

    /// Reads the pipes of `process`, which has been started with them as its standard output and error.
    package init(process: Process, stdout: Pipe, stderr: Pipe) {
        self.process = process
        readers.enter()
        Thread.detachNewThread { [self] in
            let data = stdout.fileHandleForReading.readDataToEndOfFile()
            lock.withLock { stdoutData = data }
            readers.leave()
        }
        readers.enter()
        Thread.detachNewThread { [self] in
            let handle = stderr.fileHandleForReading
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.withLock { stderrText += String(decoding: chunk, as: UTF8.self) }
            }
            readers.leave()
        }
    }

    /// Starts `command` (an absolute path, then its arguments) with `environment` and no standard input.
    package convenience init(_ command: [String], environment: [String: String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = environment
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.init(process: process, stdout: stdout, stderr: stderr)
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
