package import Foundation

/// `Scripts/headless-browser.py` (Selenium with Debian's chromium), which signs in on a real sign-in page.
package enum HeadlessBrowser {
    package static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TetherTestSupport
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    package static let script = repositoryRoot.appendingPathComponent("Scripts/headless-browser.py")

    /// Whether the headless-browser tests run: when chromium, chromedriver and selenium are installed
    /// (Scripts/install-test-dependencies.sh), and always when `TETHER_REQUIRE_BROWSER=1` (CI), so that a
    /// failed install fails the run instead of skipping the tests.
    package static let isEnabled: Bool =
        ProcessInfo.processInfo.environment["TETHER_REQUIRE_BROWSER"] == "1" || isAvailable

    /// Whether chromium, chromedriver and selenium are installed (Scripts/install-test-dependencies.sh).
    package static let isAvailable: Bool = {
        let files = FileManager.default
        guard files.isExecutableFile(atPath: "/usr/bin/chromium"),
            files.isExecutableFile(atPath: "/usr/bin/chromedriver")
        else { return false }
        return SpawnedProcess.status(of: ["/usr/bin/env", "python3", "-c", "import selenium"]) == 0
    }()
}
