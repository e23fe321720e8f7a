public import Foundation
public import Logging

/// A ``CredentialStore`` that keeps each connection in its own encrypted file: the default store on Linux.
///
/// ## Layout
/// ```
/// <folder>/                      0700
///   vault.key                    0600, unless the key comes from TETHER_VAULT_KEY or the initializer
///   records/<name>.vault         0600, <name> = base64url of the connection identifier, without padding
///   locks/<name>.write           held with flock while a record is written or deleted
///   locks/<name>.lease           held with flock by the refresh lease
/// ```
/// Records are AES-GCM encrypted with the connection identifier as associated data and replaced atomically
/// (temporary file, `fsync`, `rename`, `fsync` of the folder), so a reader or a crash never sees half a write.
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
/// Connection identifiers longer than about 172 bytes of UTF-8 do not fit in a file name; writing one throws
/// ``CredentialStoreError/invalidConfiguration``.
public final class VaultStore: CredentialStore {
    /// The vault's folder.
    public let directory: URL

    private let recordsPath: String
    private let locksPath: String
    let key: VaultKey
    private let clock: any Clock<Duration>
    private let logger: Logger
    private let writeMutex = AsyncKeyedMutex()
    private let leaseMutex = AsyncKeyedMutex()

    /// How long a write waits for another process to finish writing the same record.
    static let writeLockTimeout: Duration = .seconds(10)

    /// Opens a vault, creating its folder and key file when needed.
    /// - Parameters:
    ///   - directory: The vault's folder; by default `$TETHER_HOME`, else `$XDG_DATA_HOME/tether`, else
    ///     `$HOME/.local/share/tether`.
    ///   - key: The key; by default `TETHER_VAULT_KEY` from `environment`, else the `vault.key` file in the
    ///     folder, created on first use.
    ///   - environment: Where the folder and key variables are read.
    ///   - clock: The clock that lease and lock timeouts are measured and polled on.
    ///   - logger: Receives trace and debug messages, never a secret.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` when `TETHER_VAULT_KEY` or the key file is not the
    ///   base64 encoding of 32 bytes or no folder can be determined; ``CredentialStoreError/io`` when the folder
    ///   or key file cannot be created.
    public init(
        directory: URL? = nil,
        key: VaultKey? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current
    ) throws {
        let directory = try directory ?? Self.defaultDirectory(environment: environment)
        let root = directory.path
        try Self.createFolders(root: root)
        self.directory = directory
        self.recordsPath = root + "/records"
        self.locksPath = root + "/locks"
        self.clock = clock
        self.logger = logger
        if let key {
            self.key = key
        } else if let key = try Self.environmentKey(environment) {
            self.key = key
        } else {
            self.key = try Self.loadOrCreateKeyFile(root: root, logger: logger)
        }
        logger.debug("Opened vault", metadata: ["vault.directory": "\(root)"])
    }

    // MARK: Reading

