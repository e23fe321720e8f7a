import Foundation
import InMemoryLogging
import Logging
import Testing
import Tether
import TetherTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh vault folder under the temporary directory; `remove()` deletes it.
struct VaultFixture {
    let directory: URL
    let key: VaultKey

    init(key: VaultKey = .generate()) {
        self.directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tether-vault-tests-\(UUID().uuidString)", isDirectory: true)
        self.key = key
    }

    /// Opens a store in the folder; by default with the fixture's key and an empty environment.
    func store(key: VaultKey? = nil) throws -> VaultStore {
        try VaultStore(directory: directory, key: key ?? self.key, environment: [:])
    }

    func recordURL(_ id: ConnectionID) -> URL {
        directory.appendingPathComponent("records/\(VaultStore.fileStem(for: id)).vault")
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }
}

struct VaultStoreTests {
    // MARK: Folder

    struct DirectoryCase: Sendable, CustomTestStringConvertible {
        let environment: [String: String]
        let expected: String
        let testDescription: String
    }

    static let directoryCases: [DirectoryCase] = [
        DirectoryCase(
            environment: ["TETHER_HOME": "/srv/tether", "XDG_DATA_HOME": "/data", "HOME": "/home/jane"],
            expected: "/srv/tether",
            testDescription: "TETHER_HOME wins"
        ),
        DirectoryCase(
            environment: ["TETHER_HOME": "", "XDG_DATA_HOME": "/data", "HOME": "/home/jane"],
            expected: "/data/tether",
            testDescription: "empty TETHER_HOME falls back to XDG_DATA_HOME"
        ),
        DirectoryCase(
            environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/jane"],
            expected: "/data/tether",
            testDescription: "XDG_DATA_HOME/tether"
        ),
        DirectoryCase(
            environment: ["XDG_DATA_HOME": "relative/data", "HOME": "/home/jane"],
            expected: "/home/jane/.local/share/tether",
            testDescription: "relative XDG_DATA_HOME is ignored"
        ),
        DirectoryCase(
            environment: ["XDG_DATA_HOME": "", "HOME": "/home/jane"],
            expected: "/home/jane/.local/share/tether",
            testDescription: "empty XDG_DATA_HOME falls back to HOME"
        ),
        DirectoryCase(
            environment: ["HOME": "/home/jane"],
            expected: "/home/jane/.local/share/tether",
            testDescription: "HOME/.local/share/tether"
        ),
    ]

    @Test(arguments: directoryCases)
    func folderIsResolvedFromTheEnvironment(_ testCase: DirectoryCase) throws {
        let directory = try VaultStore.defaultDirectory(environment: testCase.environment)
        #expect(directory.path == testCase.expected)
    }

