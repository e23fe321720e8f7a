import Foundation
import Testing
import Tether
import TetherOAuth

#if canImport(AuthenticationServices)
import AuthenticationServices
#else
import AuthenticationServicesShim
#endif

extension Presenting {
    /// `WebAuthenticationPresenter` over a simulated `ASWebAuthenticationSession`: every way a session can end
    /// resumes `present` exactly once.
    @Suite(.timeLimit(.minutes(1)))
    @MainActor
    struct WebAuthenticationPresenterTests {
        private static let authorizationURL = URL(string: "https://issuer.example/authorize?client_id=app&state=s1")!
        private static let redirectURI = URL(string: "com.example.app:/oauth2redirect")!
        private static let callbackURL = URL(string: "com.example.app:/oauth2redirect?code=c1&state=s1")!

        private func makePresenter(
            _ simulator: WebAuthenticationSessionSimulator,
            ephemeral: Bool = false
        ) -> WebAuthenticationPresenter {
            WebAuthenticationPresenter(
                sessions: simulator.factory,
                configuration: .init(prefersEphemeralWebBrowserSession: ephemeral),
                presentationContextProvider: TestPresentationContextProvider()
            )
        }

        private func present(
            _ simulator: WebAuthenticationSessionSimulator,
            redirectURI: URL = redirectURI
        ) async throws -> URL {
            let presentation = try await makePresenter(simulator).begin(redirectURI: redirectURI)
            return try await presentation.present(Self.authorizationURL)
        }

        // MARK: Outcomes the session reports

        @Test func returnsTheCallbackURL() async throws {
            let simulator = WebAuthenticationSessionSimulator(.completing(with: Self.callbackURL))
            let presentation = try await makePresenter(simulator, ephemeral: true).begin(redirectURI: Self.redirectURI)
            #expect(try await presentation.present(Self.authorizationURL) == Self.callbackURL)
            let session = try #require(simulator.sessions.first)
            #expect(session.url == Self.authorizationURL)
            #expect(session.callback == .customScheme("com.example.app"))
            #expect(session.prefersEphemeralWebBrowserSession)
        }

        @Test func httpsRedirectsAreMatchedByHostAndPath() async throws {
            let redirect = URL(string: "https://app.example/oauth/done")!
            let simulator = WebAuthenticationSessionSimulator(.completing(with: redirect))
            _ = try await present(simulator, redirectURI: redirect)
            #expect(simulator.sessions.first?.callback == .https(host: "app.example", path: "/oauth/done"))
        }

        @Test func sessionIsGivenThePresentationContextProvider() async throws {
            let simulator = WebAuthenticationSessionSimulator(
                .requiringPresentationContext(thenCompletingWith: Self.callbackURL)
            )
            #expect(try await present(simulator) == Self.callbackURL)
        }

        @Test func userCancellingIsCancelled() async {
            let simulator = WebAuthenticationSessionSimulator(
                .failing(with: ASWebAuthenticationSessionError(.canceledLogin))
            )
            await #expect(throws: AuthorizationPresentationError.cancelled) { try await present(simulator) }
        }

        @Test(arguments: [
            ASWebAuthenticationSessionError.Code.presentationContextNotProvided, .presentationContextInvalid,
        ])
        func missingOrInvalidWindowCannotOpenTheBrowser(code: ASWebAuthenticationSessionError.Code) async {
            let simulator = WebAuthenticationSessionSimulator(.failing(with: ASWebAuthenticationSessionError(code)))
            await #expect(throws: AuthorizationPresentationError.cannotOpenBrowser) { try await present(simulator) }
        }

        @Test func otherErrorsAreNotReportedAsCancelled() async {
            let simulator = WebAuthenticationSessionSimulator(.failing(with: URLError(.notConnectedToInternet)))
            let error = await #expect(throws: AuthorizationPresentationError.webAuthenticationFailed) {
                try await present(simulator)
            }
            #expect(error?.localizedDescription.contains("state=") != true)
        }

        @Test func handlerCalledOnABackgroundQueue() async throws {
            let simulator = WebAuthenticationSessionSimulator(.completingOnABackgroundQueue(with: Self.callbackURL))
            #expect(try await present(simulator) == Self.callbackURL)
        }

        // MARK: start() returning false

        @Test func startFailingWithoutCallingTheHandler() async {
            let simulator = WebAuthenticationSessionSimulator(.notStarting)
            await #expect(throws: AuthorizationPresentationError.cannotOpenBrowser) { try await present(simulator) }
        }

        @Test func startFailingAfterCallingTheHandlerResumesOnce() async {
            let simulator = WebAuthenticationSessionSimulator(
                .notStarting(afterReporting: ASWebAuthenticationSessionError(.presentationContextNotProvided))
            )
            await #expect(throws: AuthorizationPresentationError.cannotOpenBrowser) { try await present(simulator) }
            // The handler's outcome arrives after `start()` returned; it must be dropped, not resume again.
            await Task.yield()
            await Task.yield()
        }

        // MARK: Cancellation

        @Test func cancelEndsThePresentationWithoutTheHandler() async throws {
            let simulator = WebAuthenticationSessionSimulator(.waiting)
            let presentation = try await makePresenter(simulator).begin(redirectURI: Self.redirectURI)
            let presenting = Task { try await presentation.present(Self.authorizationURL) }
            let session = try #require(await simulator.nextStartedSession())
            await presentation.cancel()
            await #expect(throws: AuthorizationPresentationError.cancelled) { try await presenting.value }
            #expect(session.cancelCount == 1)
            // A handler the session calls late changes nothing.
            session.complete(with: Self.callbackURL, error: nil)
            await presentation.cancel()
        }

        @Test func taskCancellationEndsThePresentation() async throws {
            let simulator = WebAuthenticationSessionSimulator(.waiting)
            let presentation = try await makePresenter(simulator).begin(redirectURI: Self.redirectURI)
            let presenting = Task { try await presentation.present(Self.authorizationURL) }
            let session = try #require(await simulator.nextStartedSession())
            presenting.cancel()
            await #expect(throws: AuthorizationPresentationError.cancelled) { try await presenting.value }
            #expect(session.cancelCount == 1)
        }

        @Test func cancelBeforePresentingStartsNoSession() async throws {
            let simulator = WebAuthenticationSessionSimulator(.completing(with: Self.callbackURL))
            let presentation = try await makePresenter(simulator).begin(redirectURI: Self.redirectURI)
            await presentation.cancel()
            await #expect(throws: AuthorizationPresentationError.cancelled) {
                try await presentation.present(Self.authorizationURL)
            }
            #expect(simulator.sessions.isEmpty)
        }

        // MARK: Redirect URIs

        @Test func loopbackRedirectsAreRejected() async {
            let simulator = WebAuthenticationSessionSimulator(.waiting)
            await #expect(throws: AuthorizationPresentationError.unsupportedRedirect) {
                _ = try await makePresenter(simulator).begin(redirectURI: URL(string: "http://127.0.0.1/callback")!)
            }
        }
    }
}
