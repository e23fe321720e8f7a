import Foundation
import InMemoryLogging
import Logging
import Testing
import Tether
import TetherTesting

/// A keyring in memory that can be locked, taken away, or made to fail its writes.
final class MemoryKeyring: KeyringBackend {
    struct State {
        var items: [[String: String]: String] = [:]
        var isLocked = false
        var isAbsent = false
        var failsStores = false
        var stores = 0
    }

    let state = LockedState(State())

    func availability() throws -> KeyringAvailability {
        try state.withLock { state in
            if state.isAbsent { return .absent("no keyring in this test") }
            if state.isLocked { throw CredentialStoreError.unavailable.with(message: "The test keyring is locked") }
            return .available
        }
    }

    func lookup(_ attributes: [String: String]) throws -> String? {
        try state.withLock { state in
            if state.isLocked { throw CredentialStoreError.unavailable.with(message: "The test keyring is locked") }
            return state.items[attributes]
        }
    }

    func store(_ secret: String, label: String, attributes: [String: String]) throws {
        try state.withLock { state in
            if state.isLocked || state.failsStores {
                throw CredentialStoreError.unavailable.with(message: "The test keyring refused the item")
            }
            state.items[attributes] = secret
            state.stores += 1
        }
    }

    func values(of name: String, matching attributes: [String: String]) throws -> [String] {
        state.withLock { state in
            state.items.keys.filter { item in attributes.allSatisfy { item[$0.key] == $0.value } }.compactMap {
                $0[name]
            }
        }
    }

    func clear(_ attributes: [String: String]) throws -> Bool {
        state.withLock { $0.items.removeValue(forKey: attributes) != nil }
    }

    func item(for fixture: VaultFixture) -> String? {
        state.withLock { $0.items[VaultStore.keyItemAttributes(root: fixture.directory.path)] }
    }
}

struct VaultKeySourceTests {
    func open(
        _ fixture: VaultFixture,
        keyring: MemoryKeyring?,
        environment: [String: String] = [:],
        logger: Logger = .current
    ) throws -> VaultStore {
        try VaultStore(
            directory: fixture.directory,
            key: nil,
            environment: environment,
            keyring: keyring,
            keyringNote: keyring == nil ? "no keyring in this test" : nil,
            logger: logger
        )
    }

    func keyFileExists(_ fixture: VaultFixture) -> Bool {
        FileManager.default.fileExists(atPath: fixture.directory.appendingPathComponent("vault.key").path)
    }

    /// A folder laid out as systemd lays out `$CREDENTIALS_DIRECTORY`, holding `tether-vault-key`.
    func credentialsDirectory(holding contents: Data) throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("tether-credentials-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try contents.write(to: folder.appendingPathComponent(VaultStore.credentialName))
        return folder
    }

    // MARK: Order and reporting

