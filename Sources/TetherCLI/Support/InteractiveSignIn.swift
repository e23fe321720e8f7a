import ArgumentParser
import Foundation
import TetherCommandSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `--allow-login` of `tether token` and the credential helpers: when the connection needs sign-in and a person is
/// at a terminal, sign in again (`tether login NAME`, with the connection's saved settings) and then answer.
///
/// A helper never signs in otherwise: without the option, or without a terminal on standard error (git, kubectl
/// and docker pass theirs on when a person runs them; a background fetch, a cron job or an IDE has none), the
/// connection's "needs sign-in" failure is reported as always. The sign-in runs as a child process whose standard
/// output goes to standard error, so that nothing but the tool's answer reaches the tool.
struct InteractiveSignIn: Sendable {
    let allowed: Bool

    /// Whether a person can sign in now: `--allow-login` was given and standard error is a terminal.
    var isPossible: Bool { allowed && isatty(STDERR_FILENO) == 1 }

    /// Runs `operation`; when it fails because the connection `name` needs sign-in and ``isPossible``, signs in and
    /// runs it once more.
    func retrying<T: Sendable>(
        after name: String,
        _ operation: () async throws -> T
    ) async throws -> T {
        do {
            return try await operation()
        } catch let failure as CLIFailure where failure.status == .needsSignIn && isPossible {
            Terminal().err("tether: \(failure.description)")
            guard try await Self.signIn(name) else { throw failure }
            return try await operation()
        }
    }

    /// Runs `tether login NAME` with standard output sent to standard error; whether it signed in.
    static func signIn(_ name: String) async throws -> Bool {
        guard let executable = TetherCommand.currentExecutable() else {
            throw CLIFailure(.failure, "Cannot find this executable to run `tether login \(name)`")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["login", name]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.standardError
        process.standardError = FileHandle.standardError
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return status == 0
    }
}
