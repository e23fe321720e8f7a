import Foundation
import Testing
import TetherCommandSupport
import TetherTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tether status` and where the vault key is: one line when it is in `vault.key` beside the records.
struct KeyStatusTests {
    static func keyLines(_ result: CLI.Result) -> [String] {
        (result.stdout + result.stderr).split(separator: "\n").map(String.init).filter { $0.hasPrefix("Key: ") }
    }

    @Test func statusSaysOnceThatTheKeyIsBesideTheRecordsAndHowToMoveItOut() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let login = try await cli.loginWithDeviceCode()
        #expect(login.status == 0, "\(login.stderr)")
        let status = try await cli.run(["status"])
        #expect(status.status == 0, "\(status.stderr)")
        let lines = Self.keyLines(status)
        try #require(lines.count == 1, "\(status.stdout)")
        #expect(lines[0].contains(cli.home.appendingPathComponent("vault.key").path))
        #expect(lines[0].contains("beside the records"))
        #expect(lines[0].contains("no D-Bus session"), "\(lines[0])")
        #expect(lines[0].contains("Secret Service") && lines[0].contains("tether-vault-key"))
        // --json keeps standard output to the JSON array.
        let json = try await cli.run(["status", "--json"])
        #expect(!json.stdout.contains("Key: "))
        #expect(Self.keyLines(json).count == 1)
    }

    @Test func statusSaysNothingAboutAKeyFromASystemdCredential() async throws {
        let credentials = FileManager.default.temporaryDirectory
            .appendingPathComponent("tether-credentials-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: credentials) }
        try Data(repeating: 9, count: 32).write(to: credentials.appendingPathComponent("tether-vault-key"))
        let cli = try await CLI.start().with(["CREDENTIALS_DIRECTORY": credentials.path])
        defer { Task { await cli.stop() } }
        let login = try await cli.loginWithDeviceCode()
        #expect(login.status == 0, "\(login.stderr)")
        let status = try await cli.run(["status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(Self.keyLines(status).isEmpty, "\(status.stdout)")
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("vault.key").path))
    }

    @Test func aMalformedSystemdCredentialIsAConfigurationError() async throws {
        let credentials = FileManager.default.temporaryDirectory
            .appendingPathComponent("tether-credentials-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: credentials) }
        try Data("not a key".utf8).write(to: credentials.appendingPathComponent("tether-vault-key"))
        let cli = try await CLI.start().with(["CREDENTIALS_DIRECTORY": credentials.path])
        defer { Task { await cli.stop() } }
        let status = try await cli.run(["status"])
        #expect(status.status != 0)
        #expect(status.stderr.contains("tether-vault-key"), "\(status.stderr)")
        #expect(!status.stderr.contains("not a key"))
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("vault.key").path))
    }
}

/// Whether the headless keyring of Scripts/with-keyring.sh is there, or `TETHER_REQUIRE_KEYRING=1` demands it.
enum CLIKeyring {
    static let environment = ProcessInfo.processInfo.environment
    static var isEnabled: Bool {
        environment["TETHER_KEYRING_CONTROL"] != nil || environment["TETHER_REQUIRE_KEYRING"] == "1"
    }
}

/// The same under a real Secret Service (Scripts/with-keyring.sh); skipped without one.
@Suite(
    .serialized,
    .enabled(if: CLIKeyring.isEnabled, "No headless keyring: run under Scripts/with-keyring.sh")
)
struct KeyringStatusTests {
    static let environment = CLIKeyring.environment

    @Test func withAnUnlockedKeyringNoKeyFileIsWrittenAndStatusIsSilent() async throws {
        let bus = try #require(Self.environment["DBUS_SESSION_BUS_ADDRESS"], "no keyring session bus")
        let cli = try await CLI.start().with(["DBUS_SESSION_BUS_ADDRESS": bus])
        defer {
            Task {
                let clear = Process()
                clear.executableURL = URL(fileURLWithPath: "/usr/bin/secret-tool")
                clear.arguments = ["clear", "application", "tether", "vault", cli.home.path]
                try? clear.run()
                clear.waitUntilExit()
                await cli.stop()
            }
        }
        let login = try await cli.loginWithDeviceCode()
        #expect(login.status == 0, "\(login.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("vault.key").path))
        let token = try await cli.run(["token"])
        #expect(token.status == 0, "\(token.stderr)")
        let status = try await cli.run(["status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(KeyStatusTests.keyLines(status).isEmpty, "\(status.stdout)")
    }

    @Test func aSessionBusWithoutAKeyringFallsBackToTheFileAndStatusSaysSo() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let cli = try await CLI.start().with(["DBUS_SESSION_BUS_ADDRESS": bus.address])
        defer { Task { await cli.stop() } }
        // Signing in makes the key (`status` alone only reads, and creates nothing).
        let login = try await cli.loginWithDeviceCode()
        #expect(login.status == 0, "\(login.stderr)")
        #expect(FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("vault.key").path))
        let status = try await cli.run(["status"])
        let line = try #require(KeyStatusTests.keyLines(status).first, "\(status.stdout)\(status.stderr)")
        #expect(line.contains("beside the records"))
        #expect(line.contains("no Secret Service answers"), "\(line)")
    }
}

/// A D-Bus session bus of its own with no service files, so nothing is started on demand: a session without a
/// keyring. (`dbus-run-session` would start the installed gnome-keyring-daemon when asked for the Secret Service.)
struct PrivateBus {
    let folder: URL
    let process: Process
    var address: String { "unix:path=\(folder.path)/bus" }

    static func start() throws -> PrivateBus {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("tether-bus-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(folder.path)/bus</listen>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        let configurationFile = folder.appendingPathComponent("bus.conf")
        try Data(configuration.utf8).write(to: configurationFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(configurationFile.path)", "--nofork"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let bus = PrivateBus(folder: folder, process: process)
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: folder.appendingPathComponent("bus").path) {
            usleep(20_000)
        }
        return bus
    }

    func stop() {
        // SIGKILL: the test process may ignore SIGTERM (the signal deferral tests), and a child inherits that.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)
    }
}
