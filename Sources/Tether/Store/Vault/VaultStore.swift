public import Foundation
public import Logging

/// A ``CredentialStore`` that keeps each connection in its own encrypted file: the default store on Linux.
///
/// ## Layout
/// ```
/// <folder>/                      0700
///   vault.key                    0600, only when no other source has the key (see "The key")
///   records/<name>.vault         0600, <name> = base64url of the connection identifier, without padding
///   locks/<name>.write           held with flock while a record is written or deleted
///   locks/<name>.lease           held with flock by the refresh lease
/// ```
/// Records are AES-GCM encrypted with the connection identifier as associated data and replaced atomically
/// (temporary file, `fsync`, `rename`, `fsync` of the folder), so a reader or a crash never sees half a write.
/// When only the last `fsync` fails, ``write(_:expecting:)`` throws ``CredentialStoreError/io`` although the new
/// record is in place: it may not survive a power loss, so the write is not reported as done.
///
/// ## The key
/// The key comes from the first of these sources that has one (``keySource`` says which):
/// 1. the `key` given to the initializer;
/// 2. `TETHER_VAULT_KEY` (the base64 encoding of 32 bytes);
/// 3. the systemd credential ``credentialName`` in `$CREDENTIALS_DIRECTORY` (32 bytes, or their base64 encoding),
///    for a service started with `LoadCredentialEncrypted=`;
/// 4. the Secret Service (GNOME Keyring, KWallet) through libsecret, loaded at run time, when the environment names
///    a D-Bus session and `TETHER_SECRET_SERVICE` is not `off` (nor `0`, `no`, `false`): one item with the
///    attributes `application` = `tether` and `vault` = the folder, created there when no source has a key yet;
/// 5. the `vault.key` file in the folder, created when no source has a key and the Secret Service is absent.
///
/// A source that is there but holds a malformed key throws ``CredentialStoreError/invalidConfiguration``; it is
/// never passed over for a later source. A locked (or failing) Secret Service makes the key
/// ``CredentialStoreError/unavailable``: the vault opens, every call throws `unavailable` (a ``Session`` reports
/// storage unavailable and retries), and the first call after the keyring is unlocked reads the key. A new key is
/// never made while the keyring cannot be read. A `vault.key` left from before is moved into the Secret Service on
/// the next write when the service is there: stored, read back, and only then is the file removed; the records
/// are not touched, since the key stays the same.
///
/// ## Damaged files
/// A file that does not decode throws a specific error (``CredentialStoreError/corrupted``,
/// ``CredentialStoreError/wrongKey`` or ``CredentialStoreError/unsupportedFormat``) and is left exactly as it is
/// by ``read(_:)``, ``list()`` and ``write(_:expecting:)`` — even `write(_:expecting: .any)` refuses to replace a
/// record it cannot read, since that record may hold the only copy of a rotated refresh token that a newer key or
/// version of Tether could still open. Only ``delete(_:)`` (an explicit sign-out) removes it.
///
/// ## Processes
/// Several processes may share a vault: writes are serialized per record with `flock`, and the refresh lease is
/// an `flock` the kernel drops when its holder dies, so a killed process never leaves a lease stuck.
///
/// What remains: a holder that is alive but stopped (suspended with `SIGSTOP`, or hung) keeps the lease, and
/// every waiter gives up after its timeout with ``CredentialStoreError/leaseTimeout`` until the holder goes on or
/// dies. A ``Session`` waits ``Session/Configuration/leaseTimeout`` (150 seconds by default), which covers the
/// longest a live holder keeps the lease with the default transport and retry settings. On a network file system
/// `flock` may lock only within one machine (NFS clients may implement it locally), so processes on two machines
/// sharing a vault folder over NFS can refresh at the same time; keep a vault on a local disk.
///
/// Connection identifiers longer than about 172 bytes of UTF-8 do not fit in a file name; writing one throws
/// ``CredentialStoreError/invalidConfiguration``.
public final class VaultStore: CredentialStore {
    /// The vault's folder.
    public let directory: URL

