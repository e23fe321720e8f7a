import Foundation
import InMemoryLogging
import Logging
import Synchronization
import Testing
import Tether
import TetherOAuth
import TetherTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Presenting {
    @Suite(.timeLimit(.minutes(3)))
    struct LoopbackPresenterTests {
        private static let authorizationURL = URL(string: "https://issuer.example/authorize?client_id=app&state=s1")!

        // MARK: Redirect URI

        @Test func redirectURIIsLoopbackWithABoundPort() async throws {
            let harness = Harness()
            let presentation = try await harness.presenter.begin(redirectURI: nil)
            defer { Task { await presentation.cancel() } }
            let uri = presentation.redirectURI
            #expect(uri.scheme == "http")
            #expect(uri.host == "127.0.0.1")
            #expect(uri.path == "/callback")
            let port = try #require(uri.port)
            #expect(port > 0)
            // Something listens there.
            #expect(!RawHTTP.isRefused(port: UInt16(port)))
            await presentation.cancel()
            #expect(RawHTTP.isRefused(port: UInt16(port)))
        }

        @Test(arguments: [
            ("http://127.0.0.1:8080/oauth2/done", "/oauth2/done"),
            ("http://localhost/cb", "/cb"),
            ("http://[::1]:1234/ipv6", "/ipv6"),
        ])
        func pathComesFromAConfiguredLoopbackURI(configured: String, path: String) async throws {
            let harness = Harness()
            let presentation = try await harness.presenter.begin(redirectURI: URL(string: configured)!)
            defer { Task { await presentation.cancel() } }
            #expect(presentation.redirectURI.host == "127.0.0.1")
            #expect(presentation.redirectURI.path == path)
            #expect(presentation.redirectURI.port != 8080)
            await presentation.cancel()
        }

        @Test(arguments: [
            "https://app.example/callback",
            "com.example.app:/oauth2redirect",
            "https://127.0.0.1/callback",
            "http://192.168.1.2/callback",
            "http://127.0.0.1/callback?x=1",
        ])
        func nonLoopbackRedirectIsUnsupported(configured: String) async throws {
            let harness = Harness()
            await #expect(throws: AuthorizationPresentationError.unsupportedRedirect) {
                _ = try await harness.presenter.begin(redirectURI: URL(string: configured)!)
            }
        }

        // MARK: The redirect

        @Test func callbackIsReturnedWithItsQueryIntact() async throws {
            let harness = Harness()
            let presentation = try await harness.presenter.begin(redirectURI: nil)
            let port = try #require(presentation.redirectURI.port).asPort
            async let callback = presentation.present(Self.authorizationURL)
            #expect(await harness.nextOpened() == Self.authorizationURL)

            let response = try await RawHTTP.get(
                "/callback?code=abc%2B1&state=s1&iss=https%3A%2F%2Fissuer.example",
                port: port
            )

            let url = try await callback
            #expect(
                url.absoluteString
                    == "http://127.0.0.1:\(port)/callback?code=abc%2B1&state=s1&iss=https%3A%2F%2Fissuer.example"
            )
            #expect(response.status == 200)
            #expect(response.head.contains("Cache-Control: no-store"))
            #expect(response.body.contains("You can close this window and return to the app."))
            #expect(RawHTTP.isRefused(port: port))
        }

        @Test func otherPathsGet404AndTheListenerKeepsWaiting() async throws {
            let (port, callback) = try await Harness().presenting(Self.authorizationURL)

            let favicon = try await RawHTTP.get("/favicon.ico", port: port)
            let root = try await RawHTTP.get("/?code=not-here", port: port)
            let bare = try await RawHTTP.get("/callback", port: port)
            let response = try await RawHTTP.get("/callback?code=abc&state=s1", port: port)

            #expect([favicon, root, bare, response].map(\.status) == [404, 404, 400, 200])
            #expect(try await callback.value.query == "code=abc&state=s1")
        }

        @Test func errorCallbackIsReturnedAsIsWithTheErrorPage() async throws {
            let (port, callback) = try await Harness().presenting(Self.authorizationURL)

            let response = try await RawHTTP.get("/callback?error=access_denied&state=s1", port: port)

            #expect(try await callback.value.query == "error=access_denied&state=s1")
            #expect(response.status == 200)
            #expect(response.head.contains("Cache-Control: no-store"))
            #expect(response.body.contains("did not complete"))
            #expect(!response.body.contains("You are signed in"))
        }

        @Test func forgedCallbackWithAnotherStateGets400AndTheRealOneSignsIn() async throws {
            let handler = InMemoryLogHandler()
            var logger = Logger(label: "presenter", factory: { _ in handler })
            logger.logLevel = .trace
            let (port, callback) = try await Harness(logger: logger).presenting(Self.authorizationURL)

            let forged = try await RawHTTP.get("/callback?error=access_denied&state=forged-state", port: port)
            let stateless = try await RawHTTP.get("/callback?code=forged-code", port: port)
            let real = try await RawHTTP.get("/callback?code=abc&state=s1", port: port)

            #expect(forged.status == 400)
            #expect(forged.body.contains("does not belong to the sign-in in progress"))
            #expect(stateless.status == 400)
            #expect(real.status == 200)
            #expect(try await callback.value.query == "code=abc&state=s1")
            let rejections = handler.entries.filter { $0.message.description.contains("rejected") }
            #expect(rejections.map { $0.metadata["presenter.rejected_callbacks"]?.description } == ["1", "2"])
            for entry in handler.entries {
                let text = "\(entry.message) \(entry.metadata)"
                #expect(!text.contains("forged-state"))
                #expect(!text.contains("forged-code"))
            }
        }

        @Test func tooManyForgedCallbacksEndTheSignInWithATypedError() async throws {
            let (port, call) = try await Harness().presenting(Self.authorizationURL)

            for attempt in 1...20 {
                let forged = try await RawHTTP.get("/callback?code=x&state=guess-\(attempt)", port: port)
                #expect(forged.status == 400)
            }

            await #expect(throws: AuthorizationPresentationError.tooManyRejectedCallbacks) {
                try await call.value
            }
            #expect(RawHTTP.isRefused(port: port))
        }

        @Test func malformedAndOversizedRequestsGet400AndTheListenerKeepsWaiting() async throws {
            let (port, callback) = try await Harness().presenting(Self.authorizationURL)

            // 17 KiB of headers without an end: over the 16 KiB limit.
            let oversized =
                Array("GET /callback?code=big HTTP/1.1\r\nX-Padding: ".utf8)
                + Array(repeating: UInt8(ascii: "a"), count: 17 * 1024)
            let tooLarge = try await RawHTTP.request(oversized, port: port)
            let malformed = try await RawHTTP.request(Array("NOT HTTP AT ALL\r\n\r\n".utf8), port: port)
            let post = try await RawHTTP.request(Array("POST /callback?code=x HTTP/1.1\r\n\r\n".utf8), port: port)
            let response = try await RawHTTP.get("/callback?code=abc&state=s1", port: port)

            #expect([tooLarge, malformed, post, response].map(\.status) == [400, 400, 405, 200])
            #expect(try await callback.value.query == "code=abc&state=s1")
        }

        @Test func idleConnectionsDoNotHoldUpTheRedirect() async throws {
            let (port, callback) = try await Harness().presenting(Self.authorizationURL)

            // Browsers open speculative connections that send nothing.
            let idle = try (0..<3).map { _ in try RawHTTP.openIdleConnection(port: port) }
            defer { for fd in idle { close(fd) } }
            let response = try await RawHTTP.get("/callback?code=abc&state=s1", port: port)

            #expect(response.status == 200)
            #expect(try await callback.value.query == "code=abc&state=s1")
        }

        @Test func slowConnectionIsAnswered408OnTheInjectedClock() async throws {
            let clock = ManualClock()
            let harness = Harness(clock: clock)
            let presentation = try await harness.presenter.begin(redirectURI: nil)
            let port = try #require(presentation.redirectURI.port).asPort
            async let callback = presentation.present(Self.authorizationURL)
            _ = await harness.nextOpened()

            // A request head that never ends, then ten seconds pass. The listener notes when it accepted the
            // connection on the injected clock, on its own thread, at a moment the test cannot see: on a loaded
            // machine that can come after a first step of the clock. So the clock moves on in steps of 10 s (far
            // from the presenter's 300 s overall timeout) until the slow request has its answer.
            let answered = Mutex(false)
            let slow = Task {
                defer { answered.withLock { $0 = true } }
                return try await RawHTTP.request(Array("GET /callback?code=slow HTTP/1.1\r\n".utf8), port: port)
            }
            for _ in 0..<20 where !answered.withLock({ $0 }) {
                try await Task.sleep(for: .milliseconds(200))
                clock.advance(by: .seconds(10))
            }
            let timedOut = try await slow.value
            let response = try await RawHTTP.get("/callback?code=abc&state=s1", port: port)

            #expect(timedOut.status == 408)
            #expect(response.status == 200)
            #expect(try await callback.query == "code=abc&state=s1")
        }

        // MARK: Ending early

        @Test func timeoutOnTheInjectedClockThrowsTimedOutAndClosesThePort() async throws {
            let clock = ManualClock()
            let harness = Harness(clock: clock)
            let presentation = try await harness.presenter.begin(redirectURI: nil)
            let port = try #require(presentation.redirectURI.port).asPort
            let call = Task { try await presentation.present(Self.authorizationURL) }
            _ = await harness.nextOpened()
            #expect(await clock.waitForSleepers(1))
            clock.advance(by: .seconds(299))
            #expect(!RawHTTP.isRefused(port: port))

            clock.advance(by: .seconds(1))

            await #expect(throws: AuthorizationPresentationError.timedOut) { try await call.value }
            #expect(RawHTTP.isRefused(port: port))
        }

        @Test func taskCancellationEndsPromptlyAndFreesThePort() async throws {
            let (port, call) = try await Harness().presenting(Self.authorizationURL)

            call.cancel()

            let error = await #expect(throws: (any Error).self) { try await call.value }
            #expect(error is CancellationError || error.map { AuthorizationPresentationError.cancelled ~= $0 } == true)
            #expect(RawHTTP.isRefused(port: port))
        }

        @Test func cancelEndsPresentWithCancelledAndIsIdempotent() async throws {
            let harness = Harness()
            let presentation = try await harness.presenter.begin(redirectURI: nil)
            let port = try #require(presentation.redirectURI.port).asPort
            let call = Task { try await presentation.present(Self.authorizationURL) }
            _ = await harness.nextOpened()

            await presentation.cancel()
            await presentation.cancel()

            await #expect(throws: AuthorizationPresentationError.cancelled) { try await call.value }
            #expect(RawHTTP.isRefused(port: port))
        }

        @Test func browserFailureIsThrownAndFreesThePort() async throws {
            let presenter = LoopbackPresenter(
                configuration: .init(
                    timeout: .seconds(30),
                    browser: BrowserLauncher { _ in throw AuthorizationPresentationError.cannotOpenBrowser }
                )
            )
            let presentation = try await presenter.begin(redirectURI: nil)
            let port = try #require(presentation.redirectURI.port).asPort

            await #expect(throws: AuthorizationPresentationError.cannotOpenBrowser) {
                try await presentation.present(Self.authorizationURL)
            }
            #expect(RawHTTP.isRefused(port: port))
        }

        // MARK: Logging

        @Test func logsNeverContainTheQuery() async throws {
            let handler = InMemoryLogHandler()
            var logger = Logger(label: "presenter", factory: { _ in handler })
            logger.logLevel = .trace
            let harness = Harness(logger: logger)
            let presentation = try await harness.presenter.begin(redirectURI: nil)
            let port = try #require(presentation.redirectURI.port).asPort
            let authorizationURL = URL(string: "https://issuer.example/authorize?client_id=app&state=secret-state")!
            async let callback = presentation.present(authorizationURL)
            _ = await harness.nextOpened()
            _ = try await RawHTTP.get("/callback?code=secret-code&state=secret-state", port: port)
            _ = try await callback

            let entries = handler.entries
            #expect(!entries.isEmpty)
            for entry in entries {
                #expect([.trace, .debug].contains(entry.level))
                let text = "\(entry.message) \(entry.metadata)"
                #expect(!text.contains("secret-code"))
                #expect(!text.contains("secret-state"))
                #expect(!text.contains("client_id=app"))
                #expect(entry.metadata.keys.allSatisfy { $0.hasPrefix("presenter.") })
            }
        }
    }
}

