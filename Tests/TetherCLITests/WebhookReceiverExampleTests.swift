import Foundation
import Testing
import TetherCommandSupport
import TetherPostgres
import TetherTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Examples/WebhookReceiver, run as a process: it takes a correctly signed event once, and refuses a wrong
/// signature, a stale one and a malformed header.
@Suite(.timeLimit(.minutes(1)))
struct WebhookReceiverExampleTests {
    static let secret = "example-secret-\(UUID().uuidString)"

    static func post(_ url: URL, body: Data, signature: String?) async throws -> Int {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let signature { request.setValue(signature, forHTTPHeaderField: "Tether-Signature") }
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test func verifiesSignaturesAndHandlesEachEventOnce() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["TETHER_WEBHOOK_SECRET"] = Self.secret
        let receiver = try ChildProcess(
            [try CLI.executable(named: "WebhookReceiver").path, "0"],
            environment: environment
        )
        defer { receiver.kill() }
        let listening = try await receiver.waitForErrorLine(timeout: .seconds(20)) { $0.contains("Listening on") }
        let url = try #require(listening.split(separator: " ").last.flatMap { URL(string: String($0)) })

        let body = Data(
            #"{"id":"evt_example","type":"connection.needs_sign_in","connection":"work","account":"a***@example.com"}"#
                .utf8
        )
        let good = WebhookSignature.header(payload: body, secret: WebhookSecret(Self.secret), timestamp: Date())
        let wrong = WebhookSignature.header(payload: body, secret: WebhookSecret("not-the-secret"), timestamp: Date())
        let stale = WebhookSignature.header(
            payload: body,
            secret: WebhookSecret(Self.secret),
            timestamp: Date().addingTimeInterval(-3_600)
        )
        #expect(try await Self.post(url, body: body, signature: wrong) == 401)
        #expect(try await Self.post(url, body: body, signature: stale) == 401)
        #expect(try await Self.post(url, body: body, signature: "t=1,v1=zz") == 400)
        #expect(try await Self.post(url, body: body, signature: nil) == 400)
        // Signed, but not this body.
        #expect(try await Self.post(url, body: body + Data(" ".utf8), signature: good) == 401)
        #expect(try await Self.post(url, body: body, signature: good) == 204)
        #expect(try await Self.post(url, body: body, signature: good) == 204)

        receiver.kill()
        let result = try await receiver.finish(timeout: .seconds(5))
        let handled = result.stdout.split(separator: "\n").filter { $0.hasPrefix("connection.needs_sign_in work") }
        #expect(handled.count == 1, "\(result.stdout)")
        #expect(result.stdout.split(separator: "\n").filter { $0.hasPrefix("refused") }.count == 4)
    }
}
