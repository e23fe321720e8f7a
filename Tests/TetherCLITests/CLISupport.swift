import Foundation
import SignInTestSupport
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The built `tether` executable, run as a subprocess with its own `TETHER_HOME`, against a development provider
/// running in the test process.
struct CLI: Sendable {
    let home: URL
    let provider: RunningDevProvider
    var extraEnvironment: [String: String] = [:]

    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String { "tether not found at \(path); run `swift build --build-tests` first" }
    }

    /// The executable, beside the test bundle in `.build/<triple>/debug/`.
    static func executable(named name: String = "tether") throws -> URL {
        // Linux: the test binary's folder. macOS: the folder of the `.xctest` bundle (argv[0] is the runner there).
        let productsFolder =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map {
                URL(fileURLWithPath: $0).deletingLastPathComponent()
            }
            ?? Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL.deletingLastPathComponent()
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let url = productsFolder.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else { throw Missing(path: url.path) }
        return url
    }

    /// A provider on a free port and an empty `TETHER_HOME`.
    static func start(_ configuration: DevProvider.Configuration = DevProvider.Configuration()) async throws -> CLI {
        var configuration = configuration
        configuration.devicePollingInterval = .seconds(1)
        let provider = try await DevProvider(configuration).start()
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("tether-cli-\(UUID().uuidString)")
        return CLI(home: home, provider: provider)
    }

    /// The same CLI with more environment variables.
    func with(_ environment: [String: String]) -> CLI {
        var copy = self
        copy.extraEnvironment.merge(environment) { _, new in new }
        return copy
    }

    func stop() async {
        await provider.stop()
        try? FileManager.default.removeItem(at: home)
    }

    var issuer: String { provider.issuer.absoluteString }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("TETHER_") || key == "BROWSER" || key == "NO_COLOR" {
            environment[key] = nil
        }
        // Requests go to the development provider on 127.0.0.1, not through a proxy the machine may name (the proxy
        // tests give one back through `with(_:)`).
        for key in environment.keys where key.lowercased().hasSuffix("_proxy") { environment[key] = nil }
        environment["TETHER_HOME"] = home.path
        // A developer's desktop keyring stays out of the tests: without a session bus the vault key is in the file
        // (the keyring suites give the headless keyring's bus back through `with(_:)`).
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        environment.merge(extraEnvironment) { _, new in new }
        return environment
    }

    /// What a finished `tether` printed, and how it ended.
    typealias Result = ChildProcess.Result

    /// Runs `tether arguments…` to completion (at most `timeout`).
    @discardableResult
    func run(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> Result {
        let running = try launch(arguments)
        return try await running.finish(timeout: timeout)
    }

    /// Starts `tether arguments…` (or another executable of the package) and returns at once.
    func launch(_ arguments: [String], executable: String = "tether") throws -> Running {
        try Running([try Self.executable(named: executable).path] + arguments, environment: environment)
    }

    /// A running `tether`; standard error can be read line by line while it runs.
    typealias Running = ChildProcess

    /// Signs in with `tether login dev --device`, approving the code at the provider's verification page.
    func loginWithDeviceCode(name: String = "dev") async throws -> Result {
        try await loginWithDeviceCode(["login", "dev", "--issuer", issuer, "--device", "--name", name])
    }

    /// Runs a `tether login … --device` command line, approving its code at the verification page as `browser`'s
    /// user (ada by default).
    func loginWithDeviceCode(_ arguments: [String], as browser: FormBrowser = FormBrowser()) async throws -> Result {
        let running = try launch(arguments)
        // Backstops for a suite that keeps both cores busy: a sign-in ends within a second or two of the approval.
        let codeLine = try await running.waitForErrorLine(timeout: .seconds(60)) { $0.contains("enter the code") }
        let code = try #require(codeLine.split(separator: " ").last.map(String.init))
        // What a person does: open the verification page with the code, sign in, allow.
        let page = try #require(URL(string: provider.url("/device").absoluteString + "?user_code=\(code)"))
        let (_, answer) = try await browser.submit(page, extraFields: ["user_code": code])
        #expect(answer.contains("Device connected"), "the verification page answered: \(answer.prefix(300))")
        return try await running.finish(timeout: .seconds(60))
    }

    /// Runs a shell command line on a pseudo-terminal (`script -q -c … /dev/null`) and returns what it printed.
    func runScript(_ commandLine: String) async throws -> String {
        let running = try Running(
            ["/usr/bin/script", "-q", "-e", "-c", commandLine, "/dev/null"],
            environment: environment
        )
        return try await running.finish(timeout: .seconds(30)).stdout
    }

    /// `tether status --json`, decoded.
    func status() async throws -> [[String: Any]] {
        let result = try await run(["status", "--json"])
        #expect(result.status == 0, "status failed: \(result.stderr)")
        let rows = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        return try #require(rows)
    }
}
