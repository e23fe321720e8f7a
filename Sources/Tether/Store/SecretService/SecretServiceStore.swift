public import Foundation
public import Logging

/// A ``CredentialStore`` that keeps each connection's whole record as one item in the Secret Service (GNOME Keyring,
/// KWallet), as desktop tools such as gh do, instead of in files.
///
/// ## Items
/// One item per connection, with the schema `org.tether.Connection` and the attributes `application` = `tether`,
/// `namespace` (``namespace``, so that several apps or profiles can share a keyring) and `connection` (the
/// identifier). The secret is the record's JSON, with its version. The keyring encrypts it at rest with the login
/// password; anyone who can use the unlocked keyring in the user's session can read it (see `docs/security.md`).
///
/// ## Writes and the lease
/// The Secret Service has no compare-and-swap, so writes of one record are serialized by an `flock` on a file in
/// ``lockDirectory`` (and an in-process mutex), and the version is checked under it. The refresh lease is an `flock`
/// on another file there, as in ``VaultStore``: processes sharing a keyring must share that folder, which by default
/// is the `locks` folder of the default vault folder.
///
/// ## Failures
/// A locked keyring, or a Secret Service that is not answering, is ``CredentialStoreError/unavailable`` (never
/// "no record"); an item that does not decode is ``CredentialStoreError/corrupted`` and is left untouched by
/// reads and writes. libsecret is loaded at run time: without it, or without a D-Bus session, the initializer
/// throws ``CredentialStoreError/invalidConfiguration``.
public final class SecretServiceStore: CredentialStore {
    /// The namespace of this store's items.
    public let namespace: String
    /// The folder of the write and lease lock files.
    public let lockDirectory: URL

    let keyring: any KeyringBackend
    let logger: Logger
    let clock: any Clock<Duration>
    let leases: FileLeases
    let writeMutex = AsyncKeyedMutex()

    /// The schema of record items.
    private static let recordSchema = LibSecret.Schema(
        name: "org.tether.Connection",
        attributes: ["application", "namespace", "connection"]
    )

    /// How long a write waits for another process writing the same record.
    static let writeLockTimeout: Duration = .seconds(10)

    /// Opens the store.
    /// - Parameters:
    ///   - namespace: Keeps this store's items apart from other stores' in the same keyring.
    ///   - lockDirectory: Where the lock files are; by default the `locks` folder of the default vault folder.
    ///   - environment: Where `DBUS_SESSION_BUS_ADDRESS`, `TETHER_SECRET_SERVICE` and the folder variables are read.
    ///   - clock: The clock lock and lease timeouts are measured and polled on.
    ///   - logger: Receives trace and debug messages, never a secret.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` when libsecret or a D-Bus session is missing, or the
    ///   Secret Service is turned off; ``CredentialStoreError/io`` when the lock folder cannot be created.
    public convenience init(
        namespace: String = "default",
        lockDirectory: URL? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current
    ) throws {
        let keyring: SecretServiceKeyring
        switch SecretServiceKeyring.forEnvironment(environment, schema: Self.recordSchema) {
        case .success(let found): keyring = found
        case .failure(let skipped):
            throw CredentialStoreError.invalidConfiguration.with(
                message: "The Secret Service cannot be used: \(skipped.reason)"
            )
        }
        let folder =
            try lockDirectory
            ?? VaultStore.defaultDirectory(environment: environment).appendingPathComponent("locks", isDirectory: true)
        try self.init(namespace: namespace, lockDirectory: folder, keyring: keyring, clock: clock, logger: logger)
    }

