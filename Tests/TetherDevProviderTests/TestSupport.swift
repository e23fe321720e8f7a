import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TetherDevProvider

/// A wall clock tests move by hand.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)

    var now: Date {
        self.lock.withLock { self.current }
    }

    func advance(by seconds: TimeInterval) {
        self.lock.withLock { self.current = self.current.addingTimeInterval(seconds) }
    }
}

enum Fixture {
    static let issuer = URL(string: "http://127.0.0.1:9999")!
    /// RFC 7636 Appendix B.
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    static let wrongVerifier = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    static let redirectURI = "http://127.0.0.1:53682/callback"
    static let clientID = "tether-dev-client"
}

/// A provider with a fixed issuer and a manual clock, for router tests.
func makeProvider(
    _ configure: (inout DevProvider.Configuration) -> Void = { _ in }
) -> (provider: DevProvider, clock: ManualClock) {
    let clock = ManualClock()
    var configuration = DevProvider.Configuration(issuer: Fixture.issuer)
    configuration.now = { clock.now }
    configure(&configuration)
    return (DevProvider(configuration), clock)
}

struct AuthorizationResult {
    let location: String
    let query: [String: String]
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension TestResponse {
    var text: String { String(buffer: self.body) }

    func json() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(self.body.readableBytesView))
        guard let dictionary = object as? [String: Any] else {
            throw TestFailure("not a JSON object: \(self.text)")
        }
        return dictionary
    }

    /// The value of the hidden `request_id` field on a login page.
    var requestID: String? {
        let text = self.text
        let marker = #"name="request_id" value=""#
        guard let start = text.range(of: marker)?.upperBound,
            let end = text[start...].firstIndex(of: "\"")
        else { return nil }
        return String(text[start..<end])
    }
}

func formBody(_ fields: [(String, String)]) -> String {
    let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    return fields.map { name, value in
        "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
    }.joined(separator: "&")
}

func queryItems(of uri: String) -> [String: String] {
    let items = URLComponents(string: uri)?.queryItems ?? []
    return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
}

extension TestClientProtocol {
    func get(_ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await self.execute(uri: uri, method: .get, headers: headers)
    }

    func post(_ uri: String, form fields: [(String, String)], headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        return try await self.execute(
            uri: uri,
            method: .post,
            headers: headers,
            body: ByteBuffer(string: formBody(fields))
        )
    }

    func admin(_ uri: String, json: String = "{}", adminKey: String?) async throws -> TestResponse {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let adminKey {
            headers[HTTPField.Name("X-Tether-Admin")!] = adminKey
        }
        return try await self.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: json))
    }

    /// `GET /authorize` with sensible defaults.
    func authorizationPage(
        clientID: String = Fixture.clientID,
        redirectURI: String = Fixture.redirectURI,
        scope: String = "openid email profile offline_access",
        nonce: String? = "nonce-456",
        challenge: String? = Fixture.challenge,
        method: String? = "S256",
        loginHint: String? = nil
    ) async throws -> TestResponse {
        var items: [(String, String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("scope", scope),
            ("state", "state-123"),
        ]
        if let nonce { items.append(("nonce", nonce)) }
        if let challenge { items.append(("code_challenge", challenge)) }
        if let method { items.append(("code_challenge_method", method)) }
        if let loginHint { items.append(("login_hint", loginHint)) }
        return try await self.get("/authorize?" + formBody(items))
    }

    /// Renders the login page and submits it; returns the redirect.
    func authorize(
        clientID: String = Fixture.clientID,
        redirectURI: String = Fixture.redirectURI,
        scope: String = "openid email profile offline_access",
        password: String = "lovelace",
        decision: String = "allow"
    ) async throws -> AuthorizationResult {
        let page = try await self.authorizationPage(clientID: clientID, redirectURI: redirectURI, scope: scope)
        guard let requestID = page.requestID else {
            throw TestFailure("no login form: \(page.status) \(page.text)")
        }
        let response = try await self.post(
            "/authorize",
            form: [("request_id", requestID), ("username", "ada"), ("password", password), ("decision", decision)]
        )
        guard response.status == .found, let location = response.headers[.location] else {
            throw TestFailure("expected a redirect, got \(response.status)")
        }
        return AuthorizationResult(location: location, query: queryItems(of: location))
    }

    /// Authorizes and exchanges the code; returns the token response.
    func signIn(
        clientID: String = Fixture.clientID,
        scope: String = "openid email profile offline_access",
        extraTokenFields: [(String, String)] = []
    ) async throws -> [String: Any] {
        let result = try await self.authorize(clientID: clientID, scope: scope)
        let code = try #require(result.query["code"])
        let response = try await self.exchange(code: code, clientID: clientID, extraFields: extraTokenFields)
        guard response.status == .ok else {
            throw TestFailure("token exchange failed: \(response.text)")
        }
        return try response.json()
    }

    func exchange(
        code: String,
        verifier: String? = Fixture.verifier,
        clientID: String = Fixture.clientID,
        extraFields: [(String, String)] = []
    ) async throws -> TestResponse {
        var fields: [(String, String)] = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Fixture.redirectURI),
            ("client_id", clientID),
        ]
        if let verifier { fields.append(("code_verifier", verifier)) }
        return try await self.post("/token", form: fields + extraFields)
    }

    func refresh(
        _ refreshToken: String,
        clientID: String = Fixture.clientID,
        extraFields: [(String, String)] = []
    ) async throws -> TestResponse {
        try await self.post(
            "/token",
            form: [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", clientID)]
                + extraFields
        )
    }

    func resource(_ path: String = "/resource", token: String?) async throws -> TestResponse {
        var headers = HTTPFields()
        if let token {
            headers[.authorization] = "Bearer \(token)"
        }
        return try await self.get(path, headers: headers)
    }
}
