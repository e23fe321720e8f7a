import Foundation
import HTTPTypes
import Testing
import Tether
import TetherURLSession

/// The django-oauth-toolkit server that `Conformance/start-server.sh` started, read from its state folder
/// (`TETHER_CONFORMANCE_STATE`, the folder holding `server.env`), with its test-only endpoints: the switches, the
/// request log, early expiry and key rotation.
struct ConformanceServer: Sendable {
    static let environment = ProcessInfo.processInfo.environment

    /// The state folder, when one is given.
    static var stateFolder: String? { environment["TETHER_CONFORMANCE_STATE"].flatMap { $0.isEmpty ? nil : $0 } }

    /// Whether the suites run: a server is given, or `TETHER_REQUIRE_CONFORMANCE=1` makes its absence a failure.
    static var isEnabled: Bool { stateFolder != nil || environment["TETHER_REQUIRE_CONFORMANCE"] == "1" }

    static let skipMessage: Comment = """
        TETHER_CONFORMANCE_STATE is not set: run Scripts/conformance.sh, which starts django-oauth-toolkit on \
        127.0.0.1 and runs this suite against it
        """

    /// The repository, for the scripts in `Conformance/` and `Scripts/`.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // TetherConformanceTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The server's port on 127.0.0.1.
    let port: Int
    /// The issuer, `http://127.0.0.1:PORT/o`.
    let issuer: String
    /// `http://127.0.0.1:PORT`.
    let base: String
    /// The virtual environment's Python, which has `requests` for the browser stand-ins.
    let python: String
    private let adminKey: String
    private let secrets: [String: String]
    private let transport = URLSessionTransport()

    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads `server.env`, the admin key and the clients' secrets from the state folder.
    /// - Throws: When `TETHER_REQUIRE_CONFORMANCE=1` but no state folder is given, or the folder is incomplete.
    static func load() throws -> ConformanceServer {
        let folder = try #require(
            stateFolder,
            "TETHER_REQUIRE_CONFORMANCE=1 but TETHER_CONFORMANCE_STATE is not set (see Scripts/conformance.sh)"
        )
        let values = try readEnvironmentFile(URL(fileURLWithPath: folder).appendingPathComponent("server.env"))
        func value(_ name: String) throws -> String {
            guard let value = values[name], !value.isEmpty else {
                throw Unavailable(description: "\(folder)/server.env has no \(name)")
            }
            return value
        }
        guard let port = Int(try value("CONFORMANCE_PORT")) else {
            throw Unavailable(description: "\(folder)/server.env: CONFORMANCE_PORT is not a number")
        }
        let adminKey = try String(contentsOfFile: try value("CONFORMANCE_ADMIN_KEY_FILE"), encoding: .utf8)
        let clientsData = try Data(contentsOf: URL(fileURLWithPath: try value("CONFORMANCE_CLIENTS_FILE")))
        let clients = try JSONSerialization.jsonObject(with: clientsData) as? [String: Any]
        let registered = clients?["clients"] as? [String: [String: Any]] ?? [:]
        return ConformanceServer(
            port: port,
            issuer: try value("CONFORMANCE_ISSUER"),
            base: "http://127.0.0.1:\(port)",
            python: try value("CONFORMANCE_PYTHON"),
            adminKey: adminKey.trimmingCharacters(in: .whitespacesAndNewlines),
            secrets: registered.compactMapValues { $0["secret"] as? String }
        )
    }

    /// `NAME=value` lines, values optionally in double quotes.
    static func readEnvironmentFile(_ url: URL) throws -> [String: String] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            var value = String(line[line.index(after: equals)...])
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            values[String(line[..<equals])] = value
        }
        return values
    }

    /// A URL on the server, such as `url("/api/resource-rfc6750/")`.
    func url(_ path: String) -> URL { URL(string: base + path)! }

    /// An endpoint under the issuer, such as `endpoint("revoke_token/")`.
    func endpoint(_ path: String) -> URL { URL(string: issuer + "/" + path)! }

    /// The secret of a confidential client (`tether-basic`, `tether-post`, `tether-device-confidential`).
    func secret(of clientID: String) throws -> ClientSecret {
        guard let secret = secrets[clientID] else {
            throw Unavailable(description: "clients.json has no secret for \(clientID)")
        }
        return ClientSecret(secret)
    }

    /// The status `path` answers a request with `token` as its bearer token.
    func status(of path: String, bearer token: AccessToken) async throws -> Int {
        var request = HTTPRequest(method: .get, url: url(path))
        request.headerFields[.authorization] = "Bearer \(token.revealedValue)"
        return try await transport.send(request, body: nil).0.status.code
    }

    // MARK: - Test-only endpoints

    /// The switchable DOT settings now in force (`GET /conformance/settings`).
    func settings() async throws -> [String: Setting] {
        try JSONDecoder().decode([String: Setting].self, from: try await admin(.get, "/conformance/settings"))
    }

    /// Changes settings for the next requests (`POST /conformance/settings`) and returns the values they replaced.
    @discardableResult
    func change(_ changes: [String: Setting]) async throws -> [String: Setting] {
        let before = try await settings()
        _ = try await admin(.post, "/conformance/settings", body: try JSONEncoder().encode(changes))
        return before.filter { changes.keys.contains($0.key) }
    }

    /// Runs `body` with `changes` in force, and puts the previous values back afterwards, also when it throws.
    func with<T>(_ changes: [String: Setting], _ body: () async throws -> T) async throws -> T {
        let previous = try await change(changes)
        do {
            let result = try await body()
            try await change(previous)
            return result
        } catch {
            _ = try? await change(previous)
            throw error
        }
    }

    /// The request log since it was last cleared (`GET /conformance/requests`), clearing it.
    @discardableResult
    func requests(clear: Bool = true) async throws -> [LoggedRequest] {
        struct Log: Decodable { let requests: [LoggedRequest] }
        let path = "/conformance/requests" + (clear ? "?clear=1" : "")
        return try JSONDecoder().decode(Log.self, from: try await admin(.get, path)).requests
    }

    /// Makes every live access token expired at the server (`what: "access"`), and with `"all"` also revokes every
    /// refresh token: a grant ended behind the client's back. Returns how many access tokens it expired.
    @discardableResult
    func expire(_ what: String) async throws -> Int {
        struct Answer: Decodable { let expired_access_tokens: Int }
        let body = try JSONEncoder().encode(["what": what])
        return try JSONDecoder().decode(Answer.self, from: try await admin(.post, "/conformance/expire", body: body))
            .expired_access_tokens
    }

    /// Signs ID tokens with a new RSA key from now on; the previous key stays in the JWKS unless `keepPrevious` is
    /// `false`. Returns the number of keys in the JWKS.
    @discardableResult
    func rotateKey(keepPrevious: Bool) async throws -> Int {
        struct Answer: Decodable { let keys_in_jwks: Int }
        let body = try JSONEncoder().encode(["keep_previous": keepPrevious])
        return try JSONDecoder().decode(
            Answer.self,
            from: try await admin(.post, "/conformance/rotate-key", body: body)
        )
        .keys_in_jwks
    }

    private func admin(_ method: HTTPRequest.Method, _ path: String, body: Data? = nil) async throws -> Data {
        var request = HTTPRequest(method: method, url: url(path))
        request.headerFields[HTTPField.Name("X-Conformance-Key")!] = adminKey
        if body != nil { request.headerFields[.contentType] = "application/json" }
        let (response, answer) = try await transport.send(request, body: body)
        guard response.status.kind == .successful else {
            throw Unavailable(
                description:
                    "\(method) \(path) answered \(response.status.code): \(String(decoding: answer, as: UTF8.self))"
            )
        }
        return answer
    }
}

