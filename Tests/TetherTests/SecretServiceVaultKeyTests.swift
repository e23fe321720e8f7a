import Foundation
import Testing
import Tether
import TetherTestSupport
import TetherTesting

/// The Secret Service the tests may use: the headless keyring of Scripts/with-keyring.sh, never a user's own.
enum TestKeyring {
    static let environment = ProcessInfo.processInfo.environment

    /// Scripts/with-keyring.sh sets both; a desktop session's bus alone is not enough, so that `swift test` on a
    /// developer's machine leaves their keyring alone.
    static var isProvided: Bool {
        environment["TETHER_KEYRING_CONTROL"] != nil && environment["DBUS_SESSION_BUS_ADDRESS"] != nil
    }

    /// Whether the suites run: the keyring is provided, or `TETHER_REQUIRE_KEYRING=1` makes its absence a failure.
    static var isEnabled: Bool { isProvided || environment["TETHER_REQUIRE_KEYRING"] == "1" }

    static let skipMessage: Comment =
        "No headless keyring: run under Scripts/with-keyring.sh (TETHER_REQUIRE_KEYRING=1 makes this a failure)"

    /// Fails the test unless the keyring is there and libsecret loads.
    static func require() throws {
        try #require(isProvided, "TETHER_REQUIRE_KEYRING=1 but no keyring: run under Scripts/with-keyring.sh")
        try #require(LibSecret.shared != nil, "libsecret-1.so.0 does not load: apt-get install libsecret-1-0")
    }

    static func lock() throws {
        try control("lock", input: nil)
    }

    static func unlock() throws {
        try control("unlock", input: environment["TETHER_KEYRING_PASSWORD"] ?? "")
    }

    private static func control(_ command: String, input: String?) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(environment["TETHER_KEYRING_CONTROL"]))
        process.arguments = [command]
        let pipe = Pipe()
        process.standardInput = pipe
        try process.run()
        try pipe.fileHandleForWriting.write(contentsOf: Data((input ?? "").utf8))
        try pipe.fileHandleForWriting.close()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "keyring-control.py \(command) failed")
    }

    /// The keyring as the vault sees it.
    static func keyring() throws -> SecretServiceKeyring {
        try SecretServiceKeyring.forEnvironment(environment, schema: SecretServiceKeyring.vaultKeySchema).get()
    }

    /// Removes the vault's key item, so that a run leaves nothing behind.
    static func removeKey(of fixture: VaultFixture) {
        _ = try? keyring().clear(VaultStore.keyItemAttributes(root: fixture.directory.path))
    }
}

@Suite(.serialized, .enabled(if: TestKeyring.isEnabled, TestKeyring.skipMessage))
struct SecretServiceVaultKeyTests {
    func open(_ fixture: VaultFixture, environment: [String: String] = TestKeyring.environment) throws -> VaultStore {
        try VaultStore(directory: fixture.directory, environment: environment.filter { $0.key != "TETHER_VAULT_KEY" })
    }

    func keyFileExists(_ fixture: VaultFixture) -> Bool {
        FileManager.default.fileExists(atPath: fixture.directory.appendingPathComponent("vault.key").path)
    }

    @Test func keyIsCreatedInTheKeyringAndASecondProcessReadsTheRecords() async throws {
        try TestKeyring.require()
        let fixture = VaultFixture()
        defer {
            TestKeyring.removeKey(of: fixture)
            fixture.remove()
        }
        let store = try open(fixture)
        #expect(store.keySource == .secretService)
        _ = try await store.write(StoreContract.sampleConnection("google"))
        #expect(!keyFileExists(fixture))
        let item = try #require(
            try TestKeyring.keyring().lookup(VaultStore.keyItemAttributes(root: fixture.directory.path))
        )
        #expect(try VaultKey(base64: item).description == "VaultKey(<redacted>)")

        let probe = try ProbeProcess.launch(["read-record", fixture.directory.path, "google"])
        defer { probe.kill() }
        #expect(try await probe.waitForLine("found Secret Service", timeout: .seconds(20)))
        #expect(await probe.waitForExit(timeout: .seconds(10)))
        #expect(probe.process.terminationStatus == 0)
    }

    @Test func lockedKeyringIsUnavailableThenRecoversAfterUnlock() async throws {
        try TestKeyring.require()
        let fixture = VaultFixture()
        defer {
            try? TestKeyring.unlock()
            TestKeyring.removeKey(of: fixture)
            fixture.remove()
        }
        let written = try await open(fixture).write(StoreContract.sampleConnection("google"))
        try TestKeyring.lock()
        let store = try open(fixture)
        #expect(store.keySource == nil)
        let error = try await #require(throws: CredentialStoreError.self) { try await store.read("google") }
        #expect(error == .unavailable)
        #expect(error.message.contains("locked"))
        #expect(!keyFileExists(fixture))

        try TestKeyring.unlock()
        #expect(try await store.read("google") == written)
        #expect(store.keySource == .secretService)
        #expect(!keyFileExists(fixture))
    }

    @Test func keyFileIsMovedIntoTheKeyringOnTheNextWrite() async throws {
        try TestKeyring.require()
        let fixture = VaultFixture()
        defer {
            TestKeyring.removeKey(of: fixture)
            fixture.remove()
        }
        var withoutKeyring = TestKeyring.environment
        withoutKeyring["TETHER_SECRET_SERVICE"] = "off"
        let written = try await open(fixture, environment: withoutKeyring).write(
            StoreContract.sampleConnection("google")
        )
        let record = try Data(contentsOf: fixture.recordURL("google"))
        #expect(keyFileExists(fixture))

        let store = try open(fixture)
        #expect(store.keySource == .keyFile)
        _ = try await store.write(StoreContract.sampleConnection("other"))
        #expect(store.keySource == .secretService)
        #expect(!keyFileExists(fixture))
        #expect(try Data(contentsOf: fixture.recordURL("google")) == record)
        #expect(try await open(fixture).read("google") == written)
    }

    @Test func malformedKeyringItemIsRefusedAndLeftAlone() throws {
        try TestKeyring.require()
        let fixture = VaultFixture()
        defer {
            TestKeyring.removeKey(of: fixture)
            fixture.remove()
        }
        let attributes = VaultStore.keyItemAttributes(root: fixture.directory.path)
        try TestKeyring.keyring().store("too short", label: "test", attributes: attributes)
        #expect(throws: CredentialStoreError.invalidConfiguration) { try open(fixture) }
        #expect(try TestKeyring.keyring().lookup(attributes) == "too short")
        #expect(!keyFileExists(fixture))
    }

    @Test func withoutLibsecretTheKeyFileIsUsedAndTheReasonGiven() throws {
        let skipped = SecretServiceKeyring.forEnvironment(
            TestKeyring.environment,
            schema: SecretServiceKeyring.vaultKeySchema,
            library: LibSecret.load("libsecret-absent-for-tests.so.0")
        )
        guard case .failure(let reason) = skipped else {
            Issue.record("a missing library still gave a keyring")
            return
        }
        #expect(reason.reason.contains("libsecret"))
    }
}