    public func read(_ id: ConnectionID) async throws -> Connection? {
        // An identifier too long for a file name can never have been written.
        guard let names = names(for: id) else { return nil }
        guard let bytes = try VaultFiles.readFile(names.record) else {
            logger.trace("Vault record absent", metadata: ["vault.connection": "\(id)"])
            return nil
        }
        let connection = try VaultRecordFormat.open(bytes, id: id, key: key)
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
            if removed { try VaultFiles.syncDirectory(self.recordsPath) }
            return removed
        }
        logger.debug("Deleted vault record", metadata: ["vault.connection": "\(id)", "vault.removed": "\(removed)"])
    }

    /// Writes under the record's write lock; everything here is synchronous, so the lock is held briefly.
    private func writeLocked(
        _ connection: Connection,
        expecting precondition: WritePrecondition,
        names: RecordNames
    ) throws -> Connection {
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

        let temporary = "\(recordsPath)/.\(names.stem).\(VaultFiles.randomSuffix()).tmp"
        try VaultFiles.writeNewFile(temporary, bytes)
        do {
            try VaultFiles.replace(temporary, with: names.record)
        } catch {
            _ = try? VaultFiles.remove(temporary)
            throw error
        }
        do {
            try VaultFiles.syncDirectory(recordsPath)
        } catch {
            // The new record is in place and visible; only its durability across a power loss is in doubt.
            // Reporting a failure now would claim the record unchanged, which it is not.
            logger.debug("Vault folder sync failed", metadata: ["vault.connection": "\(connection.id)"])
        }
        return written
    }

    private func removeTemporaryFiles(of names: RecordNames) {
        let prefix = ".\(names.stem)."
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: recordsPath) else { return }
        for entry in entries where entry.hasPrefix(prefix) && entry.hasSuffix(".tmp") {
            if (try? VaultFiles.remove("\(recordsPath)/\(entry)")) == true {
                logger.debug("Removed a stale vault temporary file", metadata: ["vault.file": "\(entry)"])
            }
        }
    }

    /// Runs `body` holding the record's in-process mutex and its `flock` write lock.
    private func withWriteLock<T>(_ names: RecordNames, _ body: () throws -> T) async throws -> T {
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

    // MARK: Refresh lease

    public func acquireRefreshLease(for id: ConnectionID, timeout: Duration) async throws -> any RefreshLease {
        let names = try requireNames(for: id)
        let lease = try await acquireLease(names, id: id, timeout: timeout, clock: clock)
        logger.debug("Acquired vault refresh lease", metadata: ["vault.connection": "\(id)"])
        return lease
    }

    private func acquireLease(
        _ names: RecordNames,
        id: ConnectionID,
        timeout: Duration,
        clock: any Clock<Duration>
    ) async throws -> VaultLease {
        let timedOut = CredentialStoreError.leaseTimeout.with(
            message: "Timed out after \(timeout) waiting for the refresh lease of \(id)"
        )
        // Tasks of this process queue on the mutex without polling; only its holder polls the file lock.
        var granted = false
        let waited = try await clock.measure {
            granted = try await leaseMutex.lock(names.stem, timeout: timeout, clock: clock)
        }
        guard granted else { throw timedOut }
        let fd: Int32
        do {
            fd = try VaultFiles.openLockFile(names.leaseLock)
        } catch {
            leaseMutex.unlock(names.stem)
            throw error
        }
        do {
            guard try await clock.pollLock(fd, path: names.leaseLock, timeout: max(.zero, timeout - waited)) else {
                throw timedOut
            }
        } catch {
            VaultFiles.unlockAndClose(fd)
            leaseMutex.unlock(names.stem)
            throw error
        }
        return VaultLease(fd: fd, mutex: leaseMutex, key: names.stem, logger: logger, id: id)
    }

    // MARK: Names

    static let recordSuffix = ".vault"
    /// Keeps `.<stem>.<random>.tmp` within the 255-byte file name limit.
    static let maximumStemLength = 230

    struct RecordNames {
        let stem: String
        let record: String
        let writeLock: String
        let leaseLock: String
    }

    private func names(for id: ConnectionID) -> RecordNames? {
        let stem = Self.fileStem(for: id)
        guard stem.utf8.count <= Self.maximumStemLength else { return nil }
        return RecordNames(
            stem: stem,
            record: "\(recordsPath)/\(stem)\(Self.recordSuffix)",
            writeLock: "\(locksPath)/\(stem).write",
            leaseLock: "\(locksPath)/\(stem).lease"
        )
    }

    private func requireNames(for id: ConnectionID) throws -> RecordNames {
        guard let names = names(for: id) else {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "The connection identifier is too long for a vault file name (at most 172 bytes of UTF-8)"
            )
        }
        return names
    }

    /// The base64url encoding, without padding, of the identifier's UTF-8.
    package static func fileStem(for id: ConnectionID) -> String {
        Base64URL.encode(Data(id.rawValue.utf8))
    }

    /// Reverses ``fileStem(for:)``; `nil` for anything it could not have produced.
    package static func connectionID(fromFileStem stem: String) -> ConnectionID? {
        guard !stem.isEmpty, stem.utf8.count <= maximumStemLength,
            stem.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return nil }
        guard let bytes = Base64URL.decode(stem), let raw = String(data: bytes, encoding: .utf8),
            !raw.isEmpty, raw.count <= 200
        else { return nil }
        let id = ConnectionID(raw)
        // Only the canonical spelling names a record, so that one identifier has one file.
        return fileStem(for: id) == stem ? id : nil
    }

    // MARK: Folder and key

    /// Where the vault lives when no folder is given: `$TETHER_HOME` when set and non-empty, else
    /// `$XDG_DATA_HOME/tether` when that is an absolute path (the XDG base directory specification ignores
    /// relative ones), else `$HOME/.local/share/tether`.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` when none of them is set.
    package static func defaultDirectory(environment: [String: String]) throws -> URL {
        if let home = environment["TETHER_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home, isDirectory: true)
        }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("tether", isDirectory: true)
        }
        if let home = environment["HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home, isDirectory: true)
                .appendingPathComponent(".local/share/tether", isDirectory: true)
        }
        throw CredentialStoreError.invalidConfiguration.with(
            message: "Cannot locate the vault folder: set TETHER_HOME, XDG_DATA_HOME or HOME"
        )
    }

    static let keyVariable = "TETHER_VAULT_KEY"
    static let keyFileName = "vault.key"

    private static func createFolders(root: String) throws {
        let parent = (root as NSString).deletingLastPathComponent
        if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) {
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw CredentialStoreError.io.with(message: "Could not create the folder \(parent)", cause: error)
            }
        }
        try VaultFiles.makePrivateDirectory(root)
        try VaultFiles.makePrivateDirectory(root + "/records")
        try VaultFiles.makePrivateDirectory(root + "/locks")
    }

    private static func environmentKey(_ environment: [String: String]) throws -> VaultKey? {
        guard let text = environment[keyVariable], !text.isEmpty else { return nil }
        do {
            return try VaultKey(base64: text)
        } catch {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "\(keyVariable) must be the base64 encoding of \(VaultKey.byteCount) bytes"
            )
        }
    }

    /// Reads the key file, or creates it without a race: the new key is written to a temporary file, flushed,
    /// and hard-linked to its final name, which fails if another process got there first; the loser then reads
    /// the winner's key. A reader therefore never sees a half-written key file.
    static func loadOrCreateKeyFile(root: String, logger: Logger) throws -> VaultKey {
        let path = "\(root)/\(keyFileName)"
        if let key = try readKeyFile(path) { return key }
        let key = VaultKey.generate()
        let temporary = "\(root)/.\(keyFileName).\(VaultFiles.randomSuffix()).tmp"
        try VaultFiles.writeNewFile(temporary, Data((key.revealedBase64 + "\n").utf8))
        defer { _ = try? VaultFiles.remove(temporary) }
        if try VaultFiles.link(temporary, to: path) {
            try VaultFiles.syncDirectory(root)
            logger.debug("Created vault key file", metadata: ["vault.directory": "\(root)"])
            return key
        }
        guard let winner = try readKeyFile(path) else {
            throw CredentialStoreError.io.with(message: "The key file \(path) disappeared while it was being created")
        }
        return winner
    }

    private static func readKeyFile(_ path: String) throws -> VaultKey? {
        guard let bytes = try VaultFiles.readFile(path) else { return nil }
        try VaultFiles.restrictFile(path)
        guard let text = String(data: bytes, encoding: .utf8), let key = try? VaultKey(base64: text) else {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "The key file \(path) does not hold the base64 encoding of \(VaultKey.byteCount) bytes; "
                    + "it was left untouched"
            )
        }
        return key
    }
}

