public import Foundation
public import Logging
public import Tether

#if canImport(Security)
import Security
#else
import SecItemShim
#endif

/// A ``CredentialStore`` in the Apple keychain: one generic-password item per connection.
///
/// Each record is an item whose `kSecAttrService` is the configured service, whose `kSecAttrAccount` is the
/// ``ConnectionID``, and whose data is the record encoded by `ConnectionCodec`.
///
/// Only Apple platforms have a keychain. Elsewhere the same source compiles (so its logic is tested on Linux, over
/// an in-memory keychain simulator that only this package's tests can plug in), but its public initializer is
/// unavailable: a program there uses `VaultStore`, and cannot end up keeping credentials in memory by accident.
///
/// ## Rules it keeps
/// - Writes set `kSecAttrSynchronizable` explicitly. Searches and deletes use `kSecAttrSynchronizableAny`, so a
///   synchronized copy is never missed, and never put `kSecAttrAccessible` in a match query (it would act as a
///   filter and hide records written with another accessibility).
/// - A keychain that cannot be read yet (before the first unlock after boot, or a `whenUnlocked` item while the
///   device is locked) throws ``CredentialStoreError/unavailable``: storage unavailable, never signed out.
/// - Records found with other attributes than the configuration's (accessibility, synchronization, or one of
///   ``Configuration/previousAccessGroups``) are rewritten on read: the new item is added before the old one is
///   deleted, so no step loses the record.
/// - Damaged data throws ``CredentialStoreError/corrupted`` and is left in place.
/// - With ``Configuration/refreshTokenProtection`` the refresh token lives in a second item that only the user's
///   presence unlocks, and the record names it by fingerprint: reads never prompt, only a refresh does
///   (<doc:ProtectingTheRefreshToken>).
///
/// ## Processes
/// The keychain has no conditional write. ``write(_:expecting:)`` reads the stored version and then updates the
/// item, with writers of the same connection queued on an in-process mutex, so the check and the write are atomic
/// within one process only.
///
/// The refresh lease, which a ``Session`` holds around read, refresh and write, can be shared between processes
/// (``Configuration/leaseSharing``): an exclusive `flock` on one file per connection in a folder every process
/// can write. With an ``Configuration/accessGroup`` that is the app group's container by default, so an app and
/// its extensions never refresh with the same refresh token at once; the second waits, then reads the record the
/// first wrote. The system drops the lock when its holder's process ends, even in a crash. A holder that is alive
/// but suspended keeps it, and waiters give up after their timeout with ``CredentialStoreError/leaseTimeout``.
public final class KeychainStore: CredentialStore {
    /// The store's configuration.
    public let configuration: Configuration

    let secItems: SecItemFunctions
    let clock: any Clock<Duration>
    let logger: Logger
    let leases = AsyncKeyedMutex()
    let writers = AsyncKeyedMutex()
    /// The folder of the shared lease files, or `nil` when leases are per process.
    let leaseDirectory: URL?
    let fileLeases: FileLeases
    /// App groups and suspension, as the system answers them (or a test).
    let platform: KeychainPlatform
    /// The authentication context of protected refresh-token reads (``Configuration/refreshTokenProtection``).
    let authenticationContexts = AuthenticationContexts()

    #if canImport(Security)
    /// Creates a store over the keychain.
    /// - Parameters:
    ///   - configuration: The service, access group, accessibility and synchronization of the items.
    ///   - clock: The clock that lease timeouts are measured on.
    ///   - logger: Where the store logs, at trace and debug level, without secrets.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` when the configuration cannot work, such as a
    ///   `ThisDeviceOnly` accessibility with a synchronizable item kind, or an access group without an app-group
    ///   container for the shared refresh lease (see ``LeaseSharing/automatic``); no keychain call is made then.
    public convenience init(
        configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current
    ) throws {
        try self.init(secItems: .system, configuration: configuration, clock: clock, logger: logger)
    }
    #else
    /// Unavailable: only Apple platforms have a keychain. Use `VaultStore`, the encrypted file vault, instead.
    @available(*, unavailable, message: "Only Apple platforms have a keychain; use VaultStore (the encrypted vault)")
    public convenience init(
        configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current
    ) throws {
        throw CredentialStoreError.invalidConfiguration.with(message: "Only Apple platforms have a keychain")
    }
    #endif

    /// Creates a store over the given SecItem functions: the Security framework's, or in tests a simulator's.
    /// - Parameters:
    ///   - secItems: The functions the store calls.
    ///   - configuration: The service, access group, accessibility and synchronization of the items.
    ///   - clock: The clock that lease timeouts are measured on.
    ///   - logger: Where the store logs, at trace and debug level, without secrets.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` when the configuration cannot work.
    package init(
        secItems: SecItemFunctions,
        configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .current,
        platform: KeychainPlatform = .current
    ) throws {
        try configuration.validate()
        self.leaseDirectory = try configuration.leaseSharing.lockDirectory(
            accessGroup: configuration.accessGroup,
            platform: platform
        )
        self.platform = platform
        self.configuration = configuration
        self.secItems = secItems
        self.clock = clock
        self.logger = logger
        self.fileLeases = FileLeases(clock: clock, logger: logger, logPrefix: "keychain")
    }

