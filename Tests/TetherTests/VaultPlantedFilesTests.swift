import Foundation
import Testing
import Tether
import TetherTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files and folders that another user could have planted in a vault's folder, and vaults opened only to read.
struct VaultPlantedFilesTests {
    /// The user id of `nobody`, whom files are given to when the tests run as root.
    static let nobody: uid_t = 65534
    static let isRoot = geteuid() == 0

    func keyPath(_ fixture: VaultFixture) -> String {
        fixture.directory.appendingPathComponent("vault.key").path
    }

    /// A folder made by hand with `mode`, as a user (or another user) might prepare `TETHER_HOME`.
    func makeFolder(_ fixture: VaultFixture, mode: mode_t) throws {
        try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
        #expect(chmod(fixture.directory.path, mode) == 0)
    }

    /// A valid key file written by hand with `mode`, as a planted one would be.
    func plantKeyFile(_ fixture: VaultFixture, mode: mode_t, owner: uid_t? = nil) throws -> Data {
        let contents = Data((VaultKey.generate().revealedBase64 + "\n").utf8)
        try contents.write(to: URL(fileURLWithPath: keyPath(fixture)))
        #expect(chmod(keyPath(fixture), mode) == 0)
        if let owner { #expect(chown(keyPath(fixture), owner, gid_t(owner)) == 0) }
        return contents
    }

    func openWithoutKey(_ fixture: VaultFixture, createsMissing: Bool = true) throws -> VaultStore {
        try VaultStore(directory: fixture.directory, environment: [:], createsMissing: createsMissing)
    }

    // MARK: The key file

    @Test(.enabled(if: isRoot, "Giving a file to another user (chown) needs root"))
    func keyFilePlantedByAnotherUserInAWorldWritableHomeIsRefused() throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        try makeFolder(fixture, mode: 0o777)
        let planted = try plantKeyFile(fixture, mode: 0o666, owner: Self.nobody)
        let error = try #require(throws: CredentialStoreError.self) { try openWithoutKey(fixture) }
        #expect(error == .invalidConfiguration)
        #expect(error.message.contains(fixture.directory.path))
        #expect(error.message.contains("written by other users"))
        // Refused, not repaired: the folder keeps its mode and nothing was sealed with the planted key.
        #expect(VaultFixture.mode(fixture.directory.path) == 0o777)
        #expect(try Data(contentsOf: URL(fileURLWithPath: keyPath(fixture))) == planted)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.appendingPathComponent("records").path))
    }