    let recordsPath: String
    let locksPath: String
    let keySources: KeySources
    /// The key and where it came from; `nil` while the Secret Service holding it is locked.
    let keyState: LockedState<KeyResolution?>
    let clock: any Clock<Duration>
    let logger: Logger
    let writeMutex = AsyncKeyedMutex()
    let leases: FileLeases

    /// How long a write waits for another process to finish writing the same record.
    static let writeLockTimeout: Duration = .seconds(10)

    /// Opens a vault, creating its folder, and its key when no source has one.
    /// - Parameters:
    ///   - directory: The vault's folder; by default `$TETHER_HOME`, else `$XDG_DATA_HOME/tether`, else
    ///     `$HOME/.local/share/tether`.
    ///   - key: The key; by default the first source that has one (see "The key" above).
    ///   - environment: Where the folder and key variables (`TETHER_VAULT_KEY`, `CREDENTIALS_DIRECTORY`,
    ///     `DBUS_SESSION_BUS_ADDRESS`, `TETHER_SECRET_SERVICE`) are read.
    ///   - clock: The clock that lease and lock timeouts are measured and polled on.
    ///   - logger: Receives trace and debug messages, never a secret.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` when a key source holds a malformed key (such as
    ///   `TETHER_VAULT_KEY` or the key file not being the base64 encoding of 32 bytes), no folder can be
    ///   determined, the folder (or one inside it) is a symbolic link, owned by another user or writable by group
    ///   or others (it is refused, not repaired), or the key file is not a regular file owned by the current user
    ///   that only this user can read and write; ``CredentialStoreError/missingKey`` when the key file is missing
    ///   although records exist (they are left untouched); ``CredentialStoreError/io`` when the folder or key file
    ///   cannot be created.
    public convenience init(
        directory: URL? = nil,
        key: VaultKey? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current
    ) throws {
        try self.init(
            directory: directory,
            key: key,
            environment: environment,
            createsMissing: true,
            clock: clock,
            logger: logger
        )
    }

    /// Opens a vault as the public initializer does, or, when `createsMissing` is `false`, without creating
    /// anything: for commands that only read.
    ///
    /// Without `createsMissing`, a missing folder (or `records`, `locks`) is left missing and folders that exist are
    /// checked but their permissions are not changed; when no source has a key and nothing is sealed, no key is
    /// made, ``keySource`` is `nil`, ``read(_:)`` answers `nil` and calls that need the key throw
    /// ``CredentialStoreError/missingKey``.
    package convenience init(
        directory: URL?,
        key: VaultKey? = nil,
        environment: [String: String],
        createsMissing: Bool,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current
    ) throws {
        let keyring: (any KeyringBackend)?
        let keyringNote: String?
        switch SecretServiceKeyring.forEnvironment(environment, schema: SecretServiceKeyring.vaultKeySchema) {
        case .success(let found): (keyring, keyringNote) = (found, nil)
        case .failure(let skipped): (keyring, keyringNote) = (nil, skipped.reason)
        }
        try self.init(
            directory: directory,
            key: key,
            environment: environment,
            keyring: keyring,
            keyringNote: keyringNote,
            createsMissing: createsMissing,
            clock: clock,
            logger: logger
        )
    }

