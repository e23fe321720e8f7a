// Compiled everywhere: against AuthenticationServices on Apple platforms, against AuthenticationServicesShim (the
// same names, no behaviour) elsewhere, so that this file is type-checked and its logic tested on Linux too.
#if !canImport(AuthenticationServices) || os(iOS) || os(macOS) || os(visionOS)

#if canImport(AuthenticationServices)
public import AuthenticationServices
#else
public import AuthenticationServicesShim
#endif
public import Foundation
public import Logging
import Tether

/// Shows the authorization page in an `ASWebAuthenticationSession`, for iOS, macOS and visionOS apps
/// (RFC 8252 §7.1 private-use schemes and §7.2 claimed `https` redirects).
///
/// The session watches for the redirect itself: a private-use scheme (`com.example.app:/oauth2redirect`) is
/// passed as the callback scheme, and an `https` redirect (a universal link, which needs associated domains) is
/// matched by host and path on iOS 17.4, macOS 14.4 and visionOS 1.1 or later. Loopback `http` redirects are
/// rejected: use ``LoopbackPresenter`` for those — and Sign in with Apple rejects them anyway.
///
/// Cancelling the task, calling ``AuthorizationPresentation/cancel()`` or the user closing the sheet all end
/// `present` with ``AuthorizationPresentationError/cancelled``, at once: Apple does not promise to call the
/// session's completion handler after `cancel()`. A session that cannot be shown (no window, or `start()` fails)
/// ends it with ``AuthorizationPresentationError/cannotOpenBrowser``, and any other failure the session reports
/// with ``AuthorizationPresentationError/webAuthenticationFailed``.
///
/// Only Apple platforms have `ASWebAuthenticationSession`; elsewhere the public initializer is unavailable (use
/// ``LoopbackPresenter``). The same source still compiles there, and this package's tests run it over a simulated
/// session.
///
/// > Important: The AuthenticationServices build of this presenter has not been compiled on this project's
/// > machines (Linux); build and try it on an Apple platform before relying on it.
@available(iOS 16, macOS 13, visionOS 1, *)
public struct WebAuthenticationPresenter: AuthorizationPresenter {
    /// Options for the session.
    public struct Configuration: Sendable {
        /// Asks the browser not to share cookies or other data with the user's normal browser session.
        public var prefersEphemeralWebBrowserSession: Bool

        /// Creates a configuration.
        /// - Parameter prefersEphemeralWebBrowserSession: Whether to use a private browsing session.
        public init(prefersEphemeralWebBrowserSession: Bool = false) {
            self.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
        }
    }

    private let configuration: Configuration
    private let contextProvider: any ASWebAuthenticationPresentationContextProviding & Sendable
    private let sessions: WebAuthenticationSessionFactory
    private let logger: Logger

    #if canImport(AuthenticationServices)
    /// Creates a presenter.
    /// - Parameters:
    ///   - configuration: Options for the session.
    ///   - presentationContextProvider: Supplies the window the session is shown over; the presenter keeps it
    ///     alive (the session holds it weakly).
    ///   - logger: Where the presenter logs, at debug level, never a URL's query.
    public init(
        configuration: Configuration = Configuration(),
        presentationContextProvider: any ASWebAuthenticationPresentationContextProviding & Sendable,
        logger: Logger = .current
    ) {
        self.init(
            sessions: .system,
            configuration: configuration,
            presentationContextProvider: presentationContextProvider,
            logger: logger
        )
    }
    #else
    /// Unavailable: only Apple platforms have `ASWebAuthenticationSession`. Use `LoopbackPresenter` instead.
    @available(*, unavailable, message: "Only Apple platforms have ASWebAuthenticationSession; use LoopbackPresenter")
    public init(
        configuration: Configuration = Configuration(),
        presentationContextProvider: any ASWebAuthenticationPresentationContextProviding & Sendable,
        logger: Logger = .current
    ) {
        self.init(
            sessions: .system,
            configuration: configuration,
            presentationContextProvider: presentationContextProvider,
            logger: logger
        )
    }
    #endif

    /// Creates a presenter over the given sessions: Apple's, or in tests a simulated one.
    /// - Parameters:
    ///   - sessions: Makes the sessions the presenter runs.
    ///   - configuration: Options for the session.
    ///   - presentationContextProvider: Supplies the window the session is shown over.
    ///   - logger: Where the presenter logs.
    package init(
        sessions: WebAuthenticationSessionFactory,
        configuration: Configuration = Configuration(),
        presentationContextProvider: any ASWebAuthenticationPresentationContextProviding & Sendable,
        logger: Logger = .current
    ) {
        self.configuration = configuration
        self.contextProvider = presentationContextProvider
        self.sessions = sessions
        self.logger = logger
    }

