import Foundation
import HTTPTypes
import Logging
import Tether
import TetherOAuth
import TetherURLSession

/// Tether's side of the side-by-side benchmark in `bench/` (see docs/benchmarks.md): a process driven over
/// standard input and output, one JSON object per line, against a development provider that is already running.
///
///     TetherBenchmarks --peer-agent ISSUER VAULT_FOLDER
///
/// `BENCH_ADMIN_KEY` holds the provider's admin key (used to mint a new grant after a forced sign-out). Commands:
/// `seed` (store a grant; a negative `expires_in` stores an expired access token), `open` (a new store and session,
/// as at launch), `burst` (N concurrent callers send one authorized GET each), `fresh`, `get` and `restore` (costs),
/// `soak` (callers loop across many expiries).
enum PeerAgent {
    struct Command: Decodable {
        var op: String
        var accessToken: String?
        var refreshToken: String?
        var expiresIn: Double?
        var callers: Int?
        var iterations: Int?
        var seconds: Double?
        var url: String?

        enum CodingKeys: String, CodingKey {
            case op
            case accessToken = "access_token"
            case refreshToken = "refresh_token"
            case expiresIn = "expires_in"
            case callers, iterations, seconds, url
        }
    }

    static let account = Account(providerID: "dev", subject: "ada", displayIdentifier: "ada")
    static let id: ConnectionID = "bench"

    static func run(issuer: String, vault: URL) async throws {
        let silent = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
        let transport = URLSessionTransport()
        let configuration = try await ProviderConfiguration.discover(
            issuer: issuer,
            clientID: "tether-dev-client",
            providerID: "dev",
            transport: transport
        )
        let client = try OAuthClient(configuration: configuration, transport: transport, logger: silent)
        func open() throws -> Session {
            let store = try VaultStore(directory: vault, logger: silent)
            return Session(id: id, store: store, refresher: client, logger: silent)
        }
        var session = try open()
        answer(["ready": true])
        while let line = readLine() {
            let command = try JSONDecoder().decode(Command.self, from: Data(line.utf8))
            switch command.op {
            case "seed":
                let now = Date()
                let tokens = TokenSet(
                    accessToken: command.accessToken.map { AccessToken($0) },
                    refreshToken: command.refreshToken.map { RefreshToken($0) },
                    receivedAt: now,
                    expiresAt: now.addingTimeInterval(command.expiresIn ?? -1)
                )
                try await session.signIn(account: account, tokens: tokens)
                session = try open()
                answer(["ok": true])
            case "open":
                session = try open()
                answer(["ok": true])
            case "burst":
                let authorized = AuthorizedClient(session: session, transport: transport, logger: silent)
                answer(await burst(authorized, url: command.url ?? "", callers: command.callers ?? 1))
            case "fresh":
                answer(try await fresh(session, iterations: command.iterations ?? 100))
            case "get":
                let authorized = AuthorizedClient(session: session, transport: transport, logger: silent)
                answer(try await get(authorized, url: command.url ?? "", iterations: command.iterations ?? 100))
            case "restore":
                answer(try await restore(open, iterations: command.iterations ?? 100))
            case "soak":
                let authorized = AuthorizedClient(session: session, transport: transport, logger: silent)
                answer(
                    await soak(
                        session,
                        client: authorized,
                        url: command.url ?? "",
                        issuer: issuer,
                        transport: transport,
                        callers: command.callers ?? 50,
                        seconds: command.seconds ?? 10
                    )
                )
            default:
                answer(["error": "unknown op \(command.op)"])
            }
        }
    }

