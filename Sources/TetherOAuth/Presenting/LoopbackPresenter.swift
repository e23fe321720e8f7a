public import Foundation
public import Logging
import Tether

/// Receives the redirect on `http://127.0.0.1:<port>/<path>` and shows the page in the system browser
/// (RFC 8252 §7.3), for Linux and macOS apps and command-line tools.
///
/// ``begin(redirectURI:)`` binds a listener on `127.0.0.1` with a port the system picks; the presentation's
/// ``AuthorizationPresentation/redirectURI`` carries that port (RFC 8252 §7.3: the provider must accept any
/// port). ``AuthorizationPresentation/present(_:)`` opens the browser with ``Configuration/browser`` and waits
/// for a `GET` to the redirect path, answers it with a short "you can close this window" page
/// (`Cache-Control: no-store`) and returns the full callback URL. Other paths (a favicon, probes) get 404,
/// unreadable or oversized requests get 400, and the listener keeps waiting. A callback whose `state` differs
/// from the authorization URL's gets 400 and is logged (never its values); after 20 of them `present` throws
/// ``AuthorizationPresentationError/tooManyRejectedCallbacks``.
///
/// The path comes from the configured redirect URI when it is a loopback one (`http://127.0.0.1`,
/// `http://localhost` or `http://[::1]`, any port); without one it is ``Configuration/defaultPath``. The
/// listener always binds IPv4 `127.0.0.1` and the redirect URI always names it: RFC 8252 §8.3 recommends the IP
/// literal over `localhost`, and Microsoft's identity platform rejects `[::1]`.
///
/// The socket work runs on a dedicated thread that polls with short timeouts, never blocking Swift
/// concurrency's cooperative pool; the overall timeout is slept on the injected clock. Cancelling the task,
/// reaching the timeout or calling ``AuthorizationPresentation/cancel()`` closes the port before `present`
/// returns.
@available(iOS, unavailable, message: "An app cannot start a browser; use WebAuthenticationPresenter")
@available(tvOS, unavailable, message: "An app cannot start a browser; use the device flow")
@available(watchOS, unavailable, message: "An app cannot start a browser; use the device flow")
@available(visionOS, unavailable, message: "An app cannot start a browser; use WebAuthenticationPresenter")
public struct LoopbackPresenter: AuthorizationPresenter {
    /// Timeouts, limits and the browser.
    public struct Configuration: Sendable {
        /// How long to wait for the redirect after opening the browser; 5 minutes by default.
        public var timeout: Duration
        /// Opens the authorization URL; ``BrowserLauncher/system(environment:fallback:)`` by default.
        public var browser: BrowserLauncher
        /// The redirect path used when no loopback redirect URI is configured; `/callback` by default.
        public var defaultPath: String
        /// The largest request head the listener reads, in bytes; 16 KiB by default.
        public var maximumRequestSize: Int
        /// How long one connection may take to send its request; 10 seconds by default.
        public var connectionTimeout: Duration

        /// Creates a configuration.
        /// - Parameters:
        ///   - timeout: How long to wait for the redirect.
        ///   - browser: Opens the authorization URL.
        ///   - defaultPath: The redirect path without a configured loopback redirect URI.
        ///   - maximumRequestSize: The largest request head accepted, in bytes.
        ///   - connectionTimeout: How long one connection may take to send its request.
        public init(
            timeout: Duration = .seconds(300),
            browser: BrowserLauncher = .system(),
            defaultPath: String = "/callback",
            maximumRequestSize: Int = 16 * 1024,
            connectionTimeout: Duration = .seconds(10)
        ) {
            self.timeout = timeout
            self.browser = browser
            self.defaultPath = defaultPath
            self.maximumRequestSize = maximumRequestSize
            self.connectionTimeout = connectionTimeout
        }
    }

    private let configuration: Configuration
    private let clock: any Clock<Duration>
    private let logger: Logger