    /// Checks the redirect URI and returns a presentation for it.
    /// - Parameter redirectURI: A private-use scheme or `https` redirect URI; required.
    /// - Returns: The presentation.
    /// - Throws: ``AuthorizationPresentationError/unsupportedRedirect`` for a missing or `http` redirect URI, or
    ///   an `https` one before iOS 17.4 / macOS 14.4 / visionOS 1.1.
    public func begin(redirectURI: URL?) async throws -> any AuthorizationPresentation {
        guard let redirectURI, let scheme = redirectURI.scheme?.lowercased(), scheme != "http" else {
            throw AuthorizationPresentationError.unsupportedRedirect.with(
                message: "WebAuthenticationPresenter needs a private-use scheme or https redirect URI"
            )
        }
        if scheme == "https" {
            guard #available(iOS 17.4, macOS 14.4, visionOS 1.1, *), redirectURI.host != nil else {
                throw AuthorizationPresentationError.unsupportedRedirect.with(
                    message: "https redirects need iOS 17.4, macOS 14.4 or visionOS 1.1"
                )
            }
        }
        return Presentation(
            redirectURI: redirectURI,
            session: await SessionHolder(sessions: sessions, logger: logger),
            configuration: configuration,
            contextProvider: contextProvider,
            logger: logger
        )
    }

    private struct Presentation: AuthorizationPresentation {
        let redirectURI: URL
        let session: SessionHolder
        let configuration: Configuration
        let contextProvider: any ASWebAuthenticationPresentationContextProviding & Sendable
        let logger: Logger

        func present(_ authorizationURL: URL) async throws -> URL {
            logger.debug(
                "Opening the authorization page",
                metadata: ["presenter.url": "\(AuthorizationURLs.redacted(authorizationURL))"]
            )
            let (session, redirectURI, configuration, contextProvider) = (
                session, redirectURI, configuration, contextProvider
            )
            return try await withTaskCancellationHandler {
                try await session.run(
                    authorizationURL,
                    callback: WebAuthenticationCallback(redirectURI: redirectURI),
                    ephemeral: configuration.prefersEphemeralWebBrowserSession,
                    contextProvider: contextProvider
                )
            } onCancel: {
                Task { @MainActor in session.cancel() }
            }
        }

        func cancel() async {
            await session.cancel()
        }
    }
}

/// What ends a session: a private-use scheme, or (iOS 17.4, macOS 14.4, visionOS 1.1) an `https` host and path
/// (`ASWebAuthenticationSession.Callback`).
package enum WebAuthenticationCallback: Hashable, Sendable {
    /// A redirect to this scheme, lowercased.
    case customScheme(String)
    /// A redirect to `https://host/path`.
    case https(host: String, path: String)

    /// The callback for a redirect URI that ``WebAuthenticationPresenter/begin(redirectURI:)`` accepted.
    init(redirectURI: URL) {
        let scheme = redirectURI.scheme?.lowercased() ?? ""
        self =
            scheme == "https" ? .https(host: redirectURI.host ?? "", path: redirectURI.path) : .customScheme(scheme)
    }
}

/// The part of `ASWebAuthenticationSession` the presenter uses, so that tests can run it over a simulated session.
@MainActor
package protocol WebAuthenticationSessionRunning: AnyObject {
    /// Whether the session asks the browser for a private session.
    var prefersEphemeralWebBrowserSession: Bool { get set }
    /// Supplies the window; the session holds it weakly.
    var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)? { get set }
    /// Starts the session; `false` when it could not (it may or may not have called its completion handler).
    func start() -> Bool
    /// Cancels the session; Apple does not promise that the completion handler is called afterwards.
    func cancel()
}

extension ASWebAuthenticationSession: WebAuthenticationSessionRunning {}

