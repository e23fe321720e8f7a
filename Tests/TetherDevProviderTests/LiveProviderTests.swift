import Foundation
import HTTPTypes
import Testing
import TetherDevProvider

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(3)))
struct LiveProviderTests {
    @Test func startedProviderServesDiscoveryOnItsIssuer() async throws {
        let running = try await DevProvider().start()
        #expect(running.port > 0)
        #expect(running.issuer.absoluteString == "http://127.0.0.1:\(running.port)")
        let (data, response) = try await URLSession.shared.data(from: running.url("/.well-known/openid-configuration"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(json?["issuer"] as? String == running.issuer.absoluteString)
        await running.stop()
    }

    @Test func droppedConnectionFailsARealClient() async throws {
        let running = try await DevProvider().start()
        await running.admin.dropNext(1, connectionsTo: .token)
        var request = URLRequest(url: running.url("/token"))
        request.httpMethod = "POST"
        request.httpBody = Data("grant_type=refresh_token&refresh_token=x&client_id=tether-dev-client".utf8)
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        await #expect(throws: (any Error).self) {
            _ = try await URLSession.shared.data(for: request)
        }
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 400)
        #expect(await running.admin.counters()[.droppedConnections] == 1)
        await running.stop()
    }

    @Test func twoProvidersRunSideBySide() async throws {
        let first = try await DevProvider().start()
        let second = try await DevProvider(.init(dialect: .google)).start()
        #expect(first.port != second.port)
        await first.stop()
        await second.stop()
    }
}
