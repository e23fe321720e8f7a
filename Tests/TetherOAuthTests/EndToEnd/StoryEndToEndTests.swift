import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Testing
import Tether
import TetherDevProvider
import TetherHummingbird
import TetherOAuth
import TetherServer
import TetherURLSession

/// A resource server on 127.0.0.1:0: `GET /me` behind `BearerTokenMiddleware`, answering the token's subject.
struct ResourceServer: Sendable {
    let port: Int
    let task: Task<Void, Never>

    var base: URL { URL(string: "http://127.0.0.1:\(port)")! }

    static func start(verifier: AccessTokenVerifier) async throws -> ResourceServer {
        let router = Router(context: BearerRequestContext.self)
        router.add(middleware: BearerTokenMiddleware(verifier: verifier, realm: "story"))
        router.get("/me") { _, context -> String in context.verifiedToken?.subject ?? "" }
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: ProviderHarness.silent
        )
        let task = Task {
            try? await app.run()
            continuation.finish()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw CancellationError()
        }
        return ResourceServer(port: port, task: task)
    }

    func stop() async {
        task.cancel()
        await task.value
    }
}

/// "401 an hour after sign-in", with two-second tokens standing in for one-hour ones, on the real clock.
///
/// It runs on the real clock with 0.5 s of refresh leeway, so it needs the machine to itself: run it alone with
/// `TETHER_STORY_TEST=1 swift test --filter StoryEndToEndTests`. With the rest of the suite in parallel on 2 cores
/// (load average ≈ 10) it saw 1 unauthorized request in 10,000.
@Suite(
    .timeLimit(.minutes(2)),
    .enabled(
        if: ProcessInfo.processInfo.environment["TETHER_STORY_TEST"] == "1",
        "Set TETHER_STORY_TEST=1; run it alone"
    )
)
struct StoryEndToEndTests {
    @Test func tenThousandRequestsAcrossExpiriesSeeNoUnauthorizedAndOneRefreshPerExpiry() async throws {
        let lifetime = 2.0
        let running = try await DevProvider(
            DevProvider.Configuration(accessTokenLifetime: .seconds(2), accessTokenFormat: .jwt)
        ).start()
        let transport = URLSessionTransport()
        let discovered = try await ProviderConfiguration.discover(
            issuer: running.issuer.absoluteString,
            clientID: "tether-dev-client",
            redirectURI: URL(string: "http://127.0.0.1/callback"),
            providerID: "dev",
            transport: transport
        )
        let oauth = try OAuthClient(configuration: discovered, transport: transport, logger: ProviderHarness.silent)
        // The provider's `exp` is whole seconds (up to one second before the client's idea of expiry), so the server
        // tolerates one second of skew; tokens older than that are refused.
        let resource = try await ResourceServer.start(
            verifier: .oidc(
                issuer: running.issuer.absoluteString,
                jwksURL: try #require(discovered.jwksURI),
                audience: running.issuer.absoluteString + "/resource",
                transport: transport,
                clockSkew: .seconds(1),
                logger: ProviderHarness.silent
            )
        )
        defer {
            Task {
                await resource.stop()
                await running.stop()
            }
        }

        let signedIn = try await oauth.signIn(using: FormBrowser().presenter())
        let session = Session(
            id: "story",
            store: MemoryStore(),
            refresher: oauth,
            revoker: oauth,
            logger: ProviderHarness.silent
        )
        try await session.signIn(account: try #require(signedIn.account), tokens: signedIn.tokens)
        let client = AuthorizedClient(session: session, transport: transport, logger: ProviderHarness.silent)
        let request = HTTPRequest(method: .get, url: resource.base.appendingPathComponent("me"))
        let refreshesBefore = await running.admin.counters()[.refreshes]

        let tasks = 50
        let perTask = 200
        let started = ContinuousClock.now
        let (successes, failures, unauthorized) = await withTaskGroup(of: (Int, Int, Int).self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    var counts = (0, 0, 0)
                    for _ in 0..<perTask {
                        do {
                            let (response, body) = try await client.send(request)
                            if response.status == .ok, !body.isEmpty { counts.0 += 1 } else { counts.1 += 1 }
                        } catch let error as AuthorizedClientError where error == .unauthorized {
                            counts.2 += 1
                        } catch {
                            counts.1 += 1
                        }
                        // Spread the run over several token lifetimes.
                        try? await Task.sleep(for: .milliseconds(35))
                    }
                    return counts
                }
            }
            var total = (0, 0, 0)
            for await counts in group {
                total.0 += counts.0
                total.1 += counts.1
                total.2 += counts.2
            }
            return total
        }
        let elapsed = (ContinuousClock.now - started).seconds

        #expect(unauthorized == 0)
        #expect(failures == 0)
        #expect(successes == tasks * perTask)
        // A token is refreshed 25 % of its lifetime before expiry: one refresh every 1.5 s of the run.
        let refreshes = await running.admin.counters()[.refreshes] - refreshesBefore
        let expected = Int((elapsed / (lifetime * 0.75)).rounded(.down))
        #expect(expected >= 3, "the run spanned \(elapsed) s")
        #expect(abs(refreshes - expected) <= 1, "\(refreshes) refreshes in \(elapsed) s; expected \(expected)")
        #expect(await running.admin.counters()[.reuseDetections] == 0)
    }
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