/// A value of a DOT setting: a number, a flag, a list of names or nothing.
enum Setting: Sendable, Hashable, Codable, CustomStringConvertible {
    case int(Int)
    case bool(Bool)
    case strings([String])
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else {
            self = .strings(try container.decode([String].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .int(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .strings(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    var description: String {
        switch self {
        case .int(let value): "\(value)"
        case .bool(let value): "\(value)"
        case .strings(let value): value.joined(separator: " ")
        case .null: "null"
        }
    }
}

/// One request the server answered, as its request log records it: never a secret.
struct LoggedRequest: Sendable, Hashable, Decodable, CustomStringConvertible {
    let method: String
    let path: String
    let grantType: String?
    /// How the client authenticated: `basic`, `post` or `none` (a `client_id` alone).
    let clientAuthentication: String?
    let tokenTypeHint: String?
    let bearer: Bool?
    let status: Int

    enum CodingKeys: String, CodingKey {
        case method, path, status, bearer
        case grantType = "grant_type"
        case clientAuthentication = "client_auth"
        case tokenTypeHint = "token_type_hint"
    }

    var description: String {
        var words = [method, path]
        if let grantType { words.append("grant_type=\(grantType)") }
        if let clientAuthentication { words.append("client_auth=\(clientAuthentication)") }
        if let tokenTypeHint { words.append("token_type_hint=\(tokenTypeHint)") }
        if bearer == true { words.append("bearer") }
        return words.joined(separator: " ") + " -> \(status)"
    }
}

extension [LoggedRequest] {
    /// The token endpoint requests of one grant type.
    func tokenRequests(_ grantType: String) -> [LoggedRequest] {
        filter { $0.path == "/o/token/" && $0.grantType == grantType }
    }

    /// The requests to one path.
    func to(_ path: String) -> [LoggedRequest] { filter { $0.path == path } }
}
