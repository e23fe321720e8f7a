import Foundation
import Testing
import Tether
import TetherTestSupport

/// The built `tether` executable with a `TETHER_HOME` of its own, pointed at the conformance server: `BROWSER` is
/// `Conformance/form-browser.py` (through the server's Python), so `tether login` signs ada in on DOT's own form.
struct TetherTool: Sendable {
    let server: ConformanceServer
    private(set) var home: URL
    var extraEnvironment: [String: String] = [:]

    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String { "tether not found at \(path); run `swift build --build-tests` first" }
    }

    /// The executable, beside the test binary in `.build/<triple>/debug/`.
    static func executable() throws -> URL {
        let productsFolder =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map {
                URL(fileURLWithPath: $0).deletingLastPathComponent()
            }
            ?? Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL.deletingLastPathComponent()
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let url = productsFolder.appendingPathComponent("tether")
        guard FileManager.default.isExecutableFile(atPath: url.path) else { throw Missing(path: url.path) }
        return url
    }

    /// `tether` with a new home folder inside `harness`'s temporary folder.
    init(_ harness: Harness, home name: String = "home") {
        server = harness.server
        home = harness.directory.appendingPathComponent(name, isDirectory: true)
    }

    /// The same command with more environment variables.
    func with(_ environment: [String: String]) -> TetherTool {
        var copy = self
        copy.extraEnvironment.merge(environment) { _, new in new }
        return copy
    }

    /// The same command on another home folder (another machine, or a stale copy of this one).
    func with(home: URL) -> TetherTool {
        var copy = self
        copy.home = home
        return copy
    }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("TETHER_") || key == "BROWSER" || key.hasPrefix("FORM_BROWSER")
        {
            environment[key] = nil
        }
        environment["TETHER_HOME"] = home.path
        environment["NO_COLOR"] = "1"
        environment["BROWSER"] = "'\(server.python)' '\(Harness.formBrowser.path)'"
        environment.merge(extraEnvironment) { _, new in new }
        return environment
    }

    /// Runs `tether arguments…` to completion.
    @discardableResult
    func run(_ arguments: [String], timeout: Duration = .seconds(90)) async throws -> Subprocess.Result {
        try await launch(arguments).finish(timeout: timeout)
    }

    /// Starts `tether arguments…` and returns at once.
    func launch(_ arguments: [String]) throws -> Subprocess {
        try Subprocess([try Self.executable().path] + arguments, environment: environment)
    }

    /// `tether login --issuer … --client-id client --name name` and more arguments, through the form browser.
    func login(
        _ name: String,
        client: String = "tether-public",
        _ more: [String] = []
    ) async throws -> Subprocess.Result {
        try await run(
            ["login", "--issuer", server.issuer, "--client-id", client, "--name", name, "--timeout", "60"] + more
        )
    }

    /// `tether status --json`, decoded.
    func status() async throws -> [[String: Any]] {
        let result = try await run(["status", "--json"])
        #expect(result.status == 0, "status failed: \(result.stderr)")
        let rows = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        return try #require(rows)
    }

    /// Writes a client's secret to a file only this user can read, for `--client-secret-file`.
    func secretFile(for clientID: String) throws -> String {
        let url = home.deletingLastPathComponent().appendingPathComponent("\(clientID).secret")
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        let written = FileManager.default.createFile(
            atPath: url.path,
            contents: Data(try server.secret(of: clientID).revealedValue.utf8),
            attributes: [.posixPermissions: 0o600]
        )
        guard written else { throw Subprocess.Failure(description: "could not write \(url.path)") }
        return url.path
    }
}
