import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the CLI writes: results on standard output, progress and errors on standard error. Colour and live
/// updates only when the stream is a terminal and `NO_COLOR` is unset.
struct Terminal: Sendable {
    let environment: [String: String]

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Colour on standard output or standard error (https://no-color.org: any non-empty `NO_COLOR` turns it off).
    func colors(onStandardError: Bool) -> Bool {
        guard (environment["NO_COLOR"] ?? "").isEmpty, environment["TERM"] != "dumb" else { return false }
        return onStandardError ? stderrIsTerminal : stdoutIsTerminal
    }

    /// Writes a line (or raw text when `newline` is false) to standard output.
    func out(_ text: String, newline: Bool = true) {
        out(Data((newline ? text + "\n" : text).utf8))
    }

    /// Writes a line to standard error.
    func err(_ text: String, newline: Bool = true) {
        // A closed standard error is no reason to crash; `FileHandle.write(_:)` would (`try!` inside).
        try? FileHandle.standardError.write(contentsOf: Data((newline ? text + "\n" : text).utf8))
    }

    /// Writes raw bytes to standard output. When the reader is gone (`tether token | head -c 10`), `SIGPIPE` ends
    /// the process as it ends any Unix tool; where `SIGPIPE` is ignored, the failed write is dropped instead of
    /// crashing the process (`FileHandle.write(_:)` would).
    func out(_ data: Data) {
        try? FileHandle.standardOutput.write(contentsOf: data)
    }
}

/// ANSI styles, applied only when enabled.
struct Style: Sendable {
    let enabled: Bool

    func green(_ text: String) -> String { wrap(text, "32") }
    func yellow(_ text: String) -> String { wrap(text, "33") }
    func red(_ text: String) -> String { wrap(text, "31") }
    func bold(_ text: String) -> String { wrap(text, "1") }
    func dim(_ text: String) -> String { wrap(text, "2") }

    /// A connection's state: green when connected, yellow while refreshing or offline, red otherwise.
    func state(_ state: String) -> String {
        switch state {
        case "connected": green(state)
        case "refreshing", "offline": yellow(state)
        default: red(state)
        }
    }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

/// Formatting shared by the commands.
enum Format {
    /// `2026-11-22T10:00:00Z`.
    static func iso8601(_ date: Date?) -> String? {
        guard let date else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// `in 59m 12s`, `3s ago`.
    static func relative(_ date: Date, now: Date = Date()) -> String {
        // Bounded (about 30 million years either way) so that a date from far away cannot trap the conversion.
        let interval = date.timeIntervalSince(now)
        let seconds = interval.isFinite ? Int(min(max(interval, -1e15), 1e15).rounded()) : 0
        if seconds == 0 { return "just now" }
        let text = duration(abs(seconds))
        return seconds >= 0 ? "in \(text)" : "\(text) ago"
    }

    /// `1h 02m`, `4m 05s`, `12s`.
    static func duration(_ seconds: Int) -> String {
        if seconds >= 3600 { return String(format: "%dh %02dm", seconds / 3600, (seconds % 3600) / 60) }
        if seconds >= 60 { return String(format: "%dm %02ds", seconds / 60, seconds % 60) }
        return "\(seconds)s"
    }

    /// Left-aligned columns separated by two spaces; `widths` ignore ANSI escapes.
    static func table(_ rows: [[String]]) -> [String] {
        guard let columns = rows.map(\.count).max() else { return [] }
        var widths = Array(repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], visibleLength(cell)) }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1
                    ? cell : cell + String(repeating: " ", count: widths[index] - visibleLength(cell))
            }
            .joined(separator: "  ")
        }
    }

    static func visibleLength(_ text: String) -> Int {
        var length = 0
        var inEscape = false
        for character in text {
            if inEscape {
                if character == "m" { inEscape = false }
            } else if character == "\u{1B}" {
                inEscape = true
            } else {
                length += 1
            }
        }
        return length
    }
}

/// Serializes read-modify-write of a small file across processes with an `flock` on a lock file beside the vault's
/// own locks. Without a lock file (an unwritable folder), the change is made anyway; the file itself is always
/// replaced atomically.
enum FileLock {
    static func withLock<T>(home: URL, name: String, _ body: () throws -> T) rethrows -> T {
        let path = home.appendingPathComponent("locks").appendingPathComponent(name).path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return try body() }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
