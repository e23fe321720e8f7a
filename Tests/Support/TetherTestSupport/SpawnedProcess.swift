package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, for the tests' children.
///
/// Not Foundation's `Process`: on Linux its `run()` lists `/proc/self/fd` to close the descriptors the child should
/// not inherit, and reads past the end of glibc's directory buffer while it does (swift-corelibs-foundation pull
/// request 5472, merged after Swift 6.3.1). With the thousand or more descriptors a whole suite holds open at once,
/// that crashed the test process now and then. Here the child closes every descriptor above standard error itself,
/// with `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34) or `POSIX_SPAWN_CLOEXEC_DEFAULT` (Darwin).
package final class SpawnedProcess: @unchecked Sendable {  // `waitStatus` is guarded by `lock`
    /// How a finished child ended.
    package enum TerminationReason: Sendable, Equatable {
        case exit
        case uncaughtSignal
    }

    /// The executable.
    package let executableURL: URL?
    /// The child's process identifier.
    package let processIdentifier: Int32
    private let lock = NSLock()
    private var waitStatus: Int32?

    /// Starts `command` (an absolute path, then its arguments) with `environment`, with `input`, `output` and `error`
    /// as its standard input, output and error. The caller keeps and closes its descriptors.
    package init(
        _ command: [String],
        environment: [String: String],
        input: Int32,
        output: Int32,
        error: Int32
    ) throws {
        guard let path = command.first else { throw SpawnError(description: "no command to start") }
        executableURL = URL(fileURLWithPath: path)
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        for (source, target) in [(input, Int32(0)), (output, 1), (error, 2)] {
            posix_spawn_file_actions_adddup2(&actions, source, target)
        }
        #if os(Linux)
        guard let closeFrom = Self.closeFrom else {
            throw SpawnError(description: "glibc has no posix_spawn_file_actions_addclosefrom_np")
        }
        _ = closeFrom(&actions, 3)
        #elseif canImport(Darwin)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
        #endif
        // A child starts with default signal handling and no blocked signal, whatever the test process set.
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        #if canImport(Darwin)
        var flags: Int16 = 0
        posix_spawnattr_getflags(&attributes, &flags)
        posix_spawnattr_setflags(&attributes, flags | Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        #else
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        #endif

        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw SpawnError(description: "cannot start \(path): \(String(cString: strerror(result)))")
        }
        processIdentifier = pid
    }

    #if os(Linux)
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    /// glibc's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not declare.
    private static let closeFrom: CloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()
    #endif

    /// Runs `command` (an absolute path, then its arguments) to its end in this process's environment, with its
    /// standard streams on `/dev/null`.
    /// - Returns: Its exit status, or the signal that ended it; `nil` when it could not be started.
    package static func status(of command: [String]) -> Int32? {
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { return nil }
        defer { close(null) }
        let environment = ProcessInfo.processInfo.environment
        guard let child = try? SpawnedProcess(command, environment: environment, input: null, output: null, error: null)
        else { return nil }
        return child.terminationStatus
    }

    /// Whether the child has not ended yet (it is reaped as soon as it has).
    package var isRunning: Bool { reap(blocking: false) == nil }

    /// Waits until the child ends.
    package func waitUntilExit() { _ = reap(blocking: true) }

    /// The exit status, or the signal that ended the child. Only after it ended.
    package var terminationStatus: Int32 {
        let status = reap(blocking: true) ?? 0
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : signal
    }

    /// Whether the child exited or was ended by a signal. Only after it ended.
    package var terminationReason: TerminationReason {
        (reap(blocking: true) ?? 0) & 0x7F == 0 ? .exit : .uncaughtSignal
    }

    /// The child's wait status once it ended; `nil` while it runs (`blocking` false).
    private func reap(blocking: Bool) -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let waitStatus { return waitStatus }
        var status: Int32 = 0
        while true {
            let result = waitpid(processIdentifier, &status, blocking ? 0 : WNOHANG)
            if result == processIdentifier {
                waitStatus = status
                return status
            }
            if result == -1 && errno == EINTR { continue }
            return nil
        }
    }

    /// A child that could not be started.
    package struct SpawnError: Error, CustomStringConvertible {
        package let description: String
    }
}

/// A pipe whose two descriptors are closed on `exec`: a child gets only the end given to it as a standard stream.
package struct ClosingPipe: Sendable {
    package let reading: Int32
    package let writing: Int32

    package init() throws {
        var ends: [Int32] = [0, 0]
        // `pipe2` is not in Swift's Glibc module; a child started between the two calls gets no copy anyway, since
        // every child here closes what it did not get as a standard stream.
        guard pipe(&ends) == 0 else { throw SpawnedProcess.SpawnError(description: "pipe failed") }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        reading = ends[0]
        writing = ends[1]
    }

    /// Reads `descriptor` to its end, calling `chunk` with each piece read; closes it at the end.
    package static func drain(_ descriptor: Int32, _ chunk: (Data) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            chunk(Data(buffer[0..<count]))
        }
        close(descriptor)
    }

    /// Writes all of `bytes` to `descriptor`, then closes it; a reader that went away ends the writing.
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { break }
            offset += written
        }
        close(descriptor)
    }
}
