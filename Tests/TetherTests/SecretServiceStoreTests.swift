import Foundation
import InMemoryLogging
import Logging
import Testing
import Tether
import TetherTesting

struct SecretServiceStoreTests {
    static func lockFolder() -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("tether-keyring-locks-\(UUID().uuidString)/locks", isDirectory: true)
    }

    @Test func storeHonoursTheContractOverAKeyringDouble() async throws {
        let locks = Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: locks.deletingLastPathComponent()) }
        let store = try SecretServiceStore(namespace: "contract", lockDirectory: locks, keyring: MemoryKeyring())
        try await StoreContract().verify(store)
    }

    @Test func lockedKeyringIsUnavailableNeverNoRecord() async throws {
        let locks = Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: locks.deletingLastPathComponent()) }
        let keyring = MemoryKeyring()
        let store = try SecretServiceStore(namespace: "app", lockDirectory: locks, keyring: keyring)
        let written = try await store.write(StoreContract.sampleConnection("google"))
        keyring.state.withLock { $0.isLocked = true }
        await #expect(throws: CredentialStoreError.unavailable) { try await store.read("google") }
        await #expect(throws: CredentialStoreError.unavailable) { try await store.list() }
        await #expect(throws: CredentialStoreError.unavailable) {
            try await store.write(StoreContract.sampleConnection("google"))
        }
        keyring.state.withLock { $0.isLocked = false }
        #expect(try await store.read("google") == written)
    }

    @Test func damagedItemIsCorruptedAndNeverOverwritten() async throws {
        let locks = Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: locks.deletingLastPathComponent()) }
        let keyring = MemoryKeyring()
        let store = try SecretServiceStore(namespace: "app", lockDirectory: locks, keyring: keyring)
        let attributes = ["application": "tether", "namespace": "app", "connection": "google"]
        try keyring.store("{\"secret\":\"not a record\"}", label: "x", attributes: attributes)
        let error = try await #require(throws: CredentialStoreError.self) { try await store.read("google") }
        #expect(error == .corrupted)
        #expect(!"\(error)".contains("not a record"))
        await #expect(throws: CredentialStoreError.corrupted) {
            try await store.write(StoreContract.sampleConnection("google"))
        }
        #expect(try keyring.lookup(attributes) == "{\"secret\":\"not a record\"}")
    }

    @Test func namespacesKeepStoresApart() async throws {
        let locks = Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: locks.deletingLastPathComponent()) }
        let keyring = MemoryKeyring()
        let first = try SecretServiceStore(namespace: "one", lockDirectory: locks, keyring: keyring)
        let second = try SecretServiceStore(namespace: "two", lockDirectory: locks, keyring: keyring)
        _ = try await first.write(StoreContract.sampleConnection("google"))
        #expect(try await second.read("google") == nil)
        #expect(try await second.list().isEmpty)
        #expect(try await first.list() == ["google"])
    }

    @Test func logsNeverContainTokens() async throws {
        let locks = Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: locks.deletingLastPathComponent()) }
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .trace
        let store = try SecretServiceStore(
            namespace: "app",
            lockDirectory: locks,
            keyring: MemoryKeyring(),
            logger: logger
        )
        let record = try await store.write(StoreContract.sampleConnection("google"))
        _ = try await store.read("google")
        try await store.delete("google")
        let secrets = [record.tokens.accessToken?.revealedValue, record.tokens.refreshToken?.revealedValue]
            .compactMap { $0 }
        #expect(!handler.entries.isEmpty)
        for entry in handler.entries {
            #expect(entry.level <= .debug)
            let text = "\(entry.message) \(entry.metadata)"
            #expect(secrets.allSatisfy { !text.contains($0) })
        }
    }

    @Test func withoutASessionBusTheStoreIsAConfigurationError() throws {
        let error = try #require(throws: CredentialStoreError.self) {
            try SecretServiceStore(environment: ["HOME": "/nonexistent"])
        }
        #expect(error == .invalidConfiguration)
        #expect(error.message.contains("D-Bus"))
    }
}

/// The store against GNOME Keyring (Scripts/with-keyring.sh); skipped without it.
@Suite(.serialized, .enabled(if: TestKeyring.isEnabled, TestKeyring.skipMessage))
struct SecretServiceStoreKeyringTests {
    @Test func storeHonoursTheContractInTheKeyring() async throws {
        try TestKeyring.require()
        let locks = SecretServiceStoreTests.lockFolder()
        defer { try? FileManager.default.removeItem(at: locks.deletingLastPathComponent()) }
        let store = try SecretServiceStore(
            namespace: "contract-\(UUID().uuidString)",
            lockDirectory: locks,
            environment: TestKeyring.environment
        )
        try await StoreContract().verify(store)
        #expect(try await store.list().isEmpty)
    }

    @Test func lockedKeyringIsUnavailableThenRecovers() async throws {
        try TestKeyring.require()
        let locks = SecretServiceStoreTests.lockFolder()
        defer {
            try? TestKeyring.unlock()
            try? FileManager.default.removeItem(at: locks.deletingLastPathComponent())
        }
        let store = try SecretServiceStore(
            namespace: "locked-\(UUID().uuidString)",
            lockDirectory: locks,
            environment: TestKeyring.environment
        )
        let written = try await store.write(StoreContract.sampleConnection("google"))
        try TestKeyring.lock()
        await #expect(throws: CredentialStoreError.unavailable) { try await store.read("google") }
        try TestKeyring.unlock()
        #expect(try await store.read("google") == written)
        try await store.delete("google")
    }
}