    // MARK: CredentialStore

    /// Reads a record, moving it to the configured attributes first when it was written with others.
    /// - Parameter id: The connection.
    /// - Returns: The record, or `nil` when there is none.
    /// - Throws: ``CredentialStoreError`` — `unavailable` (device locked), `corrupted` (item left in place),
    ///   `missingEntitlement` (names the access group), `invalidConfiguration`, `io` (with the OSStatus).
    public func read(_ id: ConnectionID) async throws -> Connection? {
        let kind = ItemKind.connection(of: self)
        return try await withWriterLock(kind, id.rawValue) {
            guard let (found, data) = try readItem(kind, account: id.rawValue) else { return nil }
            let connection = try decode(data, id: id)
            migrateIfNeeded(kind, account: id.rawValue, found: found, data: data)
            return lockRefreshTokenIfNeeded(connection, found: found)
        }
    }

    /// Writes a record if the stored version matches `precondition`, assigning the next version.
    /// - Parameters:
    ///   - connection: The record to store; its version is ignored.
    ///   - precondition: What the keychain must hold for the write to happen, checked within this process.
    /// - Returns: The record as stored, with its new version.
    /// - Throws: ``CredentialStoreError/versionConflict`` when the precondition fails; `corrupted` when the
    ///   stored item cannot be decoded (it is left in place: delete it first); otherwise as ``read(_:)``.
    public func write(_ connection: Connection, expecting precondition: WritePrecondition) async throws -> Connection {
        let kind = ItemKind.connection(of: self)
        let account = connection.id.rawValue
        return try await withWriterLock(kind, account) {
            let existing = try readItem(kind, account: account)
            let stored = try existing.map { try decode($0.data, id: connection.id) }
            guard precondition.isSatisfied(byStoredVersion: stored?.version) else {
                throw CredentialStoreError.versionConflict.with(
                    message: "Expected \(precondition) of \(connection.id), found "
                        + (stored.map { "version \($0.version)" } ?? "none")
                )
            }
            var written = connection.withVersion((stored?.version ?? 0) + 1)
            // With refreshTokenProtection the refresh token goes to an item of its own first, and the record only
            // names it: a crash between the two leaves an extra item, never a record naming a missing one.
            let added = try protectRefreshToken(in: &written)
            do {
                try put(
                    kind,
                    account: account,
                    data: try ConnectionCodec.encodeForStore(written),
                    replacing: existing?.found,
                    allowsReplacingUnseen: precondition != .absent
                )
            } catch {
                if let added { removeProtectedItem(of: connection.id, added) }
                throw error
            }
            if let previous = stored?.tokens.lockedRefreshToken, previous != written.tokens.lockedRefreshToken {
                removeProtectedItem(of: connection.id, previous)
            }
            logger.debug(
                "keychain.write",
                metadata: ["keychain.connection": "\(connection.id)", "keychain.version": "\(written.version)"]
            )
            return written
        }
    }

    /// Deletes a record's items: synchronized and local copies, in the configured and the previous access
    /// groups. Deleting a missing record succeeds.
    /// - Parameter id: The connection.
    /// - Throws: ``CredentialStoreError`` — `unavailable`, `missingEntitlement`, `invalidConfiguration`, `io`.
    public func delete(_ id: ConnectionID) async throws {
        let kind = ItemKind.connection(of: self)
        try await withWriterLock(kind, id.rawValue) {
            try deleteAll(kind, account: id.rawValue)
            try deleteProtectedItems(of: id)
        }
    }

    /// Lists the stored connections, synchronized or not, in the configured and previous access groups.
    /// - Returns: The identifiers, sorted, each once.
    /// - Throws: ``CredentialStoreError`` — `unavailable`, `missingEntitlement`, `invalidConfiguration`, `io`.
    public func list() async throws -> [ConnectionID] {
        try listAccounts(ItemKind.connection(of: self)).compactMap { account in
            account.isEmpty || account.count > 200 ? nil : ConnectionID(account)
        }
    }

    /// Waits for the refresh lease of a connection, which at most one task holds at a time: of this process, or
    /// of every process sharing the items when ``Configuration/leaseSharing`` names a folder (see the type's
    /// discussion).
    /// - Parameters:
    ///   - id: The connection.
    ///   - timeout: How long to wait, on the store's clock.
    /// - Returns: The lease; release it when done.
    /// - Throws: ``CredentialStoreError/leaseTimeout``, or `CancellationError`; ``CredentialStoreError/io`` when
    ///   the shared lease's folder or file cannot be created or opened.
    public func acquireRefreshLease(for id: ConnectionID, timeout: Duration) async throws -> any RefreshLease {
        if let leaseDirectory {
            try Self.createLeaseDirectory(leaseDirectory)
            let name = FileLeases.lockFileName(for: "\(configuration.service)\u{0}\(id.rawValue)")
            return try await acquireGuardedFileLease(
                lockFile: leaseDirectory.appendingPathComponent(name).path,
                id: id,
                timeout: timeout
            )
        }
        guard try await leases.lock(id.rawValue, timeout: timeout, clock: clock) else {
            throw CredentialStoreError.leaseTimeout.with(message: "Timed out waiting for the refresh lease of \(id)")
        }
        logger.trace("keychain.lease.acquired", metadata: ["keychain.connection": "\(id)"])
        return MutexLease(mutex: leases, key: id.rawValue)
    }

