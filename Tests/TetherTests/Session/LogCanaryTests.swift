import Foundation
import InMemoryLogging
import Logging
import Testing
import Tether
import TetherTesting

/// Runs sign-in, refresh, failures and sign-out with trace logging and checks that no secret reaches a log
/// entry, an error description or a status.
struct LogCanaryTests {
    @Test func noTokenReachesLogsErrorsOrStatuses() async throws {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "canary", factory: { _ in handler })
        logger.logLevel = .trace
        let harness = SessionHarness(lifetime: .seconds(60), logger: logger)
        var seenSecrets: [String] = []
        var rendered: [String] = []

        let first = try await harness.signIn()
        seenSecrets += Self.secrets(of: first.tokens)
        rendered.append(await harness.session.status.description)

        // Refresh with rotation.
        harness.clock.advance(by: .seconds(60))
        _ = try await harness.session.validAccessToken()
        let refreshed = try #require(try await harness.store.read("dev"))
        seenSecrets += Self.secrets(of: refreshed.tokens)

        // A transient failure, then a forced refresh.
        harness.clock.advance(by: .seconds(60))
        harness.issuer.failNextRefreshes(with: [.transient("HTTP 503")])
        let call = Task { try await harness.session.validAccessToken() }
        #expect(await harness.clock.waitForSleepers(1))
        rendered.append(await harness.session.status.description)
        harness.clock.advance(by: .seconds(1))
        let token = try await call.value
        seenSecrets.append(token.revealedValue)
        let forced = try await harness.session.forceRefresh(rejecting: token)
        seenSecrets.append(forced.revealedValue)
        seenSecrets += Self.secrets(of: try #require(try await harness.store.read("dev")).tokens)

        // The grant is revoked: needs sign-in.
        try harness.issuer.revokeAllGrants()
        harness.clock.advance(by: .seconds(3600))
        do {
            _ = try await harness.session.validAccessToken()
        } catch {
            rendered.append(String(describing: error))
            rendered.append(String(reflecting: error))
            rendered.append("\(error.localizedDescription)")
        }
        rendered.append(await harness.session.status.description)

        // Sign in again and out.
        let again = try await harness.signIn()
        seenSecrets += Self.secrets(of: again.tokens)
        try await harness.session.signOut()

        let entries = handler.entries
        #expect(entries.count > 5)
        #expect(entries.contains { $0.level == .trace })
        for entry in entries {
            let line = "\(entry.message) \(entry.metadata.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
            rendered.append(line)
            #expect(entry.level <= .info, "library logs nothing above info: \(line)")
        }
        #expect(Set(seenSecrets).count >= 6)
        for text in rendered {
            for secret in seenSecrets { #expect(!text.contains(secret), "secret in: \(text)") }
            #expect(!text.contains("jane@example.com"), "address in: \(text)")
        }
    }

    static func secrets(of tokens: TokenSet) -> [String] {
        [tokens.accessToken?.revealedValue, tokens.refreshToken?.revealedValue, tokens.idToken?.revealedValue]
            .compactMap { $0 }
    }
}
