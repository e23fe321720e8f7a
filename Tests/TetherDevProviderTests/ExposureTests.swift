import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import TetherDevProvider

/// The provider signs anyone in and its admin API mints tokens: it stays on loopback and its admin key is not
/// guessable unless the configuration says otherwise.
struct ExposureTests {
    @Test(arguments: ["0.0.0.0", "192.168.1.2", "::", "example.com"])
    func nonLoopbackHostsAreRefused(host: String) async throws {
        let provider = DevProvider(.init(host: host))
        await #expect(throws: DevProviderError.nonLoopbackHost) { _ = try await provider.start() }
        #expect(throws: DevProviderError.nonLoopbackHost) { _ = try provider.application() }
    }

    @Test func loopbackHostsAndAnExplicitOptInAreAccepted() throws {
        for host in ["127.0.0.1", "127.0.0.2", "localhost", "::1"] {
            _ = try DevProvider(.init(host: host)).application()
        }
        _ = try DevProvider(.init(host: "0.0.0.0", allowNonLoopbackHost: true)).application()
    }

    @Test func everyProviderHasItsOwnAdminKey() async throws {
        let first = try await DevProvider().start()
        defer { Task { await first.stop() } }
        let second = try await DevProvider().start()
        defer { Task { await second.stop() } }

        #expect(first.adminKey != second.adminKey)
        #expect(first.adminKey.count >= 43)
        #expect(DevProvider(.init(adminKey: "chosen")).configuration.adminKey == "chosen")
    }

    @Test func theAdminAPIRefusesTheFormerFixedKey() async throws {
        let (provider, _) = makeProvider()
        try await provider.application().test(.router) { client in
            let fixed = try await client.admin(
                "/admin/tokens",
                json: #"{"username":"ada"}"#,
                adminKey: "tether-dev-admin"
            )
            #expect(fixed.status == .unauthorized)
            let own = try await client.admin("/admin/reset", adminKey: provider.configuration.adminKey)
            #expect(own.status == .ok)
        }
    }
}