    @Test func folderResolutionWithoutAnyVariableIsAConfigurationError() throws {
        #expect(throws: CredentialStoreError.invalidConfiguration) {
            try VaultStore.defaultDirectory(environment: ["HOME": "", "TETHER_HOME": ""])
        }
    }

    @Test func folderIsPrivateAndRecordsAreOwnerOnly() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let store = try fixture.store()
        _ = try await store.write(StoreContract.sampleConnection("google"))
        #expect(VaultFixture.mode(fixture.directory.path) == 0o700)
        #expect(VaultFixture.mode(fixture.directory.appendingPathComponent("records").path) == 0o700)
        #expect(VaultFixture.mode(fixture.directory.appendingPathComponent("locks").path) == 0o700)
        #expect(VaultFixture.mode(fixture.recordURL("google").path) == 0o600)
    }

    @Test func looserExistingFolderIsTightened() throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        try FileManager.default.createDirectory(
            at: fixture.directory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755]
        )
        #expect(chmod(fixture.directory.path, 0o755) == 0)
        _ = try fixture.store()
        #expect(VaultFixture.mode(fixture.directory.path) == 0o700)
    }

    // MARK: Key

    @Test func keyFromTheEnvironmentOpensWhatTheSameKeyWrote() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let base64 = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        let writer = try VaultStore(directory: fixture.directory, environment: ["TETHER_VAULT_KEY": base64])
        let written = try await writer.write(StoreContract.sampleConnection("google"))
        let reader = try VaultStore(directory: fixture.directory, environment: ["TETHER_VAULT_KEY": "\(base64)\n"])
        #expect(try await reader.read("google") == written)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.appendingPathComponent("vault.key").path))
        let other = try VaultStore(directory: fixture.directory, key: .generate(), environment: [:])
        await #expect(throws: CredentialStoreError.wrongKey) { try await other.read("google") }
    }

    static let invalidKeys: [String] = [
        "not base64 at all!",
        Data(repeating: 7, count: 16).base64EncodedString(),
        Data(repeating: 7, count: 33).base64EncodedString(),
    ]

    @Test(arguments: invalidKeys)
    func invalidKeyInTheEnvironmentIsNamedButNotEchoed(_ value: String) throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let error = try #require(throws: CredentialStoreError.self) {
            try VaultStore(directory: fixture.directory, environment: ["TETHER_VAULT_KEY": value])
        }
        #expect(error == .invalidConfiguration)
        #expect(error.message.contains("TETHER_VAULT_KEY"))
        #expect(!error.message.contains(value))
        #expect(!"\(error)".contains(value))
    }

    @Test func keyFileIsCreatedOwnerOnlyAndReused() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let first = try VaultStore(directory: fixture.directory, environment: [:])
        let written = try await first.write(StoreContract.sampleConnection("google"))
        let keyPath = fixture.directory.appendingPathComponent("vault.key").path
        #expect(VaultFixture.mode(keyPath) == 0o600)
        let keyBytes = try Data(contentsOf: URL(fileURLWithPath: keyPath))
        let second = try VaultStore(directory: fixture.directory, environment: [:])
        #expect(try await second.read("google") == written)
        #expect(try Data(contentsOf: URL(fileURLWithPath: keyPath)) == keyBytes)
    }

    @Test func concurrentKeyFileCreatorsEndWithOneKey() async throws {
        for _ in 0..<5 {
            let fixture = VaultFixture()
            defer { fixture.remove() }
            let directory = fixture.directory
            try await withThrowingTaskGroup(of: Void.self) { group in
                for creator in 0..<8 {
                    group.addTask {
                        let store = try VaultStore(directory: directory, environment: [:])
                        _ = try await store.write(StoreContract.sampleConnection(ConnectionID("creator-\(creator)")))
                    }
                }
                try await group.waitForAll()
            }
            // Every creator used the key now in the file, so one store opens all their records.
            let store = try VaultStore(directory: directory, environment: [:])
            for creator in 0..<8 {
                #expect(try await store.read(ConnectionID("creator-\(creator)")) != nil)
            }
            let entries = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(entries.sorted() == ["locks", "records", "vault.key"])
        }
    }

    @Test func damagedKeyFileIsAConfigurationErrorAndLeftAlone() throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        _ = try VaultStore(directory: fixture.directory, environment: [:])
        let keyURL = fixture.directory.appendingPathComponent("vault.key")
        try Data("short".utf8).write(to: keyURL)
        #expect(throws: CredentialStoreError.invalidConfiguration) {
            try VaultStore(directory: fixture.directory, environment: [:])
        }
        #expect(try Data(contentsOf: keyURL) == Data("short".utf8))
    }

    @Test func keyNeverShowsInDescriptions() {
        let key = VaultKey.generate()
        var dumped = ""
        dump(key, to: &dumped)
        for text in ["\(key)", String(reflecting: key), dumped] {
            #expect(text.contains("<redacted>"))
        }
        #expect(throws: CredentialStoreError.invalidConfiguration) { try VaultKey(base64: "AAAA") }
    }

    @Test func logsAreTraceOrDebugWithVaultKeysAndNoSecrets() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .trace
        let store = try VaultStore(directory: fixture.directory, environment: [:], logger: logger)
        let record = try await store.write(StoreContract.sampleConnection("google"))
        _ = try await store.read("google")
        try await store.withRefreshLease(for: "google", timeout: .seconds(5)) {}
        try await store.delete("google")
        let keyText = try String(contentsOf: fixture.directory.appendingPathComponent("vault.key"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let secrets = [
            record.tokens.accessToken?.revealedValue, record.tokens.refreshToken?.revealedValue,
            record.tokens.idToken?.revealedValue, keyText,
        ].compactMap { $0 }
        #expect(!handler.entries.isEmpty)
        for entry in handler.entries {
            #expect(entry.level <= .debug)
            #expect(entry.metadata.keys.allSatisfy { $0.hasPrefix("vault.") })
            let text = "\(entry.message) \(entry.metadata)"
            #expect(secrets.allSatisfy { !text.contains($0) })
        }
    }

    // MARK: Names

    static let awkwardIDs: [ConnectionID] = ["a/b", "with space", "x+y=z", "ünïcødé ✓", "..", ".hidden", "-", "google"]

    @Test func listDecodesFileNamesAndIgnoresOtherFiles() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let store = try fixture.store()
        for id in Self.awkwardIDs {
            _ = try await store.write(StoreContract.sampleConnection(id))
        }
        let records = fixture.directory.appendingPathComponent("records")
        for junk in [
            "README", ".Z29vZ2xl.1234.tmp", "not*base64.vault", "Z29vZ2xl.vault.tmp", "Z29vZ2xlAB.vault", "Zm9v.txt",
        ] {
            try Data("junk".utf8).write(to: records.appendingPathComponent(junk))
        }
        #expect(try await store.list() == Self.awkwardIDs.sorted())
        for id in Self.awkwardIDs {
            #expect(VaultStore.connectionID(fromFileStem: VaultStore.fileStem(for: id)) == id)
            #expect(try await store.read(id)?.id == id)
        }
    }

    @Test func writeRemovesTemporaryFilesLeftByACrashedWriter() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let store = try fixture.store()
        let stem = VaultStore.fileStem(for: "google")
        let stale = fixture.directory.appendingPathComponent("records/.\(stem).deadbeef.tmp")
        let unrelated = fixture.directory.appendingPathComponent("records/.\(VaultStore.fileStem(for: "other")).1.tmp")
        try Data("half a record".utf8).write(to: stale)
        try Data("half a record".utf8).write(to: unrelated)
        _ = try await store.write(StoreContract.sampleConnection("google"))
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(FileManager.default.fileExists(atPath: unrelated.path))
        #expect(try await store.list() == ["google"])
    }

    @Test func identifierTooLongForAFileNameIsRefusedOnWrite() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let store = try fixture.store()
        let id = ConnectionID(String(repeating: "x", count: 200))
        await #expect(throws: CredentialStoreError.invalidConfiguration) {
            try await store.write(StoreContract.sampleConnection(id))
        }
        #expect(try await store.read(id) == nil)
        try await store.delete(id)
        _ = try await store.write(StoreContract.sampleConnection(ConnectionID(String(repeating: "y", count: 172))))
    }

    // MARK: Damaged files

    struct Damage: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let expected: CredentialStoreError
        let apply: @Sendable (_ bytes: Data, _ fixture: VaultFixture) async throws -> Data

        static func flip(_ name: String, _ offset: @escaping @Sendable (Int) -> Int) -> Damage {
            Damage(testDescription: "flipped byte in the \(name)", expected: .corrupted) { bytes, _ in
                var bytes = bytes
                bytes[offset(bytes.count)] ^= 0x01
                return bytes
            }
        }

        static func truncate(to count: @escaping @Sendable (Int) -> Int, _ name: String) -> Damage {
            Damage(testDescription: "truncated \(name)", expected: .corrupted) { bytes, _ in
                bytes.prefix(count(bytes.count))
            }
        }
    }

    static let damages: [Damage] = [
        Damage(testDescription: "written with another key", expected: .wrongKey) { _, fixture in
            let other = try fixture.store(key: .generate())
            try FileManager.default.removeItem(at: fixture.recordURL("victim"))
            _ = try await other.write(StoreContract.sampleConnection("victim"))
            return try Data(contentsOf: fixture.recordURL("victim"))
        },
        .truncate(to: { _ in 0 }, "to nothing"),
        .truncate(to: { _ in 3 }, "inside the magic"),
        .truncate(to: { _ in 10 }, "inside the header"),
        .truncate(to: { _ in 30 }, "inside the nonce"),
        .truncate(to: { $0 - 1 }, "by one byte"),
        .flip("magic", { _ in 0 }),
        .flip("key identifier", { _ in 9 }),
        .flip("nonce", { _ in 20 }),
        .flip("ciphertext", { _ in 40 }),
        .flip("tag", { $0 - 1 }),
        Damage(testDescription: "future format version", expected: .unsupportedFormat) { bytes, _ in
            var bytes = bytes
            bytes[5] = 2
            return bytes
        },
        Damage(testDescription: "copied from another record", expected: .corrupted) { _, fixture in
            let store = try fixture.store()
            _ = try await store.write(StoreContract.sampleConnection("donor"))
            let bytes = try Data(contentsOf: fixture.recordURL("donor"))
            try FileManager.default.removeItem(at: fixture.recordURL("donor"))
            return bytes
        },
        Damage(testDescription: "well encrypted but not JSON", expected: .corrupted) { _, fixture in
            try VaultRecordFormat.seal(plaintext: Data("{not json".utf8), id: "victim", key: fixture.key)
        },
        Damage(testDescription: "another connection's record encrypted under this name", expected: .corrupted) {
            _,
            fixture in
            let plaintext = try ConnectionCodec.encode(StoreContract.sampleConnection("someone-else").withVersion(1))
            return try VaultRecordFormat.seal(plaintext: plaintext, id: "victim", key: fixture.key)
        },
    ]

    @Test(arguments: damages)
    func damagedRecordThrowsItsErrorAndIsLeftUntouched(_ damage: Damage) async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let store = try fixture.store()
        let original = try await store.write(StoreContract.sampleConnection("victim"))
        _ = try await store.write(StoreContract.sampleConnection("bystander"))
        let url = fixture.recordURL("victim")
        let damaged = try await damage.apply(try Data(contentsOf: url), fixture)
        try damaged.write(to: url)

        let error = try await #require(throws: CredentialStoreError.self) { try await store.read("victim") }
        #expect(error == damage.expected)
        #expect(!error.message.contains("access-victim") && !error.message.contains("refresh-victim"))
        await #expect(throws: damage.expected) {
            try await store.write(original, expecting: .version(original.version))
        }
        await #expect(throws: damage.expected) { try await store.write(original, expecting: .any) }
        await #expect(throws: damage.expected) { try await store.write(original, expecting: .absent) }
        #expect(try await store.list() == ["bystander", "victim"])
        #expect(try await store.read("bystander") != nil)
        #expect(try Data(contentsOf: url) == damaged)

        // An explicit delete (sign-out) is allowed to remove it.
        try await store.delete("victim")
        #expect(try await store.read("victim") == nil)
        #expect(try await store.list() == ["bystander"])
    }

    @Test func futureFormatErrorNamesFoundAndSupportedVersions() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let store = try fixture.store()
        _ = try await store.write(StoreContract.sampleConnection("google"))
        var bytes = try Data(contentsOf: fixture.recordURL("google"))
        bytes[4] = 0
        bytes[5] = 7
        try bytes.write(to: fixture.recordURL("google"))
        let error = try await #require(throws: CredentialStoreError.self) { try await store.read("google") }
        #expect(error == .unsupportedFormat)
        #expect(error.message.contains("7") && error.message.contains("1"))
    }

    // MARK: Writes

    @Test func writeStoresTheNextVersionInTheFile() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let store = try fixture.store()
        var record = StoreContract.sampleConnection("google")
        for expected in UInt64(1)...3 {
            record = try await store.write(record, expecting: expected == 1 ? .absent : .version(expected - 1))
            #expect(record.version == expected)
        }
        let reopened = try fixture.store()
        #expect(try await reopened.read("google")?.version == 3)
        let leftovers = try FileManager.default.contentsOfDirectory(
            atPath: fixture.directory.appendingPathComponent("records").path
        )
        #expect(leftovers == ["\(VaultStore.fileStem(for: "google")).vault"])
    }

    @Test func concurrentWritersThroughTwoStoresNeverLoseAnUpdate() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let stores = [try fixture.store(), try fixture.store()]
        _ = try await stores[0].write(StoreContract.sampleConnection("google"))
        // Each writer increments a counter with compare-and-swap, retrying on conflict.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                let store = stores[writer % 2]
                group.addTask {
                    for _ in 0..<10 {
                        while true {
                            var current = try #require(try await store.read("google"))
                            let count = Int(current.metadata["count"] ?? "0") ?? 0
                            current.metadata["count"] = "\(count + 1)"
                            do {
                                _ = try await store.write(current, expecting: .version(current.version))
                                break
                            } catch let error as CredentialStoreError where error == .versionConflict {
                                continue
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let final = try #require(try await stores[1].read("google"))
        #expect(final.metadata["count"] == "40")
        #expect(final.version == 41)
    }

    // MARK: Durability

    @Test func aFailedFolderSyncAfterAWriteIsReportedAndTheNextWriteRepairsIt() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let store = try fixture.store()
        let first = try await store.write(StoreContract.sampleConnection("google"))
        VaultFiles.failNextDirectorySync(fixture.directory.path + "/records")
        let error = try await #require(throws: CredentialStoreError.self) {
            try await store.write(first, expecting: .version(first.version))
        }
        #expect(error == .io)
        #expect(error.message.contains("may not survive a power loss"))
        // The new record is in place; a write over it flushes the folder again.
        let landed = try #require(try await store.read("google"))
        #expect(landed.version == first.version + 1)
        let repaired = try await store.write(landed, expecting: .version(landed.version))
        #expect(repaired.version == first.version + 2)
    }

    // MARK: Lease

    @Test func leaseIsExclusiveBetweenTwoStoresOnOneFolder() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let first = try fixture.store()
        let second = try fixture.store()
        let lease = try await first.acquireRefreshLease(for: "google", timeout: .seconds(5))
        await #expect(throws: CredentialStoreError.leaseTimeout) {
            try await second.acquireRefreshLease(for: "google", timeout: .milliseconds(20))
        }
        await lease.release()
        await lease.release()
        let next = try await second.acquireRefreshLease(for: "google", timeout: .seconds(5))
        await next.release()
    }

    @Test func leaseWaitersInOneProcessQueueAndAreGrantedOnRelease() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let clock = ManualClock()
        let store = try VaultStore(directory: fixture.directory, key: fixture.key, environment: [:], clock: clock)
        try await StoreContract.waiterIsGrantedOnlyAfterRelease(holder: store, waiter: store, clock: clock)
    }

    @Test func leaseWaiterOfAnotherStoreIsGrantedOnlyAfterRelease() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let clock = ManualClock()
        let holder = try VaultStore(directory: fixture.directory, key: fixture.key, environment: [:], clock: clock)
        let waiter = try VaultStore(directory: fixture.directory, key: fixture.key, environment: [:], clock: clock)
        try await StoreContract.waiterIsGrantedOnlyAfterRelease(holder: holder, waiter: waiter, clock: clock)
    }

    @Test func leaseWaitHonoursCancellation() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let holder = try fixture.store()
        let other = try fixture.store()
        let lease = try await holder.acquireRefreshLease(for: "google", timeout: .seconds(5))
        let waiter = Task { try await other.acquireRefreshLease(for: "google", timeout: .seconds(30)) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        await lease.release()
        let next = try await other.acquireRefreshLease(for: "google", timeout: .seconds(5))
        await next.release()
    }
}

