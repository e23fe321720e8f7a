import Foundation
import Testing
import TetherOAuth

extension Presenting {
    /// Drives `Scripts/headless-browser.py` (Selenium with Debian's chromium) through ``LoopbackPresenter`` and a
    /// real sign-in page, as CI does with the development provider.
    @Suite(.timeLimit(.minutes(2)))
    struct HeadlessBrowserTests {
        static let repositoryRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Presenting
            .deletingLastPathComponent()  // TetherOAuthTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()

        static let script = repositoryRoot.appendingPathComponent("Scripts/headless-browser.py")

        /// Whether the headless-browser tests run: when chromium, chromedriver and selenium are installed
        /// (Scripts/install-test-dependencies.sh), and always when `TETHER_REQUIRE_BROWSER=1` (CI), so that a
        /// failed install fails the run instead of skipping the tests.
        static let isEnabled: Bool = ProcessInfo.processInfo.environment["TETHER_REQUIRE_BROWSER"] == "1" || isAvailable

        /// Whether chromium, chromedriver and selenium are installed (Scripts/install-test-dependencies.sh).
        static let isAvailable: Bool = {
            let files = FileManager.default
            guard files.isExecutableFile(atPath: "/usr/bin/chromium"),
                files.isExecutableFile(atPath: "/usr/bin/chromedriver")
            else { return false }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", "import selenium"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
                process.waitUntilExit()
                return process.terminationStatus == 0
            } catch {
                return false
            }
        }()

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
            environment["TETHER_BROWSER_SCREENSHOT"] = screenshot.path
            environment["TETHER_BROWSER_USERNAME"] = FormServer.username
            environment["TETHER_BROWSER_PASSWORD"] = FormServer.password
            environment["TETHER_BROWSER_DECISION"] = "allow"
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