    /// Opens a vault whose key may be kept in `keyring` (a test double, in tests); see the public initializer.
    /// - Parameters:
    ///   - keyringNote: Why there is no keyring, when `keyring` is `nil`, for ``keyringNote``.
    ///   - createsMissing: Whether to create the folders and a key when missing (see
    ///     ``init(directory:key:environment:createsMissing:clock:logger:)``).
    package init(
        directory: URL?,
        key: VaultKey?,
        environment: [String: String],
        keyring: (any KeyringBackend)?,
        keyringNote: String? = nil,
        createsMissing: Bool = true,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current
    ) throws {
        let directory = try directory ?? Self.defaultDirectory(environment: environment)
        let root = directory.path
        if createsMissing {
            try Self.createFolders(root: root)
        } else {
            try Self.checkFolders(root: root)
        }
        self.directory = directory
        self.recordsPath = root + "/records"
        self.locksPath = root + "/locks"
        self.clock = clock
        self.logger = logger
        self.leases = FileLeases(clock: clock, logger: logger, logPrefix: "vault")
        let sources = KeySources(
            explicit: key,
            environment: environment,
            keyring: keyring,
            keyringNote: LockedState(keyringNote),
            root: root,
            createsKey: createsMissing
        )
        self.keySources = sources
        self.keyState = LockedState(try Self.initialKey(sources, logger: logger))
        logger.debug(
            "Opened vault",
            metadata: ["vault.directory": "\(root)", "vault.key_source": "\(keySource.map { "\($0)" } ?? "pending")"]
        )
    }

    /// Where the key came from; `nil` while it cannot be read yet (a locked Secret Service).
    public var keySource: VaultKeySource? { keyState.withLock { $0?.source } }

    /// Why the Secret Service was not used for the key (turned off, no D-Bus session, libsecret missing, no keyring
    /// answering), or `nil` when it was used or the key came from an earlier source. For `tether status`.
    package var keyringNote: String? { keySources.keyringNote.withLock { $0 } }

    /// The key, read now if it could not be read when the vault was opened.
    /// - Throws: ``CredentialStoreError/unavailable`` while the Secret Service is locked, or what opening the vault
    ///   throws for a key source.
    func currentKey() throws -> VaultKey {
        try keyState.withLock { state in
            if let state { return state.key }
            let resolution = try Self.resolveKey(keySources, logger: logger)
            state = resolution
            logger.debug("Read the vault key", metadata: ["vault.key_source": "\(resolution.source)"])
            return resolution.key
        }
    }

    // MARK: Reading

    public func read(_ id: ConnectionID) async throws -> Connection? {
        // An identifier too long for a file name can never have been written.
        guard let names = names(for: id) else { return nil }
        guard let bytes = try VaultFiles.readFile(names.record) else {
            logger.trace("Vault record absent", metadata: ["vault.connection": "\(id)"])
            return nil
        }
        let connection = try VaultRecordFormat.open(bytes, id: id, key: try currentKey())
        logger.trace(
            "Read vault record",
            metadata: ["vault.connection": "\(id)", "vault.version": "\(connection.version)"]
        )
        return connection
    }

