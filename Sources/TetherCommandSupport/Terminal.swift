package import Foundation
import Tether
import TetherCalendar

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the CLI writes: results on standard output, progress and errors on standard error. Colour and live
/// updates only when the stream is a terminal and `NO_COLOR` is unset.
package struct Terminal: Sendable {
    package let environment: [String: String]

    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    package var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    package var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Colour on standard output or standard error (https://no-color.org: any non-empty `NO_COLOR` turns it off).
    package func colors(onStandardError: Bool) -> Bool {
        guard (environment["NO_COLOR"] ?? "").isEmpty, environment["TERM"] != "dumb" else { return false }
        return onStandardError ? stderrIsTerminal : stdoutIsTerminal
    }

    /// Writes a line (or raw text when `newline` is false) to standard output.
    package func out(_ text: String, newline: Bool = true) {
        out(Data((newline ? text + "\n" : text).utf8))
    }

    /// Writes a line to standard error.
    package func err(_ text: String, newline: Bool = true) {
        // A closed standard error is no reason to crash; `FileHandle.write(_:)` would (`try!` inside).
        try? FileHandle.standardError.write(contentsOf: Data((newline ? text + "\n" : text).utf8))
    }

    /// Writes a failure to standard error as one line: "tether: what happened. How to fix it."
    package func report(_ failure: CLIFailure) {
        let style = Style(enabled: colors(onStandardError: true))
        // Messages carry text from providers and stores (an error description, a calendar's name): made safe here.
        let text = UntrustedText.forTerminal(failure.description)
        err("\(style.red("tether:")) \(text.hasSuffix(".") ? text : text + ".")")
    }

    /// Writes raw bytes to standard output. When the reader is gone (`tether token | head -c 10`), `SIGPIPE` ends
    /// the process as it ends any Unix tool; where `SIGPIPE` is ignored, the failed write is dropped instead of
    /// crashing the process (`FileHandle.write(_:)` would).
    package func out(_ data: Data) {
        try? FileHandle.standardOutput.write(contentsOf: data)
    }
}

/// ANSI styles, applied only when enabled.
package struct Style: Sendable {
    package let enabled: Bool

    package init(enabled: Bool) {
        self.enabled = enabled
    }

    package func green(_ text: String) -> String { wrap(text, "32") }
    package func yellow(_ text: String) -> String { wrap(text, "33") }
    package func red(_ text: String) -> String { wrap(text, "31") }
    package func bold(_ text: String) -> String { wrap(text, "1") }
    package func dim(_ text: String) -> String { wrap(text, "2") }

    /// A connection's state: green when connected, yellow while refreshing or offline (or when a calendar source
    /// loaded without some of its calendars), red otherwise.
    package func state(_ state: String) -> String {
        switch state {
        case "connected": green(state)
        case "refreshing", "offline", "calendars-unavailable": yellow(state)
        default: red(state)
        }
    }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

/// Formatting shared by the commands.
package enum Format {
    /// `2026-11-22T10:00:00Z`.
    package static func iso8601(_ date: Date?) -> String? {
        guard let date else { return nil }
        // By arithmetic for the years 1 to 9999 (5,000 events are listed in milliseconds, not seconds); the
        // formatter for anything else.
        let seconds = date.timeIntervalSince1970
        if seconds.isFinite, seconds > -62_135_596_800, seconds < 253_402_300_800 {
            return DateParsing.rfc3339String(date)
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// `in 59m 12s`, `3s ago`.
    package static func relative(_ date: Date, now: Date = Date()) -> String {
        // Bounded (about 30 million years either way) so that a date from far away cannot trap the conversion.
        let interval = date.timeIntervalSince(now)
        let seconds = interval.isFinite ? Int(min(max(interval, -1e15), 1e15).rounded()) : 0
        if seconds == 0 { return "just now" }
        let text = duration(abs(seconds))
        return seconds >= 0 ? "in \(text)" : "\(text) ago"
    }

    /// `1h 02m`, `4m 05s`, `12s`.
    package static func duration(_ seconds: Int) -> String {
        if seconds >= 3600 { return String(format: "%dh %02dm", seconds / 3600, (seconds % 3600) / 60) }
        if seconds >= 60 { return String(format: "%dm %02ds", seconds / 60, seconds % 60) }
        return "\(seconds)s"
    }

    /// One cell of a table for people: its text, which may come from a provider, a calendar or another user, and
    /// the style drawn around it.
    package struct Cell {
        /// The text as given; ``Format/table(_:)`` shows it made safe.
        package let text: String
        /// Applied to the safe text (colour, bold); ours, never the outside text's own escapes.
        package let style: (String) -> String

        package init(_ text: String, style: @escaping (String) -> String = { $0 }) {
            self.text = text
            self.style = style
        }
    }

    /// Cells without a style.
    package static func cells(_ texts: [String]) -> [Cell] {
        texts.map { Cell($0) }
    }

    /// Cells in one style: a header row in bold, a cancelled event dimmed.
    package static func cells(_ texts: [String], style: @escaping (String) -> String) -> [Cell] {
        texts.map { Cell($0, style: style) }
    }

    /// Left-aligned columns separated by two spaces.
    ///
    /// Every cell's text passes through ``UntrustedText/forTerminal(_:)`` here, whoever built it, so that no new
    /// column can forget it: no escape sequence, line break or bidirectional control of a provider's reaches the
    /// terminal. Widths are those of the safe text in columns (a CJK character or an emoji counts 2), measured
    /// before the style is applied.
    package static func table(_ rows: [[Cell]]) -> [String] {
        guard let columns = rows.map(\.count).max() else { return [] }
        let safe = rows.map { row in row.map { UntrustedText.forTerminal($0.text) } }
        var widths = Array(repeating: 0, count: columns)
        for row in safe {
            for (index, text) in row.enumerated() {
                widths[index] = max(widths[index], UntrustedText.displayWidth(text))
            }
        }
        return zip(rows, safe).map { row, texts in
            zip(row, texts).enumerated().map { index, cell in
                let (given, text) = cell
                let padding = index == texts.count - 1 ? 0 : widths[index] - UntrustedText.displayWidth(text)
                return given.style(text) + String(repeating: " ", count: padding)
            }
            .joined(separator: "  ")
        }
    }
}