/// A loopback presenter whose browser only reports the URL it was asked to open; the test then plays the
/// browser with ``RawHTTP``.
private struct Harness {
    let presenter: LoopbackPresenter
    private let opened: AsyncStream<URL>

    init(
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        let (stream, continuation) = AsyncStream<URL>.makeStream()
        opened = stream
        presenter = LoopbackPresenter(
            configuration: .init(timeout: .seconds(300), browser: BrowserLauncher { continuation.yield($0) }),
            clock: clock,
            logger: logger
        )
    }

    /// Begins a presentation on the default path and presents `authorizationURL` until the browser was asked to
    /// open it; returns the listener's port and the pending result.
    func presenting(_ authorizationURL: URL) async throws -> (port: UInt16, callback: Task<URL, any Error>) {
        let presentation = try await presenter.begin(redirectURI: nil)
        let port = try #require(presentation.redirectURI.port).asPort
        let callback = Task { try await presentation.present(authorizationURL) }
        _ = await nextOpened()
        return (port, callback)
    }

    /// Waits until the presenter asked the browser to open a URL.
    func nextOpened() async -> URL? {
        var iterator = opened.makeAsyncIterator()
        return await iterator.next()
    }
}

extension Int {
    var asPort: UInt16 { UInt16(self) }
}