/// A refresh lease of a ``VaultStore``: the in-process mutex plus an `flock` on the lease file.
final class VaultLease: RefreshLease {
    private let fd: LockedState<Int32?>
    private let mutex: AsyncKeyedMutex
    private let key: String
    private let logger: Logger
    private let id: ConnectionID

    init(fd: Int32, mutex: AsyncKeyedMutex, key: String, logger: Logger, id: ConnectionID) {
        self.fd = LockedState(fd)
        self.mutex = mutex
        self.key = key
        self.logger = logger
        self.id = id
    }

    func release() async {
        releaseNow()
    }

    private func releaseNow() {
        guard
            let fd = fd.withLock({ fd in
                defer { fd = nil }
                return fd
            })
        else { return }
        VaultFiles.unlockAndClose(fd)
        mutex.unlock(key)
        logger.debug("Released vault refresh lease", metadata: ["vault.connection": "\(id)"])
    }

    deinit {
        // A lease dropped without release must not block this process's other tasks forever.
        releaseNow()
    }
}

extension Clock where Duration == Swift.Duration {
    /// Takes an exclusive `flock`, polling on this clock (2 ms, doubling up to 50 ms) until `timeout`.
    /// - Returns: Whether the lock was taken.
    /// - Throws: `CancellationError`, or ``CredentialStoreError/io``.
    fileprivate func pollLock(_ fd: Int32, path: String, timeout: Duration) async throws -> Bool {
        let deadline = now.advanced(by: timeout)
        var delay: Duration = .milliseconds(2)
        while true {
            if try VaultFiles.tryLock(fd, path) { return true }
            try Task.checkCancellation()
            let remaining = now.duration(to: deadline)
            if remaining <= .zero { return false }
            try await sleep(for: min(delay, remaining))
            delay = min(delay * 2, .milliseconds(50))
        }
    }
}
