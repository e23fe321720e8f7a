#if canImport(AuthenticationServices)
#if os(iOS) || os(macOS) || os(visionOS)
// Note: this file has not been compiled on Linux, where it was written (AuthenticationServices is Apple-only).
// Build it on a Mac before relying on it.

public import AuthenticationServices
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
/// `present` with ``AuthorizationPresentationError/cancelled``.
///
/// > Important: This presenter was written on Linux and has not been compiled there or anywhere else yet;
/// > build and try it on an Apple platform before relying on it.
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
    private let logger: Logger

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
        self.configuration = configuration
        self.contextProvider = presentationContextProvider
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
            session: await SessionHolder(),
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
                    redirectURI: redirectURI,
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

/// Owns the session on the main actor, where AuthenticationServices expects it.
@available(iOS 16, macOS 13, visionOS 1, *)
@MainActor
private final class SessionHolder {
    private var session: ASWebAuthenticationSession?
    private var isCancelled = false

    func run(
        _ url: URL,
        redirectURI: URL,
        ephemeral: Bool,
        contextProvider: any ASWebAuthenticationPresentationContextProviding & Sendable
    ) async throws -> URL {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
            guard !isCancelled else {
                continuation.resume(throwing: AuthorizationPresentationError.cancelled)
                return
            }
            let completion: ASWebAuthenticationSession.CompletionHandler = { callbackURL, error in
                if let callbackURL {
                    continuation.resume(returning: callbackURL)
                } else if let error = error as? ASWebAuthenticationSessionError, error.code != .canceledLogin {
                    continuation.resume(
                        throwing: AuthorizationPresentationError.cannotOpenBrowser.with(
                            message: "The web authentication session could not be shown (code \(error.code.rawValue))"
                        )
                    )
                } else {
                    continuation.resume(throwing: AuthorizationPresentationError.cancelled)
                }
            }
            let session = Self.makeSession(url, redirectURI: redirectURI, completion: completion)
            session.presentationContextProvider = contextProvider
            session.prefersEphemeralWebBrowserSession = ephemeral
            self.session = session
            if !session.start() {
                self.session = nil
                continuation.resume(throwing: AuthorizationPresentationError.cannotOpenBrowser)
            }
        }
    }

    func cancel() {
        isCancelled = true
        // The session then calls its completion handler with `canceledLogin`.
        session?.cancel()
        session = nil
    }

    private static func makeSession(
        _ url: URL,
        redirectURI: URL,
        completion: @escaping ASWebAuthenticationSession.CompletionHandler
    ) -> ASWebAuthenticationSession {
        let scheme = redirectURI.scheme?.lowercased() ?? ""
        if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) {
            let callback: ASWebAuthenticationSession.Callback =
                scheme == "https"
                ? .https(host: redirectURI.host ?? "", path: redirectURI.path)
                : .customScheme(scheme)
            return ASWebAuthenticationSession(url: url, callback: callback, completionHandler: completion)
        }
        return ASWebAuthenticationSession(url: url, callbackURLScheme: scheme, completionHandler: completion)
    }
}
#endif
#endif
