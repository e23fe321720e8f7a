import Foundation
import HTTPTypes
import Logging
import Tether
import TetherDevProvider
import TetherJWT
import TetherOAuth
import TetherURLSession

/// Round trips against the development provider on 127.0.0.1, and ID token verification on one core.
enum OAuthBenchmarks {
    static func run(iterations: Int) async throws {
        let running = try await DevProvider().start()
        defer { Task { await running.stop() } }
        let transport = URLSessionTransport()
        let configuration = try await ProviderConfiguration.discover(
            issuer: running.issuer.absoluteString,
            clientID: "tether-dev-client",
            redirectURI: URL(string: "http://127.0.0.1:40000/callback"),
            providerID: "dev",
            transport: transport
        )
        let silent = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
        let client = try OAuthClient(configuration: configuration, transport: transport, logger: silent)
        let clock = ContinuousClock()

        // Code exchange: the sign-in page is filled outside the measurement; the exchange (POST /token with
        // the code and PKCE verifier, response parsing, ID token claim checks) is measured.
        var exchanges: [Double] = []
        var last: SignInResult?
        for _ in 0..<iterations {
            let request = try client.makeAuthorizationRequest()
            let callback = try await approve(request.url, transport: transport)
            let start = clock.now
            last = try await client.completeSignIn(callbackURL: callback, for: request)
            exchanges.append(Benchmarks.nanoseconds(clock.now - start) / 1000)
        }
        Benchmarks.report("code exchange round trip (loopback, URLSession, claims checked)", exchanges, unit: "µs")

        // Refresh with rotation: each refresh uses the refresh token the previous one returned.
        guard let signedIn = last, let account = signedIn.account, var refreshToken = signedIn.tokens.refreshToken
        else {
            return
        }
        var refreshes: [Double] = []
        for _ in 0..<iterations {
            let start = clock.now
            let response = try await client.refresh(
                RefreshRequest(
                    connectionID: "bench",
                    refreshToken: refreshToken,
                    account: account,
                    tokens: signedIn.tokens
                )
            )
            refreshes.append(Benchmarks.nanoseconds(clock.now - start) / 1000)
            refreshToken = response.refreshToken ?? refreshToken
        }
        Benchmarks.report("refresh round trip with rotation (loopback, URLSession)", refreshes, unit: "µs")

        // ID token verification: signature (RS256) with the cached JWKS, then the claim checks; one task.
        guard let idToken = signedIn.tokens.idToken, let jwks = configuration.jwksURI else { return }
        let validator = JWKSIDTokenValidator(jwksURL: jwks, transport: transport, logger: silent)
        let expectations = IDTokenExpectations(
            issuer: running.issuer.absoluteString,
            audience: "tether-dev-client",
            now: Date()
        )
        _ = try await validator.validate(idToken, expecting: expectations)
        var rates: [Double] = []
        for _ in 0..<5 {
            let count = 2_000
            let start = clock.now
            for _ in 0..<count { _ = try await validator.validate(idToken, expecting: expectations) }
            rates.append(Double(count) / (Benchmarks.nanoseconds(clock.now - start) / 1e9))
        }
        Benchmarks.report(
            "ID token verifications per second, one task (RS256 + claims, JWKS cached)",
            rates,
            unit: "/s"
        )
    }

    /// Fills the development provider's sign-in page as ada and returns the redirect it answers with.
    static func approve(_ url: URL, transport: URLSessionTransport) async throws -> URL {
        let (_, page) = try await transport.send(HTTPRequest(method: .get, url: url), body: nil)
        let html = String(decoding: page, as: UTF8.self)
        guard let range = html.range(of: #"name="request_id" value=""#),
            let end = html[range.upperBound...].firstIndex(of: "\"")
        else { throw BenchmarkError("no request_id on the sign-in page") }
        let requestID = String(html[range.upperBound..<end])
        var post = HTTPRequest(method: .post, url: url)
        post.headerFields[.contentType] = "application/x-www-form-urlencoded"
        let body = "request_id=\(requestID)&username=ada&password=lovelace&decision=allow"
        let (response, _) = try await transport.send(post, body: Data(body.utf8))
        guard let location = response.headerFields[.location], let callback = URL(string: location) else {
            throw BenchmarkError("the provider did not redirect")
        }
        return callback
    }

    struct BenchmarkError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
