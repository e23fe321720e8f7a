import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import Testing
import Tether
import TetherDevProvider
import TetherURLSession

@testable import TetherAsyncHTTPClient

/// Both transports against the development provider on 127.0.0.1.
@Suite(.timeLimit(.minutes(3)))
struct TransportTests {
    enum Kind: String, CaseIterable, Sendable {
        case urlSession
        case asyncHTTPClient
    }

    /// A running provider and a transport of the given kind.
    struct Fixture {
        let running: RunningDevProvider
        let transport: any HTTPTransport
        let shutdown: @Sendable () async -> Void

        static func start(_ kind: Kind) async throws -> Fixture {
            let running = try await DevProvider(DevProvider.Configuration()).start()
            switch kind {
            case .urlSession:
                return Fixture(running: running, transport: URLSessionTransport()) { await running.stop() }
            case .asyncHTTPClient:
                let transport = AsyncHTTPClientTransport()
                return Fixture(running: running, transport: transport) {
                    try? await transport.shutdown()
                    await running.stop()
                }
            }
        }

        func url(_ path: String) -> URL { URL(string: running.issuer.absoluteString + path)! }
    }

    static func transport(_ kind: Kind) -> (any HTTPTransport, @Sendable () async -> Void) {
        switch kind {
        case .urlSession:
            return (URLSessionTransport(), {})
        case .asyncHTTPClient:
            let transport = AsyncHTTPClientTransport()
            return (transport, { try? await transport.shutdown() })
        }
    }

    @Test(arguments: Kind.allCases) func getsAJSONDocument(_ kind: Kind) async throws {
        let fixture = try await Fixture.start(kind)
        defer { Task { await fixture.shutdown() } }
        let (response, body) = try await fixture.transport.send(
            HTTPRequest(method: .get, url: fixture.url("/.well-known/openid-configuration")),
            body: nil
        )
        #expect(response.status == .ok)
        #expect(response.headerFields[.contentType]?.hasPrefix("application/json") == true)
        let document = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect(document?["issuer"] as? String == fixture.running.issuer.absoluteString)
    }

    @Test(arguments: Kind.allCases) func postsAForm(_ kind: Kind) async throws {
        let fixture = try await Fixture.start(kind)
        defer { Task { await fixture.shutdown() } }
        var request = HTTPRequest(method: .post, url: fixture.url("/token"))
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        let form = "grant_type=refresh_token&refresh_token=not-a-token&client_id=tether-dev-client"
        let (response, body) = try await fixture.transport.send(request, body: Data(form.utf8))
        #expect(response.status == .badRequest)
        let error = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect(error?["error"] as? String == "invalid_grant")
    }