    // MARK: Key material

    /// Stores long-lived key material, such as an identity or end-to-end encryption key, under a name.
    ///
    /// Key material is synchronizable by default (``Synchronization/keyMaterial``), so a new device or a
    /// reinstall keeps it when the user has iCloud Keychain on; whether it is on cannot be checked.
    /// - Parameters:
    ///   - data: The key bytes.
    ///   - name: The key's name, unique within the store.
    /// - Throws: ``CredentialStoreError`` — `unavailable`, `missingEntitlement`, `invalidConfiguration`, `io`.
    public func writeKeyMaterial(_ data: Data, named name: String) async throws {
        let kind = ItemKind.keyMaterial(of: self)
        try await withWriterLock(kind, name) {
            let existing = try readItem(kind, account: name)
            try put(kind, account: name, data: data, replacing: existing?.found, allowsReplacingUnseen: true)
            logger.debug("keychain.key.write", metadata: ["keychain.key": "\(name)"])
        }
    }

    /// Reads key material stored by ``writeKeyMaterial(_:named:)``, synchronized or not.
    /// - Parameter name: The key's name.
    /// - Returns: The key bytes, or `nil` when there is no such key.
    /// - Throws: ``CredentialStoreError`` — `unavailable`, `missingEntitlement`, `invalidConfiguration`, `io`.
    public func readKeyMaterial(named name: String) async throws -> Data? {
        let kind = ItemKind.keyMaterial(of: self)
        return try await withWriterLock(kind, name) {
            guard let (found, data) = try readItem(kind, account: name) else { return nil }
            migrateIfNeeded(kind, account: name, found: found, data: data)
            return data
        }
    }

    /// Deletes key material, synchronized and local copies. Deleting a missing key succeeds.
    /// - Parameter name: The key's name.
    /// - Throws: ``CredentialStoreError`` — `unavailable`, `missingEntitlement`, `invalidConfiguration`, `io`.
    public func deleteKeyMaterial(named name: String) async throws {
        let kind = ItemKind.keyMaterial(of: self)
        try await withWriterLock(kind, name) {
            try deleteAll(kind, account: name)
        }
    }

    // MARK: Helpers

    private static func createLeaseDirectory(_ url: URL) throws {
        do {
            try FileManager.default.createDirectory(
                at: url,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw CredentialStoreError.io.with(
                message: "Could not create the folder of the shared refresh lease, \(url.path)",
                cause: error
            )
        }
    }

    /// Runs `body` while no other task of this process reads or writes the same item.
    func withWriterLock<T>(_ kind: ItemKind, _ account: String, _ body: () throws -> T) async throws -> T {
        let key = "\(kind.service)\u{0}\(account)"
        try await writers.lock(key)
        defer { writers.unlock(key) }
        return try body()
    }

    /// With ``Configuration/refreshTokenProtection``, moves the refresh token of a record written without it into a
    /// protected item, best effort: on failure (a device without a passcode) the record is returned as it is.
    private func lockRefreshTokenIfNeeded(_ connection: Connection, found: FoundItem) -> Connection {
        let kind = ItemKind.connection(of: self)
        guard configuration.refreshTokenProtection != nil, connection.tokens.refreshToken != nil,
            isCurrent(found, kind)
        else { return connection }
        var locked = connection
        do {
            let added = try protectRefreshToken(in: &locked)
            do {
                try put(
                    kind,
                    account: connection.id.rawValue,
                    data: try ConnectionCodec.encodeForStore(locked),
                    replacing: found,
                    allowsReplacingUnseen: true
                )
            } catch {
                if let added { removeProtectedItem(of: connection.id, added) }
                throw error
            }
            logger.debug("keychain.refresh_token.migrated", metadata: ["keychain.connection": "\(connection.id)"])
            return locked
        } catch {
            logger.debug(
                "keychain.refresh_token.migration_failed",
                metadata: ["keychain.connection": "\(connection.id)", "keychain.error": "\(error)"]
            )
            return connection
        }
    }

    private func decode(_ data: Data, id: ConnectionID) throws -> Connection {
        do {
            return try ConnectionCodec.decodeFromStore(data, id: id, place: "The keychain item of \(id)")
        } catch {
            logger.debug("keychain.read.corrupted", metadata: ["keychain.connection": "\(id)"])
            throw error
        }
    }
}