    /// Opens the store over `keyring` (a test double, in tests).
    package init(
        namespace: String,
        lockDirectory: URL,
        keyring: any KeyringBackend,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current
    ) throws {
        let parent = lockDirectory.deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: parent) {
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw CredentialStoreError.io.with(message: "Could not create the folder \(parent)", cause: error)
            }
        }
        try VaultFiles.makePrivateDirectory(lockDirectory.path)
        self.namespace = namespace
        self.lockDirectory = lockDirectory
        self.keyring = keyring
        self.clock = clock
        self.logger = logger
        self.leases = FileLeases(clock: clock, logger: logger, logPrefix: "keyring")
    }

    func attributes(_ id: ConnectionID) -> [String: String] {
        ["application": "tether", "namespace": namespace, "connection": id.rawValue]
    }

    func lockFile(_ id: ConnectionID, _ kind: String) -> String {
        let name = FileLeases.lockFileName(for: "\(namespace)\u{0}\(id.rawValue)")
        return lockDirectory.appendingPathComponent(String(name.dropLast(".lease".count)) + ".keyring-" + kind).path
    }

    /// The keyring, once it says it can be used.
    func usableKeyring() throws -> any KeyringBackend {
        if case .absent(let reason) = try keyring.availability() {
            throw CredentialStoreError.unavailable.with(message: "The Secret Service is not there: \(reason)")
        }
        return keyring
    }

    func decode(_ text: String, id: ConnectionID) throws -> Connection {
        try ConnectionCodec.decodeFromStore(Data(text.utf8), id: id, place: "The Secret Service item of \(id)")
    }

    public func read(_ id: ConnectionID) async throws -> Connection? {
        guard let text = try usableKeyring().lookup(attributes(id)) else {
            logger.trace("Keyring record absent", metadata: ["keyring.connection": "\(id)"])
            return nil
        }
        let connection = try decode(text, id: id)
        logger.trace(
            "Read keyring record",
            metadata: ["keyring.connection": "\(id)", "keyring.version": "\(connection.version)"]
        )
        return connection
    }

    public func list() async throws -> [ConnectionID] {
        let names = try usableKeyring().values(
            of: "connection",
            matching: ["application": "tether", "namespace": namespace]
        )
        return Set(names).map { ConnectionID($0) }.sorted()
    }

    public func write(_ connection: Connection, expecting precondition: WritePrecondition) async throws -> Connection {
        let written = try await withWriteLock(connection.id) {
            let keyring = try self.usableKeyring()
            // An item that does not decode throws here, whatever the precondition: it is never overwritten.
            let stored = try keyring.lookup(self.attributes(connection.id)).map {
                try self.decode($0, id: connection.id).version
            }
            guard precondition.isSatisfied(byStoredVersion: stored) else {
                throw CredentialStoreError.versionConflict.with(
                    message: "Expected \(precondition) of \(connection.id), found "
                        + (stored.map { "version \($0)" } ?? "none")
                )
            }
            guard stored != .max else {
                throw CredentialStoreError.corrupted.with(message: "The record of \(connection.id) has no next version")
            }
            let written = connection.withVersion((stored ?? 0) + 1)
            let json = String(decoding: try ConnectionCodec.encodeForStore(written), as: UTF8.self)
            try keyring.store(json, label: "Tether: \(connection.id)", attributes: self.attributes(connection.id))
            return written
        }
        logger.debug(
            "Wrote keyring record",
            metadata: ["keyring.connection": "\(connection.id)", "keyring.version": "\(written.version)"]
        )
        return written
    }

    public func delete(_ id: ConnectionID) async throws {
        let removed = try await withWriteLock(id) { try self.usableKeyring().clear(self.attributes(id)) }
        logger.debug(
            "Deleted keyring record",
            metadata: ["keyring.connection": "\(id)", "keyring.removed": "\(removed)"]
        )
    }

    public func acquireRefreshLease(for id: ConnectionID, timeout: Duration) async throws -> any RefreshLease {
        try await leases.acquire(lockFile: lockFile(id, "lease"), id: id, timeout: timeout)
    }

    func withWriteLock<T>(_ id: ConnectionID, _ body: () throws -> T) async throws -> T {
        let path = lockFile(id, "write")
        try await writeMutex.lock(path)
        defer { writeMutex.unlock(path) }
        let fd = try VaultFiles.openLockFile(path)
        defer { VaultFiles.unlockAndClose(fd) }
        guard try await clock.pollLock(fd, path: path, timeout: Self.writeLockTimeout) else {
            throw CredentialStoreError.io.with(
                message: "Timed out waiting for another process to finish writing the keyring record of \(id)"
            )
        }
        return try body()
    }
}