/// The vault refuses files and folders that another user could have prepared (a vault under `/tmp`).
struct VaultHardeningTests {
    @Test func symlinkedVaultFolderIsRefused() throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let target = fixture.directory.path + "-target"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: target) }
        try FileManager.default.createSymbolicLink(atPath: fixture.directory.path, withDestinationPath: target)
        let error = try #require(throws: CredentialStoreError.self) { try fixture.store() }
        #expect(error == .invalidConfiguration)
        #expect(error.message.contains(fixture.directory.path))
        #expect(error.message.contains("symbolic link"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: target).isEmpty)
    }

    @Test func symlinkedRecordsFolderIsRefused() throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        _ = try fixture.store()
        let records = fixture.directory.appendingPathComponent("records").path
        let target = fixture.directory.appendingPathComponent("elsewhere").path
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try FileManager.default.removeItem(atPath: records)
        try FileManager.default.createSymbolicLink(atPath: records, withDestinationPath: target)
        #expect(throws: CredentialStoreError.invalidConfiguration) { try fixture.store() }
    }

    @Test func folderOwnedByAnotherUserIsRefused() throws {
        // A folder owned by another user cannot be made without root, so the check is tested on a stat result.
        var info = stat()
        info.st_mode = S_IFDIR | 0o700
        info.st_uid = geteuid()
        try VaultFiles.checkPrivateFolder(info, path: "/tmp/vault")
        info.st_uid = geteuid() &+ 1
        let error = try #require(throws: CredentialStoreError.self) {
            try VaultFiles.checkPrivateFolder(info, path: "/tmp/vault")
        }
        #expect(error == .invalidConfiguration)
        #expect(error.message.contains("/tmp/vault"))
        #expect(error.message.contains("owned by user id \(geteuid() &+ 1)"))
    }

    @Test func symlinkedRecordIsNeitherReadNorFollowedOnWrite() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let store = try fixture.store()
        // A real record of another connection, which the link points to.
        _ = try await store.write(StoreContract.sampleConnection("other"))
        let target = fixture.recordURL("other").path
        let before = try Data(contentsOf: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(
            atPath: fixture.recordURL("google").path,
            withDestinationPath: target
        )
        let readError = try await #require(throws: CredentialStoreError.self) { try await store.read("google") }
        #expect(readError == .invalidConfiguration)
        #expect(readError.message.contains("symbolic link"))
        await #expect(throws: CredentialStoreError.self) {
            try await store.write(StoreContract.sampleConnection("google"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == before)
        #expect(try await store.read("other") != nil)
    }

    @Test func missingKeyFileWithRecordsIsRefusedAndRecordsAreKept() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let store = try VaultStore(directory: fixture.directory, environment: [:])
        _ = try await store.write(StoreContract.sampleConnection("google"))
        let record = fixture.recordURL("google")
        let before = try Data(contentsOf: record)
        let keyFile = fixture.directory.appendingPathComponent("vault.key")
        try FileManager.default.removeItem(at: keyFile)

        let error = try #require(throws: CredentialStoreError.self) {
            try VaultStore(directory: fixture.directory, environment: [:])
        }
        #expect(error == .missingKey)
        #expect(error.isConfigurationError)
        #expect(error.message.contains(keyFile.path))
        #expect(error.message.contains("Restore the key file"))
        #expect(!FileManager.default.fileExists(atPath: keyFile.path))
        #expect(try Data(contentsOf: record) == before)
    }

    @Test func freshFolderGetsANewKey() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let store = try VaultStore(directory: fixture.directory, environment: [:])
        let keyFile = fixture.directory.appendingPathComponent("vault.key").path
        #expect(FileManager.default.fileExists(atPath: keyFile))
        #expect(VaultFixture.mode(keyFile) == 0o600)
        _ = try await store.write(StoreContract.sampleConnection("google"))
        let reopened = try VaultStore(directory: fixture.directory, environment: [:])
        #expect(try await reopened.read("google") != nil)
    }
}