    @Test(arguments: Kind.allCases) func doesNotFollowARedirect(_ kind: Kind) async throws {
        let fixture = try await Fixture.start(kind)
        defer { Task { await fixture.shutdown() } }
        let redirectURI = "http://127.0.0.1:53682/callback"
        var components = URLComponents(url: fixture.url("/authorize"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "client_id", value: "tether-dev-client"),
            URLQueryItem(name: "redirect_uri", value: redirectURI),
            URLQueryItem(name: "scope", value: "openid"),
            URLQueryItem(name: "state", value: "state-123"),
            URLQueryItem(name: "code_challenge", value: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        let (pageResponse, page) = try await fixture.transport.send(
            HTTPRequest(method: .get, url: components.url!),
            body: nil
        )
        #expect(pageResponse.status == .ok)
        var fields = DevProvider.SignInAgent.hiddenFields(in: String(decoding: page, as: UTF8.self))
        fields["username"] = "ada"
        fields["password"] = "lovelace"
        fields["decision"] = "allow"
        var post = HTTPRequest(method: .post, url: fixture.url("/authorize"))
        post.headerFields[.contentType] = "application/x-www-form-urlencoded"
        let form = fields.map { field in
            [field.key, field.value].map { $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
                .joined(separator: "=")
        }
        .joined(separator: "&")

        let (response, _) = try await fixture.transport.send(post, body: Data(form.utf8))
        #expect(response.status.code == 302)
        let location = try #require(response.headerFields[.location])
        #expect(location.hasPrefix(redirectURI + "?"))
        #expect(location.contains("code="))
    }

    @Test(arguments: Kind.allCases) func cancellationEndsARequestPromptly(_ kind: Kind) async throws {
        let fixture = try await Fixture.start(kind)
        defer { Task { await fixture.shutdown() } }
        await fixture.running.admin.setLatency(.seconds(60), for: .discovery)
        let transport = fixture.transport
        let request = HTTPRequest(method: .get, url: fixture.url("/.well-known/openid-configuration"))
        let call = Task { try await transport.send(request, body: nil) }
        try await Task.sleep(for: .milliseconds(200))
        let started = ContinuousClock.now
        call.cancel()
        let result = await call.result
        let elapsed = ContinuousClock.now - started
        // Far under the 60-second latency, with room for a loaded machine running the other suites in parallel (the
        // whole suite on two cores has stalled a task for 8–12 s): a request that was not cancelled would still be
        // waiting for the provider's answer.
        #expect(elapsed < .seconds(30))
        switch result {
        case .success:
            Issue.record("a cancelled request succeeded")
        case .failure(let error):
            #expect(error is CancellationError || TransportError.cancelled ~= error, "\(error)")
        }
    }

    /// At once: AsyncHTTPClient would try to connect again and again until its connect timeout (10 seconds), which
    /// hid the failure from the retry policy of the caller.
    @Test(arguments: Kind.allCases) func aClosedPortCannotConnectAtOnce(_ kind: Kind) async throws {
        let (transport, shutdown) = Self.transport(kind)
        defer { Task { await shutdown() } }
        let started = ContinuousClock.now
        await #expect(throws: TransportError.cannotConnect) {
            _ = try await transport.send(HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:1/")!), body: nil)
        }
        // The error is the check: retrying until the connect timeout (10 seconds) ends in a timeout, not
        // `cannotConnect`. The time is only a backstop against a transport that would keep trying far longer; the
        // whole suite on two cores has stalled a task for 8–12 s, so it cannot be held to less than the timeout.
        #expect(ContinuousClock.now - started < .seconds(30))
    }
}

/// The pure conversions of `AsyncHTTPClientTransport`.
struct AsyncHTTPClientConversionTests {
    @Test func aRequestKeepsMethodTargetHeadersAndBody() throws {
        var request = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:8080", path: "/token?a=1")
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        request.headerFields[.accept] = "application/json"
        let converted = try #require(AsyncHTTPClientTransport.makeRequest(request, body: Data("a=b".utf8)))
        #expect(converted.url == "http://127.0.0.1:8080/token?a=1")
        #expect(converted.method == .POST)
        #expect(converted.headers["Content-Type"] == ["application/x-www-form-urlencoded"])
        #expect(converted.headers["Accept"] == ["application/json"])
        #expect(converted.body != nil)
    }

    @Test func aRequestWithoutBodyHasNone() throws {
        let request = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: nil)
        let converted = try #require(AsyncHTTPClientTransport.makeRequest(request, body: nil))
        #expect(converted.url == "https://example.com/")
        #expect(converted.method == .GET)
        #expect(converted.body == nil)
    }

    @Test func aRequestWithoutAuthorityIsRefused() {
        let request = HTTPRequest(method: .get, scheme: "https", authority: nil, path: "/")
        #expect(AsyncHTTPClientTransport.makeRequest(request, body: nil) == nil)
    }

    @Test func aResponseKeepsStatusAndRepeatedHeaders() {
        let response = HTTPClientResponse(
            status: .found,
            headers: HTTPHeaders([
                ("Location", "http://127.0.0.1/cb?code=x"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"),
            ])
        )
        let converted = AsyncHTTPClientTransport.makeResponse(response)
        #expect(converted.status.code == 302)
        #expect(converted.headerFields[.location] == "http://127.0.0.1/cb?code=x")
        #expect(converted.headerFields[values: .setCookie] == ["a=1", "b=2"])
    }

    @Test func errorsAreMappedToTransportErrors() {
        let target = "http://127.0.0.1/x"
        #expect(
            TransportError.cancelled
                ~= AsyncHTTPClientTransport.transportError(for: CancellationError(), target: target)
        )
        #expect(
            TransportError.timedOut
                ~= AsyncHTTPClientTransport.transportError(for: HTTPClientError.deadlineExceeded, target: target)
        )
        #expect(
            TransportError.connectionLost
                ~= AsyncHTTPClientTransport.transportError(for: HTTPClientError.remoteConnectionClosed, target: target)
        )
    }
}