    @Test(.enabled(if: isRoot, "Giving a file to another user (chown) needs root"))
    func keyFileOwnedByAnotherUserIsRefusedInAPrivateHome() throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        _ = try openWithoutKey(fixture)
        #expect(chown(keyPath(fixture), Self.nobody, gid_t(Self.nobody)) == 0)
        let error = try #require(throws: CredentialStoreError.self) { try openWithoutKey(fixture) }
        #expect(error == .invalidConfiguration)
        #expect(error.message.contains(keyPath(fixture)))
        #expect(error.message.contains("owned by user id \(Self.nobody)"))
    }

    @Test func keyFileOwnedByAnotherUserIsRefusedWhateverTheUser() throws {
        // Without root no file can be given away, so the check is also tested on a stat result.
        var info = stat()
        info.st_mode = S_IFREG | 0o600
        info.st_uid = geteuid()
        try VaultFiles.checkPrivateFile(info, path: "/tmp/vault/vault.key")
        info.st_uid = geteuid() &+ 1
        let error = try #require(throws: CredentialStoreError.self) {
            try VaultFiles.checkPrivateFile(info, path: "/tmp/vault/vault.key")
        }
        #expect(error == .invalidConfiguration)
        #expect(error.message.contains("/tmp/vault/vault.key"))
        #expect(error.message.contains("owned by user id \(geteuid() &+ 1)"))
    }

    @Test(arguments: [0o644, 0o666, 0o640, 0o620, 0o604] as [mode_t])
    func keyFileOthersCanReadOrWriteIsRefusedAndLeftAsItIs(_ mode: mode_t) throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        _ = try openWithoutKey(fixture)
        let before = try Data(contentsOf: URL(fileURLWithPath: keyPath(fixture)))
        #expect(chmod(keyPath(fixture), mode) == 0)
        let error = try #require(throws: CredentialStoreError.self) { try openWithoutKey(fixture) }
        #expect(error == .invalidConfiguration)
        #expect(error.message.contains(keyPath(fixture)))
        #expect(error.message.contains("mode \(String(mode, radix: 8))"))
        #expect(!error.message.contains(String(decoding: before, as: UTF8.self).trimmingCharacters(in: .newlines)))
        #expect(VaultFixture.mode(keyPath(fixture)) == mode)
        #expect(try Data(contentsOf: URL(fileURLWithPath: keyPath(fixture))) == before)
    }

    @Test func keyFileThatIsNotARegularFileIsRefused() throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        _ = try openWithoutKey(fixture)
        try FileManager.default.removeItem(atPath: keyPath(fixture))
        #expect(mkdir(keyPath(fixture), 0o700) == 0)
        let error = try #require(throws: CredentialStoreError.self) { try openWithoutKey(fixture) }
        #expect(error == .invalidConfiguration)
        #expect(error.message.contains("not a regular file"))
    }

    // MARK: Folders

    @Test(arguments: [0o777, 0o770, 0o775, 0o757, 0o1777] as [mode_t])
    func homeOthersCanWriteIsRefusedNotRepaired(_ mode: mode_t) throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        try makeFolder(fixture, mode: mode)
        let error = try #require(throws: CredentialStoreError.self) { try openWithoutKey(fixture) }
        #expect(error == .invalidConfiguration)
        #expect(error.message.contains(fixture.directory.path))
        #expect(error.message.contains("chmod 700"))
        #expect(VaultFixture.mode(fixture.directory.path) == mode & 0o777)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path).isEmpty)
    }

    @Test func recordsFolderOthersCanWriteIsRefused() throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        _ = try fixture.store()
        let records = fixture.directory.appendingPathComponent("records").path
        #expect(chmod(records, 0o777) == 0)
        let error = try #require(throws: CredentialStoreError.self) { try fixture.store() }
        #expect(error == .invalidConfiguration)
        #expect(error.message.contains(records))
        #expect(VaultFixture.mode(records) == 0o777)
    }

    @Test func homeOthersCanOnlyReadIsTightenedWhenCreatingAndLeftWhenReading() throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        try makeFolder(fixture, mode: 0o755)
        _ = try fixture.store()
        #expect(VaultFixture.mode(fixture.directory.path) == 0o700)
        #expect(chmod(fixture.directory.path, 0o755) == 0)
        _ = try VaultStore(directory: fixture.directory, key: fixture.key, environment: [:], createsMissing: false)
        #expect(VaultFixture.mode(fixture.directory.path) == 0o755)
    }

    // MARK: Lock files

    @Test func lockFileLooserThanOwnerOnlyIsMadeOwnerOnly() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let store = try fixture.store()
        let lease = try await store.acquireRefreshLease(for: "google", timeout: .seconds(5))
        await lease.release()
        let locks = fixture.directory.appendingPathComponent("locks").path
        let names = try FileManager.default.contentsOfDirectory(atPath: locks)
        #expect(!names.isEmpty)
        // As a umask of 0 (or a copy) could have left them; open never adds bits, so fchmod sets them.
        for name in names { #expect(chmod("\(locks)/\(name)", 0o666) == 0) }
        let again = try await store.acquireRefreshLease(for: "google", timeout: .seconds(5))
        await again.release()
        for name in names { #expect(VaultFixture.mode("\(locks)/\(name)") == 0o600, "\(name)") }
    }

    @Test func symlinkedLockFileIsRefused() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let target = fixture.directory.appendingPathComponent("elsewhere").path
        let path = fixture.directory.appendingPathComponent("locks/test.lock").path
        _ = try fixture.store()
        #expect(FileManager.default.createFile(atPath: target, contents: Data()))
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        let error = try #require(throws: CredentialStoreError.self) {
            try VaultFiles.withExclusiveLock(path) {}
        }
        #expect(error == .invalidConfiguration)
        #expect(error.message.contains("symbolic link"))
    }

    // MARK: Opening only to read

    /// Every path under `folder`, to show that opening created or changed nothing.
    func snapshot(_ folder: URL) -> [String: mode_t?] {
        let paths = FileManager.default.subpaths(atPath: folder.path) ?? []
        return Dictionary(
            uniqueKeysWithValues: paths.map { ($0, VaultFixture.mode(folder.appendingPathComponent($0).path)) }
        )
    }

    @Test func openingToReadCreatesNoFolderAndNoKey() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let directory = fixture.directory.appendingPathComponent("nested/home", isDirectory: true)
        let store = try VaultStore(directory: directory, environment: [:], createsMissing: false)
        #expect(store.keySource == nil)
        #expect(try await store.read("google") == nil)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.path))
        #expect(throws: CredentialStoreError.missingKey) {
            try store.authenticationCode(for: Data("x".utf8), context: "test")
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.path))
    }

    @Test func openingToReadAnExistingVaultReadsItAndChangesNothing() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let written = try await openWithoutKey(fixture).write(StoreContract.sampleConnection("google"))
        let before = snapshot(fixture.directory)
        let reader = try openWithoutKey(fixture, createsMissing: false)
        #expect(reader.keySource == .keyFile)
        #expect(try await reader.read("google") == written)
        #expect(try await reader.list() == ["google"])
        #expect(snapshot(fixture.directory) == before)
    }

    @Test func openingToReadWithRecordsButNoKeyIsAMissingKey() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        _ = try await openWithoutKey(fixture).write(StoreContract.sampleConnection("google"))
        try FileManager.default.removeItem(atPath: keyPath(fixture))
        let error = try #require(throws: CredentialStoreError.self) {
            try openWithoutKey(fixture, createsMissing: false)
        }
        #expect(error == .missingKey)
        #expect(!FileManager.default.fileExists(atPath: keyPath(fixture)))
    }

    @Test func openingToReadCreatesNoKeyInTheKeyring() async throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let keyring = MemoryKeyring()
        let store = try VaultStore(
            directory: fixture.directory,
            key: nil,
            environment: [:],
            keyring: keyring,
            createsMissing: false
        )
        #expect(store.keySource == nil)
        #expect(try await store.read("google") == nil)
        #expect(keyring.item(for: fixture) == nil)
        #expect(keyring.state.withLock { $0.stores } == 0)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.path))
    }

    @Test func openingToReadStillRefusesAHomeOthersCanWrite() throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        try makeFolder(fixture, mode: 0o777)
        #expect(throws: CredentialStoreError.invalidConfiguration) {
            try openWithoutKey(fixture, createsMissing: false)
        }
    }
}
