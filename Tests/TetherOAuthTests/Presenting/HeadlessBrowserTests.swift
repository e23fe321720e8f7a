import Foundation
import Testing
import TetherOAuth
import TetherTestSupport

extension Presenting {
    /// Drives `Scripts/headless-browser.py` (Selenium with Debian's chromium) through ``LoopbackPresenter`` and a
    /// real sign-in page, as CI does with the development provider.
    @Suite(.timeLimit(.minutes(2)))
    struct HeadlessBrowserTests {
        static let script = HeadlessBrowser.script
        static let isEnabled = HeadlessBrowser.isEnabled

        @Test(
            .enabled(
                if: isEnabled,
                "Needs chromium, chromium-driver and selenium: run Scripts/install-test-dependencies.sh"
            )
        )
        func headlessBrowserSignsInThroughTheLoopbackRedirect() async throws {
            let server = try FormServer()
            defer { server.stop() }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tether-headless-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let screenshot = directory.appendingPathComponent("redirect.png")

            var environment = ProcessInfo.processInfo.environment
            environment["BROWSER"] = "python3 '\(Self.script.path)'"
            environment["HEADLESS_BROWSER_SCREENSHOT"] = screenshot.path
            environment["HEADLESS_BROWSER_USERNAME"] = FormServer.username
            environment["HEADLESS_BROWSER_PASSWORD"] = FormServer.password
            environment["HEADLESS_BROWSER_DECISION"] = "allow"
            let presenter = LoopbackPresenter(
                configuration: .init(timeout: .seconds(60), browser: .system(environment: environment))
            )
            let presentation = try await presenter.begin(redirectURI: nil)
            let authorizationURL = server.authorizationURL(redirectURI: presentation.redirectURI, state: "state-42")

            let callback = try await presentation.present(authorizationURL)

            let components = try #require(URLComponents(url: callback, resolvingAgainstBaseURL: false))
            let items = Dictionary(
                uniqueKeysWithValues: (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }
            )
            #expect(callback.host == "127.0.0.1")
            #expect(callback.port == presentation.redirectURI.port)
            #expect(callback.path == "/callback")
            #expect(items["code"] == FormServer.code)
            #expect(items["state"] == "state-42")
            #expect(items["iss"] == "http://127.0.0.1:\(server.port)")
            #expect(server.receivedPosts.first?["decision"] == "allow")

            // The script ends by saving the redirect page; wait for it so that no chromium outlives the test.
            var waited = 0
            while !FileManager.default.fileExists(atPath: screenshot.path), waited < 300 {
                try await Task.sleep(for: .milliseconds(100))
                waited += 1
            }
            #expect(FileManager.default.fileExists(atPath: screenshot.path))
        }
    }
}