    public func list() async throws -> [ConnectionID] {
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: recordsPath)
        } catch CocoaError.fileReadNoSuchFile {
            // A vault opened without creating anything (a command that only reads) whose folder is not there yet.
            return []
        } catch {
            throw CredentialStoreError.io.with(message: "Could not list the records in \(recordsPath)", cause: error)
        }
        return entries.compactMap { entry -> ConnectionID? in
            guard !entry.hasPrefix("."), entry.hasSuffix(Self.recordSuffix) else { return nil }
            return Self.connectionID(fromFileStem: String(entry.dropLast(Self.recordSuffix.count)))
        }
        .sorted()
    }

    // MARK: Writing

    public func write(_ connection: Connection, expecting precondition: WritePrecondition) async throws -> Connection {
        let names = try requireNames(for: connection.id)
        _ = try currentKey()
        moveKeyFileIfPending()
        let written = try await withWriteLock(names) {
            try self.writeLocked(connection, expecting: precondition, names: names)
        }
        logger.debug(
            "Wrote vault record",
            metadata: ["vault.connection": "\(connection.id)", "vault.version": "\(written.version)"]
        )
        return written
    }

    public func delete(_ id: ConnectionID) async throws {
        guard let names = names(for: id) else { return }
        let removed = try await withWriteLock(names) {
            let removed = try VaultFiles.remove(names.record)
            // Space set aside for a write that will not come: a sign-out leaves nothing behind.
            _ = try? VaultFiles.remove(names.slot)
            if removed { try VaultFiles.syncDirectory(self.recordsPath) }
            return removed
        }
        logger.debug("Deleted vault record", metadata: ["vault.connection": "\(id)", "vault.removed": "\(removed)"])
    }

    /// Writes under the record's write lock; everything here is synchronous, so the lock is held briefly.
    func writeLocked(
        _ connection: Connection,
        expecting precondition: WritePrecondition,
        names: RecordNames
    ) throws -> Connection {
        let key = try currentKey()
        // Nobody else can be writing this record now, so any temporary file of it is left by a crashed writer.
        removeTemporaryFiles(of: names)

        // A record that does not decode throws here, whatever the precondition: it is never overwritten.
        let stored = try VaultFiles.readFile(names.record).map {
            try VaultRecordFormat.open($0, id: connection.id, key: key).version
        }
        guard precondition.isSatisfied(byStoredVersion: stored) else {
            throw CredentialStoreError.versionConflict.with(
                message:
                    "Expected \(precondition) of \(connection.id), found \(stored.map { "version \($0)" } ?? "none")"
            )
        }
        guard stored != .max else {
            throw CredentialStoreError.corrupted.with(
                message: "The vault record of \(connection.id) has no next version"
            )
        }
        let written = connection.withVersion((stored ?? 0) + 1)
        let bytes = try VaultRecordFormat.seal(written, key: key)

        // Space set aside before a refresh was sent takes the new record, so that storing the refresh's answer
        // cannot fail for want of room; without a reservation (or when it cannot be written) a new file does.
        var temporary = names.slot
        do {
            if try !VaultFiles.overwriteReserved(names.slot, with: bytes) { temporary = "" }
        } catch {
            logger.debug("Could not write the reserved space", metadata: ["vault.error": "\(error)"])
            temporary = ""
        }
        if temporary.isEmpty {
            temporary = "\(recordsPath)/.\(names.stem).\(VaultFiles.randomSuffix()).tmp"
            try VaultFiles.writeNewFile(temporary, bytes)
        }
        do {
            try VaultFiles.replace(temporary, with: names.record)
        } catch {
            if temporary != names.slot { _ = try? VaultFiles.remove(temporary) }
            throw error
        }
        do {
            try VaultFiles.syncDirectory(recordsPath)
        } catch let error as CredentialStoreError {
            // The new record is in place and visible, but may not survive a power loss: the caller must not
            // take it as stored. A retry finds it (a version conflict, then its own record) and writes again.
            throw CredentialStoreError.io.with(
                message: "The record of \(connection.id) was replaced, but \(recordsPath) could not be flushed, so "
                    + "it may not survive a power loss (\(error.message))",
                cause: error
            )
        }
        return written
    }

    func removeTemporaryFiles(of names: RecordNames) {
        let prefix = ".\(names.stem)."
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: recordsPath) else { return }
        for entry in entries where entry.hasPrefix(prefix) && entry.hasSuffix(".tmp") {
            if (try? VaultFiles.remove("\(recordsPath)/\(entry)")) == true {
                logger.debug("Removed a stale vault temporary file", metadata: ["vault.file": "\(entry)"])
            }
        }
    }

    /// Runs `body` holding the record's in-process mutex and its `flock` write lock.
    func withWriteLock<T>(_ names: RecordNames, _ body: () throws -> T) async throws -> T {
        try await writeMutex.lock(names.stem)
        defer { writeMutex.unlock(names.stem) }
        let fd = try VaultFiles.openLockFile(names.writeLock)
        defer { VaultFiles.unlockAndClose(fd) }
        guard try await clock.pollLock(fd, path: names.writeLock, timeout: Self.writeLockTimeout) else {
            throw CredentialStoreError.io.with(
                message: "Timed out waiting for another process to finish writing the record in \(names.record)"
            )
        }
        return try body()
    }
}
