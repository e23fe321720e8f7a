public import Foundation
public import Logging
import Tether

/// Opens a URL in the user's browser, for ``LoopbackPresenter``.
///
/// ``system(environment:fallback:)`` follows the conventions of Python's `webbrowser` module:
/// 1. When `BROWSER` is set, its colon-separated commands are tried in order. A command is split into words
///    like a shell would (quotes and backslashes, no expansion) and run directly, without a shell; `%s` in a
///    word is replaced by the URL, and when no word has `%s` the URL is added as the last argument. Each is
///    waited for, like Python's `GenericBrowser`: the first that exits 0 opened the page; when none starts or
///    each exits with a failure status, opening throws ``AuthorizationPresentationError/browserCommandFailed``
///    at once, since the person chose that browser and nobody will see the page.
/// 2. Otherwise, or when none of them starts: `xdg-open` on Linux (only when `DISPLAY` or `WAYLAND_DISPLAY`
///    is set — on a machine without a graphical session it would fail after starting), `open` on macOS.
/// 3. When nothing starts, `fallback` gets the URL (a command-line tool prints "Open this URL: …"). Without
///    a fallback, opening throws ``AuthorizationPresentationError/cannotOpenBrowser``.
///
/// The launcher does not wait for the platform's opener to exit (`xdg-open` may return at once or stay), but the
/// process is reaped when it does. The library never prints.
///
/// For tests, ``init(open:)`` takes a closure that plays the browser, for example one that sends the redirect
/// request itself.
public struct BrowserLauncher: Sendable {
    private let openURL: @Sendable (URL, Logger) async throws -> Void

    /// A launcher backed by a closure.
    /// - Parameter open: Opens the URL; throws when it cannot.
    public init(open: @escaping @Sendable (URL) async throws -> Void) {
        self.openURL = { url, _ in try await open(url) }
    }

    private init(openURL: @escaping @Sendable (URL, Logger) async throws -> Void) {
        self.openURL = openURL
    }

    /// The system browser: `BROWSER`, then `xdg-open` (Linux) or `open` (macOS), then `fallback`.
    /// - Parameters:
    ///   - environment: Where `BROWSER`, `PATH` and `DISPLAY` are read; also the browser process's environment,
    ///     without any `TETHER_*` variable (the vault key and the client secret never reach the browser).
    ///   - fallback: Called with the URL when no browser starts, such as a closure that prints it; `nil` to throw
    ///     ``AuthorizationPresentationError/cannotOpenBrowser`` instead.
    /// - Returns: The launcher.
    @available(iOS, unavailable, message: "An app cannot start a browser; use WebAuthenticationPresenter")
    @available(tvOS, unavailable, message: "An app cannot start a browser; use the device flow")
    @available(watchOS, unavailable, message: "An app cannot start a browser; use the device flow")
    @available(visionOS, unavailable, message: "An app cannot start a browser; use WebAuthenticationPresenter")
    public static func system(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        fallback: (@Sendable (URL) -> Void)? = nil
    ) -> BrowserLauncher {
        BrowserLauncher { url, logger in
            let configured = BrowserCommand.configured(environment: environment)
            if !configured.isEmpty {
                var failures: [String] = []
                for command in configured {
                    let program = URL(fileURLWithPath: command[0]).lastPathComponent
                    let status = await BrowserCommand.run(command, url: url, environment: environment, logger: logger)
                    if Task.isCancelled { return }
                    if status == 0 { return }
                    failures.append(
                        status.map { "'\(program)' exited with status \($0)" } ?? "'\(program)' did not start"
                    )
                }
                throw AuthorizationPresentationError.browserCommandFailed.with(
                    message: "The BROWSER command failed: \(failures.joined(separator: "; "))"
                )
            }
            let commands = BrowserCommand.candidates(environment: environment)
            for command in commands {
                if BrowserCommand.launch(command, url: url, environment: environment, logger: logger) { return }
            }
            logger.debug("No browser could be started", metadata: ["presenter.browser.tried": "\(commands.count)"])
            guard let fallback else { throw AuthorizationPresentationError.cannotOpenBrowser }
            fallback(url)
        }
    }

    /// Opens `url`.
    /// - Parameters:
    ///   - url: The page to open.
    ///   - logger: Where the launcher logs, at debug level, without the URL's query.
    /// - Throws: ``AuthorizationPresentationError/cannotOpenBrowser``, or what a custom closure throws.
    public func open(_ url: URL, logger: Logger = .current) async throws {
        try await openURL(url, logger)
    }
}