/// Makes the sessions a ``WebAuthenticationPresenter`` runs: Apple's, or in tests a simulated one.
package struct WebAuthenticationSessionFactory: Sendable {
    /// The completion handler a session calls, on any thread (macOS calls it on a background queue).
    package typealias CompletionHandler = @Sendable (URL?, (any Error)?) -> Void

    let make:
        @MainActor @Sendable (URL, WebAuthenticationCallback, @escaping CompletionHandler) ->
            any WebAuthenticationSessionRunning

    /// Creates a factory.
    /// - Parameter make: Makes a session for an authorization URL, a callback and a completion handler.
    package init(
        make:
            @escaping @MainActor @Sendable (URL, WebAuthenticationCallback, @escaping CompletionHandler) ->
            any WebAuthenticationSessionRunning
    ) {
        self.make = make
    }

    /// `ASWebAuthenticationSession`, with a `Callback` where the system has it, else the callback scheme.
    static let system = WebAuthenticationSessionFactory { url, callback, completion in
        if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) {
            let sessionCallback: ASWebAuthenticationSession.Callback =
                switch callback {
                case .customScheme(let scheme): .customScheme(scheme)
                case .https(let host, let path): .https(host: host, path: path)
                }
            return ASWebAuthenticationSession(url: url, callback: sessionCallback, completionHandler: completion)
        }
        let scheme: String? =
            switch callback {
            case .customScheme(let scheme): scheme
            case .https: nil
            }
        return ASWebAuthenticationSession(url: url, callbackURLScheme: scheme, completionHandler: completion)
    }
}

/// Owns the session on the main actor, where AuthenticationServices expects it, and ends the presentation exactly
/// once: with the session's outcome, with a failure to start, or with a cancellation — whichever comes first.
@available(iOS 16, macOS 13, visionOS 1, *)
@MainActor
private final class SessionHolder {
    private let sessions: WebAuthenticationSessionFactory
    private let logger: Logger
    private var session: (any WebAuthenticationSessionRunning)?
    private var continuation: CheckedContinuation<URL, any Error>?
    /// Set once the presentation has an outcome (or was cancelled before it began); later outcomes are dropped.
    private var isFinished = false

    init(sessions: WebAuthenticationSessionFactory, logger: Logger) {
        self.sessions = sessions
        self.logger = logger
    }

    func run(
        _ url: URL,
        callback: WebAuthenticationCallback,
        ephemeral: Bool,
        contextProvider: any ASWebAuthenticationPresentationContextProviding & Sendable
    ) async throws -> URL {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
            guard !isFinished else {
                continuation.resume(throwing: AuthorizationPresentationError.cancelled)
                return
            }
            self.continuation = continuation
            // The session may call this on any thread (macOS: a background queue), so it touches no main-actor
            // state itself: it classifies the outcome and hops to the main actor.
            let session = sessions.make(url, callback) { callbackURL, error in
                let outcome = Self.outcome(callbackURL: callbackURL, error: error)
                Task { @MainActor in self.finish(outcome) }
            }
            session.presentationContextProvider = contextProvider
            session.prefersEphemeralWebBrowserSession = ephemeral
            self.session = session
            if !session.start() {
                // The session may also have called its completion handler (say with
                // `presentationContextNotProvided`); `finish` keeps whichever outcome comes first.
                finish(
                    .failure(
                        AuthorizationPresentationError.cannotOpenBrowser.with(
                            message: "The web authentication session did not start"
                        )
                    )
                )
            }
        }
    }

    func cancel() {
        let session = self.session
        // Apple does not promise to call the completion handler after `cancel()`: end the presentation now.
        finish(.failure(AuthorizationPresentationError.cancelled))
        session?.cancel()
    }

    private func finish(_ outcome: Result<URL, AuthorizationPresentationError>) {
        isFinished = true
        session = nil
        guard let continuation else { return }
        self.continuation = nil
        if case .failure(let error) = outcome {
            logger.debug("The web authentication session ended", metadata: ["presenter.error": "\(error.details.code)"])
        }
        continuation.resume(with: outcome)
    }

    /// Classifies what the session reported: a callback URL, the user's cancellation, a session that could not be
    /// shown, or another failure (named by its domain and code only: an error may carry a URL with its query).
    nonisolated static func outcome(
        callbackURL: URL?,
        error: (any Error)?
    ) -> Result<URL, AuthorizationPresentationError> {
        if let callbackURL { return .success(callbackURL) }
        guard let error else {
            return .failure(
                AuthorizationPresentationError.webAuthenticationFailed.with(
                    message: "The web authentication session ended with neither a callback URL nor an error"
                )
            )
        }
        if let error = error as? ASWebAuthenticationSessionError {
            switch error.code {
            case .canceledLogin:
                return .failure(AuthorizationPresentationError.cancelled)
            case .presentationContextNotProvided, .presentationContextInvalid:
                return .failure(
                    AuthorizationPresentationError.cannotOpenBrowser.with(
                        message: "The web authentication session could not be shown (code \(error.code.rawValue))"
                    )
                )
            @unknown default:
                break
            }
        }
        let nsError = error as NSError
        return .failure(
            AuthorizationPresentationError.webAuthenticationFailed.with(
                message: "The web authentication session failed (\(nsError.domain) \(nsError.code))"
            )
        )
    }
}
#endif
