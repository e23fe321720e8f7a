#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tether-cli`, installed beside this executable, which does everything this one hands to it.
enum FullTool {
    /// The full tool's file name.
    static let name = "tether-cli"

    /// The signal mask this process started with, kept by ``keepSignalMask()`` before any other thread exists.
    nonisolated(unsafe) private static var startMask = sigset_t()

    /// Keeps the signal mask the process started with, for ``run(_:)``. Call it first, on the main thread.
    static func keepSignalMask() {
        pthread_sigmask(SIG_SETMASK, nil, &startMask)
    }

    /// Replaces this process with `tether-cli` beside this executable, with the same arguments (the first one
    /// included, so that it names itself `tether`), the same environment and the signal mask the process started
    /// with. Returns only when the tool cannot be run: then it says so and exits with 1.
    ///
    /// A refresh hands over from a thread of the concurrency pool, which blocks most signals; `execv` keeps the
    /// calling thread's mask, so without restoring it `tether-cli` would start deaf to `SIGHUP` and `SIGQUIT`.
    static func run(_ arguments: [String]) -> Never {
        guard let path = path() else {
            fail("tether: cannot find the folder of this executable to run \(name) beside it.")
        }
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        pointers.append(nil)
        pthread_sigmask(SIG_SETMASK, &startMask, nil)
        execv(path, pointers)
        fail("tether: cannot run \(path): \(String(cString: strerror(errno))). Install \(name) beside tether.")
    }

    /// `tether-cli` in the folder of this executable.
    static func path() -> String? {
        guard let executable = currentExecutable(), let slash = executable.lastIndex(of: "/") else { return nil }
        return String(executable[...slash]) + name
    }

    private static func currentExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        #if canImport(Darwin)
        var size = UInt32(buffer.count)
        if _NSGetExecutablePath(&buffer, &size) == 0 { return String(cString: buffer) }
        #else
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 {
            return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        #endif
        let first = CommandLine.arguments.first ?? ""
        return first.contains("/") ? first : nil
    }

    private static func fail(_ line: String) -> Never {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(1)
    }
}