    @Test func explicitKeyComesFirstAndIsReported() throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let keyring = MemoryKeyring()
        let store = try VaultStore(
            directory: fixture.directory,
            key: .generate(),
            environment: ["TETHER_VAULT_KEY": VaultKey.generate().revealedBase64],
            keyring: keyring
        )
        #expect(store.keySource == .explicit)
        #expect(keyring.item(for: fixture) == nil)
        #expect(!keyFileExists(fixture))
    }

    @Test func environmentKeyComesBeforeTheCredentialAndTheKeyring() throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let credentials = try credentialsDirectory(holding: Data(repeating: 1, count: 32))
        defer { try? FileManager.default.removeItem(at: credentials) }
        let keyring = MemoryKeyring()
        let environment = [
            "TETHER_VAULT_KEY": VaultKey.generate().revealedBase64, "CREDENTIALS_DIRECTORY": credentials.path,
        ]
        let store = try open(fixture, keyring: keyring, environment: environment)
        #expect(store.keySource == .environment)
        #expect(keyring.item(for: fixture) == nil)
    }

    // MARK: systemd credentials

    static let credentialContents: [Data] = [
        Data(repeating: 7, count: 32),
        Data((Data(repeating: 7, count: 32).base64EncodedString() + "\n").utf8),
    ]

    @Test(arguments: credentialContents)
    func systemdCredentialHoldsTheKeyAndNoKeyFileIsWritten(_ contents: Data) async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let credentials = try credentialsDirectory(holding: contents)
        defer { try? FileManager.default.removeItem(at: credentials) }
        let keyring = MemoryKeyring()
        let environment = ["CREDENTIALS_DIRECTORY": credentials.path]
        let writer = try open(fixture, keyring: keyring, environment: environment)
        #expect(writer.keySource == .systemdCredential)
        let written = try await writer.write(StoreContract.sampleConnection("google"))
        #expect(!keyFileExists(fixture))
        #expect(keyring.item(for: fixture) == nil)
        // Raw bytes and their base64 encoding are the same key.
        let reader = try VaultStore(
            directory: fixture.directory,
            key: nil,
            environment: ["CREDENTIALS_DIRECTORY": try credentialsDirectory(holding: Self.credentialContents[1]).path],
            keyring: nil
        )
        #expect(try await reader.read("google") == written)
    }

    static let malformedCredentials: [Data] = [
        Data(repeating: 7, count: 16),
        Data(repeating: 7, count: 33),
        Data("not a key at all".utf8),
        Data(),
    ]

    @Test(arguments: malformedCredentials)
    func malformedCredentialIsRefusedNotSkipped(_ contents: Data) throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let credentials = try credentialsDirectory(holding: contents)
        defer { try? FileManager.default.removeItem(at: credentials) }
        let keyring = MemoryKeyring()
        let error = try #require(throws: CredentialStoreError.self) {
            try open(fixture, keyring: keyring, environment: ["CREDENTIALS_DIRECTORY": credentials.path])
        }
        #expect(error == .invalidConfiguration)
        #expect(error.message.contains(VaultStore.credentialName))
        if let text = String(data: contents, encoding: .utf8), !text.isEmpty { #expect(!"\(error)".contains(text)) }
        // Nothing was created in its place, and the credential is as it was.
        #expect(!keyFileExists(fixture))
        #expect(keyring.item(for: fixture) == nil)
        let path = credentials.appendingPathComponent(VaultStore.credentialName)
        #expect(try Data(contentsOf: path) == contents)
    }

    @Test func credentialsFolderWithoutTheKeyIsPassedOver() throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let credentials = try credentialsDirectory(holding: Data("other".utf8))
        defer { try? FileManager.default.removeItem(at: credentials) }
        try FileManager.default.removeItem(at: credentials.appendingPathComponent(VaultStore.credentialName))
        let store = try open(fixture, keyring: nil, environment: ["CREDENTIALS_DIRECTORY": credentials.path])
        #expect(store.keySource == .keyFile)
    }

    // MARK: Secret Service

    @Test func keyIsCreatedInTheKeyringAndNoKeyFileIsWritten() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let keyring = MemoryKeyring()
        let writer = try open(fixture, keyring: keyring)
        #expect(writer.keySource == .secretService)
        #expect(keyring.item(for: fixture) != nil)
        let written = try await writer.write(StoreContract.sampleConnection("google"))
        #expect(!keyFileExists(fixture))
        let reader = try open(fixture, keyring: keyring)
        #expect(try await reader.read("google") == written)
        #expect(keyring.state.withLock { $0.stores } == 1)
    }

    @Test func lockedKeyringIsUnavailableThenRecoversAfterUnlock() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let keyring = MemoryKeyring()
        let written = try await open(fixture, keyring: keyring).write(StoreContract.sampleConnection("google"))
        keyring.state.withLock { $0.isLocked = true }

        let store = try open(fixture, keyring: keyring)
        #expect(store.keySource == nil)
        await #expect(throws: CredentialStoreError.unavailable) { try await store.read("google") }
        await #expect(throws: CredentialStoreError.unavailable) {
            try await store.write(StoreContract.sampleConnection("other"))
        }
        #expect(!keyFileExists(fixture))

        keyring.state.withLock { $0.isLocked = false }
        #expect(try await store.read("google") == written)
        #expect(store.keySource == .secretService)
        #expect(keyring.state.withLock { $0.stores } == 1)
    }

    @Test func lockedKeyringOnAFreshVaultCreatesNoKey() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let keyring = MemoryKeyring()
        keyring.state.withLock { $0.isLocked = true }
        let store = try open(fixture, keyring: keyring)
        await #expect(throws: CredentialStoreError.unavailable) {
            try await store.write(StoreContract.sampleConnection("google"))
        }
        #expect(!keyFileExists(fixture))
        #expect(keyring.item(for: fixture) == nil)
    }

    @Test func lockedKeyringMakesASessionReportStorageUnavailableNotSignedOut() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let keyring = MemoryKeyring()
        _ = try await open(fixture, keyring: keyring).write(StoreContract.sampleConnection("google"))
        keyring.state.withLock { $0.isLocked = true }
        let session = Session(
            id: "google",
            store: try open(fixture, keyring: keyring),
            refresher: StubRefresher.failing(with: RefreshError.transient("unused"))
        )
        await session.restore()
        #expect(await session.status.kind == .storageUnavailable)
    }

    @Test func absentKeyringFallsBackToTheKeyFileAndSaysWhy() throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let keyring = MemoryKeyring()
        keyring.state.withLock { $0.isAbsent = true }
        let store = try open(fixture, keyring: keyring)
        #expect(store.keySource == .keyFile)
        #expect(store.keySource?.isBesideRecords == true)
        #expect(store.keyringNote == "no keyring in this test")
        #expect(keyFileExists(fixture))
    }

    static let malformedItems = ["", "short", Data(repeating: 1, count: 31).base64EncodedString()]

    @Test(arguments: malformedItems)
    func malformedKeyringItemIsRefusedAndLeftAlone(_ item: String) throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let keyring = MemoryKeyring()
        let attributes = VaultStore.keyItemAttributes(root: fixture.directory.path)
        keyring.state.withLock { $0.items[attributes] = item }
        let error = try #require(throws: CredentialStoreError.self) { try open(fixture, keyring: keyring) }
        #expect(error == .invalidConfiguration)
        #expect(error.message.contains("Secret Service item"))
        #expect(keyring.item(for: fixture) == item)
        #expect(!keyFileExists(fixture))
    }

    @Test func missingKeyringItemWithRecordsIsRefused() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let keyring = MemoryKeyring()
        _ = try await open(fixture, keyring: keyring).write(StoreContract.sampleConnection("google"))
        _ = try keyring.clear(VaultStore.keyItemAttributes(root: fixture.directory.path))
        let error = try #require(throws: CredentialStoreError.self) { try open(fixture, keyring: keyring) }
        #expect(error == .missingKey)
        #expect(keyring.item(for: fixture) == nil)
        #expect(!keyFileExists(fixture))
    }

    // MARK: Moving vault.key out

    @Test func keyFileIsMovedIntoTheKeyringOnTheNextWrite() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let old = try open(fixture, keyring: nil)
        let written = try await old.write(StoreContract.sampleConnection("google"))
        let recordBefore = try Data(contentsOf: fixture.recordURL("google"))
        let keyText = try String(contentsOf: fixture.directory.appendingPathComponent("vault.key"), encoding: .utf8)

        let keyring = MemoryKeyring()
        let store = try open(fixture, keyring: keyring)
        #expect(store.keySource == .keyFile)
        // Reading moves nothing.
        #expect(try await store.read("google") == written)
        #expect(keyFileExists(fixture))
        #expect(keyring.item(for: fixture) == nil)

        _ = try await store.write(StoreContract.sampleConnection("other"))
        #expect(!keyFileExists(fixture))
        let moved = try #require(keyring.item(for: fixture))
        #expect(try VaultKey(base64: moved).identifier == VaultKey(base64: keyText).identifier)
        #expect(store.keySource == .secretService)
        // The records were not touched, and a new process opens them with the key from the keyring.
        #expect(try Data(contentsOf: fixture.recordURL("google")) == recordBefore)
        let reopened = try open(fixture, keyring: keyring)
        #expect(reopened.keySource == .secretService)
        #expect(try await reopened.read("google") == written)
    }

    @Test func aKeyringThatRefusesTheKeyLeavesTheKeyFileAndTheWriteGoesThrough() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        _ = try await open(fixture, keyring: nil).write(StoreContract.sampleConnection("google"))
        let keyring = MemoryKeyring()
        keyring.state.withLock { $0.failsStores = true }
        let store = try open(fixture, keyring: keyring)
        _ = try await store.write(StoreContract.sampleConnection("other"))
        #expect(keyFileExists(fixture))
        #expect(store.keySource == .keyFile)
        #expect(try await store.read("google") != nil)
        // Retried on the next write.
        keyring.state.withLock { $0.failsStores = false }
        _ = try await store.write(StoreContract.sampleConnection("third"))
        #expect(!keyFileExists(fixture))
        #expect(store.keySource == .secretService)
    }

    @Test func aKeyFileLeftBesideTheSameKeyringKeyIsRemovedOnTheNextWrite() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let keyring = MemoryKeyring()
        _ = try await open(fixture, keyring: nil).write(StoreContract.sampleConnection("google"))
        let keyText = try String(contentsOf: fixture.directory.appendingPathComponent("vault.key"), encoding: .utf8)
        keyring.state.withLock {
            $0.items[VaultStore.keyItemAttributes(root: fixture.directory.path)] = keyText
        }
        let store = try open(fixture, keyring: keyring)
        #expect(store.keySource == .secretService)
        _ = try await store.write(StoreContract.sampleConnection("other"))
        #expect(!keyFileExists(fixture))
    }

    @Test func aKeyringKeyThatDiffersFromTheKeyFileIsRefusedAndBothAreKept() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        _ = try await open(fixture, keyring: nil).write(StoreContract.sampleConnection("google"))
        let keyring = MemoryKeyring()
        let other = VaultKey.generate().revealedBase64
        keyring.state.withLock { $0.items[VaultStore.keyItemAttributes(root: fixture.directory.path)] = other }
        let error = try #require(throws: CredentialStoreError.self) { try open(fixture, keyring: keyring) }
        #expect(error == .invalidConfiguration)
        #expect(keyFileExists(fixture))
        #expect(keyring.item(for: fixture) == other)
    }

    // MARK: Secrets stay out

    @Test func logsAndErrorsNeverContainTheKey() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .trace
        _ = try await open(fixture, keyring: nil, logger: logger).write(StoreContract.sampleConnection("google"))
        let keyText = try String(contentsOf: fixture.directory.appendingPathComponent("vault.key"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let keyring = MemoryKeyring()
        let store = try open(fixture, keyring: keyring, logger: logger)
        _ = try await store.write(StoreContract.sampleConnection("other"))
        keyring.state.withLock { $0.isLocked = true }
        let locked = try open(fixture, keyring: keyring, logger: logger)
        let error = await #expect(throws: CredentialStoreError.self) { try await locked.read("google") }
        let rawKey = try #require(Data(base64Encoded: keyText))
        let secrets = [keyText, rawKey.map { String(format: "%02x", $0) }.joined()]
        #expect(!handler.entries.isEmpty)
        for entry in handler.entries {
            let text = "\(entry.message) \(entry.metadata)"
            #expect(secrets.allSatisfy { !text.contains($0) })
        }
        let described = "\(String(describing: error)) \(store) \(String(describing: store.keySource))"
        #expect(secrets.allSatisfy { !described.contains($0) })
    }
}
