#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The full command-line tool, `tether-cli`, installed beside `tether`.
enum FullTool {
    /// The full tool's file name.
    static let name = "tether-cli"
    /// The file name of `tether calendar sync`'s own executable (docs/decisions.md §49).
    static let calendarSyncName = "tether-calendar"

    /// Replaces this process with `tether-calendar` beside this executable for `tether calendar sync`, when it is
    /// installed there; returns when it is not (a debug build of only some products, an install without it).
    static func runCalendarSync(_ arguments: [String]) {
        guard arguments.count >= 3, arguments[1] == "calendar", arguments[2] == "sync",
            let path = path(of: calendarSyncName), access(path, X_OK) == 0
        else { return }
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        pointers.append(nil)
        execv(path, pointers)
        // It could not be run after all: `tether-cli` runs the same command.
    }

    /// Replaces this process with `tether-cli` beside this executable, with the same arguments (the first one
    /// included, so that it names itself `tether`) and the same environment; the process keeps its id, its open
    /// files and its standard input. Returns only when the tool cannot be run: then it says so and exits with 1.
    static func run(_ arguments: [String]) -> Never {
        guard let path = path() else {
            LauncherOutput.error("tether: cannot find the folder of this executable to run \(name) beside it.")
            LauncherOutput.exit(1)
        }
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        pointers.append(nil)
        execv(path, pointers)
        let problem = String(cString: strerror(errno))
        LauncherOutput.error(
            "tether: cannot run \(path): \(problem). Install \(name) beside tether (in a clone: swift build)."
        )
        LauncherOutput.exit(1)
    }

    /// `tether-cli`, or another file, in the folder of this executable (`/proc/self/exe` where it exists, else the
    /// command line's first word when it names a file by path).
    static func path(of file: String = name) -> String? {
        guard let executable = currentExecutable(), let slash = executable.lastIndex(of: "/") else { return nil }
        return String(executable[...slash]) + file
    }

    static func currentExecutable() -> String? {
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
}

/// What the launcher writes, straight to the file descriptors: no buffering to flush before `exec` or `exit`.
enum LauncherOutput {
    /// Writes all of `text` to standard output. When the reader is gone, `SIGPIPE` ends the process, as it ends
    /// `tether-cli`; where it is ignored, the rest is dropped.
    static func write(_ text: String) {
        LauncherIO.writeAll(1, Array(text.utf8))
    }

    /// Writes a line to standard error.
    static func error(_ line: String) {
        LauncherIO.writeAll(2, Array((line + "\n").utf8))
    }

    static func exit(_ status: Int32) -> Never {
        #if canImport(Glibc)
        Glibc.exit(status)
        #else
        Darwin.exit(status)
        #endif
    }
}