    /// Creates a presenter.
    /// - Parameters:
    ///   - configuration: Timeouts, limits and the browser.
    ///   - clock: The clock the timeouts are measured on.
    ///   - logger: Where the presenter logs, at trace and debug level, never a URL's query.
    public init(
        configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current
    ) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
    }

    /// Binds the listener and returns a presentation whose redirect URI names its port.
    /// - Parameter redirectURI: A loopback redirect URI whose path to use (its port is ignored), or `nil` for
    ///   ``Configuration/defaultPath``.
    /// - Returns: The presentation; it holds the port until it finishes or is cancelled.
    /// - Throws: ``AuthorizationPresentationError/unsupportedRedirect`` for a redirect URI that is not loopback
    ///   `http`, ``AuthorizationPresentationError/cannotListen`` when no port can be bound.
    public func begin(redirectURI: URL?) async throws -> any AuthorizationPresentation {
        let path = try Self.redirectPath(redirectURI, defaultPath: configuration.defaultPath)
        let listener = try LoopbackListener(
            path: path,
            limits: LoopbackListener.Limits(
                maximumRequestSize: configuration.maximumRequestSize,
                connectionTimeout: configuration.connectionTimeout
            ),
            clock: clock,
            logger: logger
        )
        guard let uri = URL(string: "http://127.0.0.1:\(listener.port)\(path)") else {
            listener.stop(.cancelled)
            throw AuthorizationPresentationError.unsupportedRedirect
        }
        logger.debug(
            "Loopback listener bound",
            metadata: ["presenter.port": "\(listener.port)", "presenter.path": "\(path)"]
        )
        return Presentation(
            redirectURI: uri,
            listener: listener,
            configuration: configuration,
            clock: clock,
            logger: logger
        )
    }

    /// The redirect path for a configured redirect URI: its path when it is a loopback `http` URI.
    static func redirectPath(_ redirectURI: URL?, defaultPath: String) throws -> String {
        guard let redirectURI else { return defaultPath.hasPrefix("/") ? defaultPath : "/" + defaultPath }
        guard let components = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false),
            components.scheme?.lowercased() == "http",
            let host = components.host?.lowercased(),
            ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
        else {
            throw AuthorizationPresentationError.unsupportedRedirect.with(
                message: "LoopbackPresenter receives only http://127.0.0.1 redirect URIs (RFC 8252 §7.3)"
            )
        }
        guard components.percentEncodedQuery == nil, components.percentEncodedFragment == nil else {
            throw AuthorizationPresentationError.unsupportedRedirect.with(
                message: "A loopback redirect URI with a query or fragment is not supported"
            )
        }
        return components.percentEncodedPath
    }

    /// A URL for logs: scheme, host and path, never the query (it holds `code` and `state`) or the fragment.
    static func redacted(_ url: URL) -> String { AuthorizationURLs.redacted(url) }

    private struct Presentation: AuthorizationPresentation {
        let redirectURI: URL
        let listener: LoopbackListener
        let configuration: Configuration
        let clock: any Clock<Duration>
        let logger: Logger

        func present(_ authorizationURL: URL) async throws -> URL {
            let expectedState = URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)?
                .queryItems?.first { $0.name == "state" }?.value
            listener.start(expectedState: expectedState)
            logger.debug("Opening the authorization page", metadata: ["presenter.url": "\(redacted(authorizationURL))"])
            let (listener, browser, clock, timeout, logger) = (
                listener, configuration.browser, clock, configuration.timeout, logger
            )
            return try await withThrowingTaskGroup(of: URL?.self) { group in
                group.addTask { try await listener.result() }
                group.addTask {
                    do {
                        try await browser.open(authorizationURL, logger: logger)
                    } catch {
                        // The browser's error is the answer. Stopping the listener here would race it: the
                        // listener's bare "cancelled" could reach `group.next()` first. The `defer` below stops it.
                        if Task.isCancelled { listener.stop(.taskCancelled) }
                        throw error
                    }
                    return nil
                }
                group.addTask {
                    try await clock.sleep(for: timeout)
                    logger.debug("Loopback redirect timed out")
                    listener.stop(.timedOut)
                    return nil
                }
                // The listener's result arrives only after its sockets are closed; the group ends after it.
                defer { listener.stop(.cancelled) }
                while let next = try await group.next() {
                    if let url = next {
                        group.cancelAll()
                        return url
                    }
                }
                throw AuthorizationPresentationError.cancelled
            }
        }

        func cancel() async {
            listener.stop(.cancelled)
            _ = try? await listener.result()
        }
    }
}
