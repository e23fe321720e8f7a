import Foundation
import Logging
import Tether

/// How ``BrowserLauncher/system(environment:fallback:)`` finds and starts browser commands.
enum BrowserCommand {
    /// The commands to try, in order: each `BROWSER` entry, then the platform's opener.
    static func candidates(environment: [String: String]) -> [[String]] {
        var commands = (environment["BROWSER"] ?? "")
            .split(separator: ":", omittingEmptySubsequences: true)
            .map { words(String($0)) }
            .filter { !$0.isEmpty }
        #if os(macOS)
        commands.append(["/usr/bin/open"])
        #else
        if !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty {
            commands.append(["xdg-open"])
        }
        #endif
        return commands
    }

    /// Splits a command line into words as a POSIX shell would, without expansions: single quotes, double quotes
    /// (with `\` escaping `"`, `\`, `$` and `` ` ``) and backslash escapes.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var iterator = line.makeIterator()
        while let character = iterator.next() {
            switch character {
            case " ", "\t", "\n":
                if inWord { words.append(current) }
                current = ""
                inWord = false
            case "'":
                inWord = true
                while let next = iterator.next(), next != "'" { current.append(next) }
            case "\"":
                inWord = true
                while let next = iterator.next(), next != "\"" {
                    if next == "\\", let escaped = iterator.next() {
                        if !"\"\\$`".contains(escaped) { current.append("\\") }
                        current.append(escaped)
                    } else {
                        current.append(next)
                    }
                }
            case "\\":
                inWord = true
                if let escaped = iterator.next() { current.append(escaped) }
            default:
                inWord = true
                current.append(character)
            }
        }
        if inWord { words.append(current) }
        return words
    }

    /// The arguments for `command` opening `url`: `%s` replaced, or the URL appended when there is none.
    static func arguments(_ command: [String], url: URL) -> [String] {
        let arguments = Array(command.dropFirst())
        guard arguments.contains(where: { $0.contains("%s") }) else { return arguments + [url.absoluteString] }
        return arguments.map { $0.replacingOccurrences(of: "%s", with: url.absoluteString) }
    }

    /// The executable for a command name: a path as given, or the first match in `PATH`.
    static func executable(_ name: String, environment: [String: String]) -> URL? {
        let files = FileManager.default
        if name.contains("/") { return files.isExecutableFile(atPath: name) ? URL(fileURLWithPath: name) : nil }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if files.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// The commands `BROWSER` names, in order.
    static func configured(environment: [String: String]) -> [[String]] {
        (environment["BROWSER"] ?? "")
            .split(separator: ":", omittingEmptySubsequences: true)
            .map { words(String($0)) }
            .filter { !$0.isEmpty }
    }

    /// Runs `command` and waits for it to exit, as Python's `webbrowser.GenericBrowser` does with `BROWSER`
    /// commands: a browser command returns once the page is handed over.
    /// - Returns: Its exit status, or `nil` when it did not start or the wait was cancelled (the redirect
    ///   arrived while it still ran).
    static func run(_ command: [String], url: URL, environment: [String: String], logger: Logger) async -> Int32? {
        let (exits, continuation) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let started = launch(command, url: url, environment: environment, logger: logger) { status in
            continuation.yield(status)
            continuation.finish()
        }
        guard started else { return nil }
        for await status in exits { return status }
        return nil
    }

    /// Starts `command` without waiting for it; the process is reaped when it exits.
    /// - Returns: Whether it started.
    static func launch(
        _ command: [String],
        url: URL,
        environment: [String: String],
        logger: Logger,
        exited: @escaping @Sendable (Int32) -> Void = { _ in }
    ) -> Bool {
        guard let name = command.first else { return false }
        let program = URL(fileURLWithPath: name).lastPathComponent
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        // `Process` can start programs on macOS and Linux only (Apple documents `run()` and `executableURL` for
        // macOS); an app presents the page with WebAuthenticationPresenter instead.
        logger.debug(
            "Browser commands cannot be started on this platform",
            metadata: ["presenter.browser": "\(program)"]
        )
        return false
        #else
        guard let executable = executable(name, environment: environment) else {
            logger.debug("Browser command not found", metadata: ["presenter.browser": "\(program)"])
            return false
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments(command, url: url)
        // The vault key and the client secret stay with this process.
        process.environment = ChildEnvironment.stripped(environment)
        process.standardInput = FileHandle.nullDevice
        // What a browser prints ("Opening in existing browser session.") must not mix with the program's output.
        process.standardOutput = FileHandle.standardError
        // Foundation reaps the child; the handler only records how it ended.
        process.terminationHandler = { process in
            logger.debug(
                "Browser command exited",
                metadata: [
                    "presenter.browser": "\(program)", "presenter.browser.status": "\(process.terminationStatus)",
                ]
            )
            exited(process.terminationStatus)
        }
        do {
            try process.run()
        } catch {
            logger.debug("Browser command did not start", metadata: ["presenter.browser": "\(program)"])
            return false
        }
        logger.debug(
            "Browser command started",
            metadata: ["presenter.browser": "\(program)", "presenter.url": "\(AuthorizationURLs.redacted(url))"]
        )
        return true
        #endif
    }
}