    static func answer(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    static func outcome(_ error: any Error) -> String {
        if let error = error as? SessionError {
            if error ~= SessionError.needsSignIn { return "needs_sign_in" }
            return "session_error"
        }
        if let error = error as? AuthorizedClientError {
            if let cause = error.cause, outcome(cause) == "needs_sign_in" { return "needs_sign_in" }
            if error ~= AuthorizedClientError.unauthorized { return "unauthorized" }
            if error ~= AuthorizedClientError.transport { return "transport_error" }
            return "client_error"
        }
        return "other_error"
    }

    /// N callers send an authorized GET at once; how many succeeded and how the others failed.
    static func burst(_ client: AuthorizedClient, url: String, callers: Int) async -> [String: Any] {
        guard let target = URL(string: url) else { return ["error": "bad url"] }
        let request = HTTPRequest(method: .get, url: target)
        let clock = ContinuousClock()
        let start = clock.now
        let results = await withTaskGroup(of: String.self) { group in
            for _ in 0..<callers {
                group.addTask {
                    do {
                        _ = try await client.send(request)
                        return "ok"
                    } catch {
                        return outcome(error)
                    }
                }
            }
            var results: [String: Int] = [:]
            for await result in group { results[result, default: 0] += 1 }
            return results
        }
        return ["results": results, "seconds": Benchmarks.nanoseconds(clock.now - start) / 1e9]
    }

    /// Per-call cost of a fresh token, in batches of 1,000 calls (microseconds per call).
    static func fresh(_ session: Session, iterations: Int) async throws -> [String: Any] {
        _ = try await session.validAccessToken()
        let clock = ContinuousClock()
        var samples: [Double] = []
        for _ in 0..<iterations {
            let start = clock.now
            for _ in 0..<1_000 { _ = try await session.validAccessToken() }
            samples.append(Benchmarks.nanoseconds(clock.now - start) / 1e6)
        }
        return ["us": samples]
    }

    /// One authorized GET per sample (milliseconds).
    static func get(_ client: AuthorizedClient, url: String, iterations: Int) async throws -> [String: Any] {
        guard let target = URL(string: url) else { return ["error": "bad url"] }
        let request = HTTPRequest(method: .get, url: target)
        _ = try await client.send(request)
        let clock = ContinuousClock()
        var samples: [Double] = []
        for _ in 0..<iterations {
            let start = clock.now
            _ = try await client.send(request)
            samples.append(Benchmarks.nanoseconds(clock.now - start) / 1e6)
        }
        return ["ms": samples]
    }

    /// A launch: open the vault, create the session, restore (milliseconds).
    static func restore(_ open: () throws -> Session, iterations: Int) async throws -> [String: Any] {
        let clock = ContinuousClock()
        var samples: [Double] = []
        for _ in 0..<iterations {
            let start = clock.now
            let session = try open()
            let status = await session.restore()
            samples.append(Benchmarks.nanoseconds(clock.now - start) / 1e6)
            guard case .connected = status else { return ["error": "restore: \(status)"] }
        }
        return ["ms": samples]
    }

    /// Callers send an authorized GET every 50 ms for a while; a caller told to sign in again counts a forced
    /// sign-out, and the grant is replaced by a new one (the user signing in again) so that the run goes on.
    static func soak(
        _ session: Session,
        client: AuthorizedClient,
        url: String,
        issuer: String,
        transport: any HTTPTransport,
        callers: Int,
        seconds: Double
    ) async -> [String: Any] {
        guard let target = URL(string: url) else { return ["error": "bad url"] }
        let request = HTTPRequest(method: .get, url: target)
        let state = SoakState()
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<callers {
                group.addTask {
                    while ContinuousClock.now < deadline {
                        let generation = await state.generation
                        do {
                            _ = try await client.send(request)
                            await state.record("ok")
                        } catch {
                            let kind = outcome(error)
                            await state.record(kind)
                            if kind == "needs_sign_in" {
                                await state.signInAgain(
                                    session,
                                    after: generation,
                                    issuer: issuer,
                                    transport: transport
                                )
                            }
                        }
                        try? await Task.sleep(for: .milliseconds(50))
                    }
                }
            }
        }
        return await ["calls": state.counts, "sign_outs": state.signOuts]
    }

    actor SoakState {
        var counts: [String: Int] = [:]
        var signOuts = 0
        /// Bumped by each new sign-in, so that callers that failed on the same grant sign in once.
        var generation = 0

        func record(_ kind: String) { counts[kind, default: 0] += 1 }

        func signInAgain(_ session: Session, after seen: Int, issuer: String, transport: any HTTPTransport) async {
            guard seen == generation else { return }
            generation += 1
            signOuts += 1
            guard let tokens = try? await mint(issuer: issuer, transport: transport) else { return }
            _ = try? await session.signIn(account: PeerAgent.account, tokens: tokens)
        }
    }

    /// A new grant for ada from the provider's admin API.
    static func mint(issuer: String, transport: any HTTPTransport) async throws -> TokenSet {
        guard let url = URL(string: issuer + "/admin/tokens") else { throw URLError(.badURL) }
        var request = HTTPRequest(method: .post, url: url)
        if let name = HTTPField.Name("X-Tether-Admin") {
            request.headerFields[name] = ProcessInfo.processInfo.environment["BENCH_ADMIN_KEY"]
        }
        request.headerFields[.contentType] = "application/json"
        let (_, data) = try await transport.send(request, body: Data(#"{"username":"ada"}"#.utf8))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        let now = Date()
        return TokenSet(
            accessToken: (object["access_token"] as? String).map { AccessToken($0) },
            refreshToken: (object["refresh_token"] as? String).map { RefreshToken($0) },
            receivedAt: now,
            expiresAt: now.addingTimeInterval(Double(object["expires_in"] as? Int ?? 0))
        )
    }
}
