import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process (the `tether` binary, a browser stand-in), its standard error readable while it runs.
final class Subprocess: @unchecked Sendable {  // the mutable text is guarded by `lock`
    let process = Process()
    private let stdout = Pipe()
    private let stderr = Pipe()
    private let lock = NSLock()
    private var stdoutData = Data()
    private var stderrText = ""
    private let readers = DispatchGroup()

    struct Result: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String

        /// Standard output without surrounding white space: a token, a JSON document.
        var output: String { stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `command` (an absolute path, then its arguments) with `environment`.
    init(_ command: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = environment
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
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

    /// Runs `command` to completion, killing it after `timeout`.
    static func run(
        _ command: [String],
        environment: [String: String],
        timeout: Duration = .seconds(60)
    ) async throws -> Result {
        try await Subprocess(command, environment: environment).finish(timeout: timeout)
    }

    var standardError: String { lock.withLock { stderrText } }

    /// Waits until standard error has a line matching `predicate`, and returns it.
    func waitForErrorLine(timeout: Duration, where predicate: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if let line = standardError.split(separator: "\n").map(String.init).first(where: predicate) {
                return line
            }
            if !process.isRunning {
                readers.wait()
                throw Failure(description: "exited with \(process.terminationStatus): \(standardError)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        kill()
        throw Failure(description: "no matching line on standard error within \(timeout): \(standardError)")
    }

    func kill() {
        if process.isRunning { _ = Foundation.kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits for the exit (killing the process after `timeout`) and returns what it printed.
    func finish(timeout: Duration) async throws -> Result {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                kill()
                throw Failure(description: "did not finish within \(timeout): \(standardError)")
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
