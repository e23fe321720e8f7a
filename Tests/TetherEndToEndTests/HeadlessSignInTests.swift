import Foundation
import ProviderTestSupport
import Testing
import Tether
import TetherDevProvider
import TetherOAuth
import TetherTestSupport
import TetherTesting

/// A person signs in with a real (headless) Chromium, the way the README's user would: the loopback presenter
/// opens `BROWSER`, the browser fills the development provider's sign-in page and is redirected to 127.0.0.1.
@Suite(.timeLimit(.minutes(2)))
struct HeadlessSignInTests {
    /// A presenter that opens the headless browser, which signs ada in and answers the consent with `decision`.
    func presenter(decision: String) -> LoopbackPresenter {
        LoopbackPresenter(
            configuration: .init(timeout: .seconds(60), browser: .system(environment: environment(decision: decision)))
        )
    }

    func environment(decision: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["BROWSER"] = "python3 '\(HeadlessBrowser.script.path)'"
        environment["HEADLESS_BROWSER_USERNAME"] = "ada"
        environment["HEADLESS_BROWSER_PASSWORD"] = "lovelace"
        environment["HEADLESS_BROWSER_DECISION"] = decision
        return environment
    }

    @Test(.enabled(if: HeadlessBrowser.isEnabled, "Needs Scripts/install-test-dependencies.sh"))
    func personSignsInWithAHeadlessBrowserAndTheSessionIsStored() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let presenter = self.presenter(decision: "allow")
        let result = try await harness.client.signIn(using: presenter)
        let account = try #require(result.account)
        #expect(account.displayIdentifier == "ada@example.com")
        let store = try harness.vault()
        let session = harness.session(store)
        try await session.signIn(account: account, tokens: result.tokens)
        #expect(await harness.session(try harness.vault()).restore().kind == .connected)
        #expect(await harness.counters()[.codesExchanged] == 1)
    }

    @Test(.enabled(if: HeadlessBrowser.isEnabled, "Needs Scripts/install-test-dependencies.sh"))
    func personWhoDeniesGetsAccessDenied() async throws {
        let harness = try await ProviderHarness.start()
        defer { Task { await harness.stop() } }
        let presenter = self.presenter(decision: "deny")
        await #expect(throws: OAuthError.accessDenied) { _ = try await harness.client.signIn(using: presenter) }
        #expect(await harness.counters()[.codesExchanged] == 0)
    }
}
