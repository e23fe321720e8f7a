public import Foundation

/// Shows the provider's authorization page to the user and returns the redirect it ends with.
///
/// ## When to implement
/// Tether ships `LoopbackPresenter` (Linux and macOS: a listener on `127.0.0.1` with a random port, RFC 8252
/// §7.3, plus the system browser), `WebAuthenticationPresenter` (Apple platforms: `ASWebAuthenticationSession`)
/// and ``ProgrammaticPresenter`` (tests: a closure plays the user). Implement it to present the page another way.
///
/// ## Flow
/// 1. ``begin(redirectURI:)`` prepares a presentation and decides the redirect URI — a loopback presenter binds
///    its port here, so that the URI can go into the authorization request.
/// 2. ``AuthorizationPresentation/present(_:)`` opens the authorization URL and returns the callback URL
///    (`redirect_uri?code=…&state=…` or `?error=…`) once the user has finished.
public protocol AuthorizationPresenter: Sendable {
    /// Prepares a presentation.
    /// - Parameter redirectURI: The configured redirect URI, if any; a loopback presenter ignores its port.
    /// - Returns: The presentation, which knows the redirect URI to send.
    /// - Throws: ``AuthorizationPresentationError`` when no presentation can start (no port, no browser).
    func begin(redirectURI: URL?) async throws -> any AuthorizationPresentation
}

/// One authorization page shown to the user.
public protocol AuthorizationPresentation: Sendable {
    /// The redirect URI the authorization request must carry.
    var redirectURI: URL { get }

    /// Opens `authorizationURL` and waits for the redirect.
    /// - Parameter authorizationURL: The provider's authorization URL with the request's parameters.
    /// - Returns: The full callback URL, query included.
    /// - Throws: ``AuthorizationPresentationError`` (`cancelled`, `timedOut`, …) or `CancellationError`.
    func present(_ authorizationURL: URL) async throws -> URL

    /// Stops the presentation early and frees what it holds (a port, a browser session). Safe to call twice.
    func cancel() async
}

/// A presenter whose "user" is a closure: it receives the authorization URL and returns the callback URL.
/// For tests, and for apps that present the page themselves.
public struct ProgrammaticPresenter: AuthorizationPresenter {
    private let redirect: URL
    private let respond: @Sendable (URL) async throws -> URL

    /// Creates a presenter.
    /// - Parameters:
    ///   - redirectURI: The redirect URI to send.
    ///   - respond: Plays the user: gets the authorization URL, returns the callback URL.
    public init(redirectURI: URL, respond: @escaping @Sendable (URL) async throws -> URL) {
        self.redirect = redirectURI
        self.respond = respond
    }

    /// Returns a presentation that calls the closure.
    public func begin(redirectURI: URL?) async throws -> any AuthorizationPresentation {
        Presentation(redirectURI: redirect, respond: respond)
    }

    private struct Presentation: AuthorizationPresentation {
        let redirectURI: URL
        let respond: @Sendable (URL) async throws -> URL
        func present(_ authorizationURL: URL) async throws -> URL { try await respond(authorizationURL) }
        func cancel() async {}
    }
}
