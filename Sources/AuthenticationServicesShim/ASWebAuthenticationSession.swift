// The names of Apple's AuthenticationServices framework that Tether uses, declared with Apple's Swift signatures
// and availability so that code written against the framework type-checks on platforms without it. Nothing here
// does anything: a session never starts (`start()` returns `false`) and a provider knows no credential. Behaviour
// in tests comes from the package's seams (a simulated session, a closure for the credential state), which run the
// same presenter and reader code on every platform.

public import Foundation

/// A platform-specific user-interface element the session is shown over: `UIWindow` on iOS and visionOS,
/// `NSWindow` on macOS. Here, a plain class with no behaviour.
///
/// https://developer.apple.com/documentation/authenticationservices/aspresentationanchor
@available(iOS 12, macOS 10.15, tvOS 13, visionOS 1, *)
@MainActor
open class ASPresentationAnchor {
    /// Creates an anchor.
    public init() {}
}

/// An interface the session uses to ask a delegate for a presentation context.
///
/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationpresentationcontextproviding
@available(iOS 13, macOS 10.15, visionOS 1, *)
@MainActor
public protocol ASWebAuthenticationPresentationContextProviding: NSObjectProtocol {
    /// Tells the delegate from which window it should present content to the user.
    ///
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationpresentationcontextproviding/presentationanchor(for:)
    /// - Parameter session: The session asking for the presentation anchor.
    /// - Returns: A user-interface element that can act as the anchor for the authentication presentation.
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor
}

/// A session that an app uses to authenticate a user through a web service. Here it never shows anything.
///
/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession
@available(iOS 12, macOS 10.15, tvOS 16, visionOS 1, watchOS 6.2, *)
open class ASWebAuthenticationSession: NSObject {
    /// A completion handler for the web authentication session.
    ///
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/completionhandler
    public typealias CompletionHandler = (URL?, (any Error)?) -> Void

    /// An object that describes when the session calls its completion handler.
    ///
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/callback
    @available(iOS 17.4, macOS 14.4, tvOS 17.4, visionOS 1.1, watchOS 10.4, *)
    public final class Callback: NSObject {
        private override init() {}

        /// Creates a callback object that matches against URLs with the given custom scheme.
        ///
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/callback/customscheme(_:)
        /// - Parameter customScheme: The custom scheme the app expects in the callback URL.
        /// - Returns: A callback object.
        public class func customScheme(_ customScheme: String) -> Callback { Callback() }

        /// Creates a callback object that matches against HTTPS URLs with the given host and path.
        ///
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/callback/https(host:path:)
        /// - Parameters:
        ///   - host: The host the app expects in the callback URL.
        ///   - path: The path the app expects in the callback URL.
        /// - Returns: A callback object.
        public class func https(host: String, path: String) -> Callback { Callback() }
    }

    /// Whether the session asks the browser for a private authentication session.
    ///
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/prefersephemeralwebbrowsersession
    @available(iOS 13, macOS 10.15, tvOS 16, visionOS 1, watchOS 6.2, *)
    open var prefersEphemeralWebBrowserSession = false

    /// A delegate that provides a display context in which the system can present an authentication session.
    ///
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/presentationcontextprovider
    @available(iOS 13, macOS 10.15, visionOS 1, *)
    open weak var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)?

    /// Creates a web authentication session instance.
    ///
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/init(url:callbackurlscheme:completionhandler:)
    /// - Parameters:
    ///   - URL: A URL with the `http` or `https` scheme pointing to the authentication webpage.
    ///   - callbackURLScheme: The custom URL scheme that the app requires in the callback URL.
    ///   - completionHandler: Called when the session completes successfully or the user cancels it.
    public init(
        url URL: URL,
        callbackURLScheme: String?,
        completionHandler: @escaping CompletionHandler
    ) {}

    /// Creates a web authentication session instance that uses a callback to evaluate a redirection URL.
    ///
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/init(url:callback:completionhandler:)
    /// - Parameters:
    ///   - URL: The initial URL pointing to the authentication webpage (`http` or `https`).
    ///   - callback: An object that describes when the session calls its completion handler.
    ///   - completionHandler: Called when the session completes successfully or the user cancels it.
    @available(iOS 17.4, macOS 14.4, tvOS 17.4, visionOS 1.1, watchOS 10.4, *)
    public init(
        url URL: URL,
        callback: Callback,
        completionHandler: @escaping CompletionHandler
    ) {}

    /// Starts a web authentication session; here it never starts.
    ///
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/start()
    /// - Returns: Whether the session started; always `false` here.
    open func start() -> Bool { false }

    /// Cancels a web authentication session; here it does nothing.
    ///
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/cancel()
    open func cancel() {}
}
