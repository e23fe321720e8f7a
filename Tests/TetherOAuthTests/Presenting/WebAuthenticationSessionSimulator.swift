import Foundation
import TetherOAuth

#if canImport(AuthenticationServices)
import AuthenticationServices
#else
import AuthenticationServicesShim
#endif

/// A simulated `ASWebAuthenticationSession`: what `start()` does is the simulator's ``Behaviour``; `cancel()` only
/// counts, because Apple does not promise to call the completion handler after it.
@MainActor
final class SimulatedWebAuthenticationSession: WebAuthenticationSessionRunning {
    var prefersEphemeralWebBrowserSession = false
    weak var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)?
    let url: URL
    let callback: WebAuthenticationCallback
    private let completionHandler: WebAuthenticationSessionFactory.CompletionHandler
    private let behaviour: WebAuthenticationSessionSimulator.Behaviour
    private let onStart: (SimulatedWebAuthenticationSession) -> Void
    private(set) var cancelCount = 0

    init(
        url: URL,
        callback: WebAuthenticationCallback,
        completionHandler: @escaping WebAuthenticationSessionFactory.CompletionHandler,
        behaviour: WebAuthenticationSessionSimulator.Behaviour,
        onStart: @escaping (SimulatedWebAuthenticationSession) -> Void
    ) {
        self.url = url
        self.callback = callback
        self.completionHandler = completionHandler
        self.behaviour = behaviour
        self.onStart = onStart
    }

    func start() -> Bool {
        onStart(self)
        return behaviour.start(self)
    }

    func cancel() { cancelCount += 1 }

    /// Calls the completion handler, as the system does when the page ends.
    nonisolated func complete(with callbackURL: URL?, error: (any Error)?) {
        completionHandler(callbackURL, error)
    }
}

/// Makes ``SimulatedWebAuthenticationSession``s for a presenter and lets a test wait for them to start.
@MainActor
final class WebAuthenticationSessionSimulator {
    /// What a session does when started; returns what `start()` returns.
    struct Behaviour: Sendable {
        let start: @MainActor @Sendable (SimulatedWebAuthenticationSession) -> Bool

        /// The user finishes: the handler gets the callback URL.
        static func completing(with callbackURL: URL) -> Behaviour {
            Behaviour {
                $0.complete(with: callbackURL, error: nil)
                return true
            }
        }

        /// The session ends with an error.
        static func failing(with error: any Error) -> Behaviour {
            Behaviour {
                $0.complete(with: nil, error: error)
                return true
            }
        }

        /// `start()` returns `false` without calling the handler.
        static let notStarting = Behaviour { _ in false }

        /// `start()` calls the handler with an error, then returns `false`.
        static func notStarting(afterReporting error: any Error) -> Behaviour {
            Behaviour {
                $0.complete(with: nil, error: error)
                return false
            }
        }

        /// The page stays open until the test calls ``SimulatedWebAuthenticationSession/complete(with:error:)``.
        static let waiting = Behaviour { _ in true }

        /// The handler is called on a background queue, as macOS does.
        static func completingOnABackgroundQueue(with callbackURL: URL) -> Behaviour {
            Behaviour { session in
                DispatchQueue.global().async { session.complete(with: callbackURL, error: nil) }
                return true
            }
        }

        /// Without a presentation context provider the handler gets `presentationContextNotProvided` and
        /// `start()` returns `false`; with one, the user finishes with the callback URL.
        static func requiringPresentationContext(thenCompletingWith callbackURL: URL) -> Behaviour {
            Behaviour { session in
                guard session.presentationContextProvider != nil else {
                    session.complete(with: nil, error: ASWebAuthenticationSessionError(.presentationContextNotProvided))
                    return false
                }
                session.complete(with: callbackURL, error: nil)
                return true
            }
        }
    }

    private let behaviour: Behaviour
    private let startedSessions: AsyncStream<SimulatedWebAuthenticationSession>
    private let startedContinuation: AsyncStream<SimulatedWebAuthenticationSession>.Continuation
    private(set) var sessions: [SimulatedWebAuthenticationSession] = []

    init(_ behaviour: Behaviour) {
        self.behaviour = behaviour
        (startedSessions, startedContinuation) = AsyncStream.makeStream(of: SimulatedWebAuthenticationSession.self)
    }

    /// The factory a presenter under test is given.
    var factory: WebAuthenticationSessionFactory {
        WebAuthenticationSessionFactory { url, callback, completion in
            let session = SimulatedWebAuthenticationSession(
                url: url,
                callback: callback,
                completionHandler: completion,
                behaviour: self.behaviour,
                onStart: { self.startedContinuation.yield($0) }
            )
            self.sessions.append(session)
            return session
        }
    }

    /// Waits until a session has been started.
    func nextStartedSession() async -> SimulatedWebAuthenticationSession? {
        var iterator = startedSessions.makeAsyncIterator()
        return await iterator.next()
    }
}

/// Supplies a window (an `ASPresentationAnchor`) for the session.
@MainActor
final class TestPresentationContextProvider: NSObject, ASWebAuthenticationPresentationContextProviding {
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        ASPresentationAnchor()
    }
}
