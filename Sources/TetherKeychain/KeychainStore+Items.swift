import Foundation
import Logging
import Tether

#if canImport(Security)
import Security
#else
import SecItemShim
#endif

// The SecItem calls behind KeychainStore. Every query names the class, service and account (or only the service, to
// list), uses the data-protection keychain on macOS
// (https://developer.apple.com/documentation/security/ksecusedataprotectionkeychain), and never matches on
// kSecAttrAccessible.

extension KeychainStore {
    /// A kind of item: its service and whether it syncs.
    struct ItemKind {
        let service: String
        let sync: SyncPolicy
        let name: String

        static func connection(of store: KeychainStore) -> ItemKind {
            ItemKind(
                service: store.configuration.service,
                sync: store.configuration.synchronization.connections,
                name: "connection"
            )
        }

        static func keyMaterial(of store: KeychainStore) -> ItemKind {
            ItemKind(
                service: store.configuration.service + ".keys",
                sync: store.configuration.synchronization.keyMaterial,
                name: "key"
            )
        }
    }

    /// One stored copy of an item, as its attributes describe it.
    struct FoundItem {
        let accessGroup: String?
        let isSynchronizable: Bool
        let accessibility: String?
    }

    // MARK: Queries

    private func baseQuery(_ kind: ItemKind, account: String?) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: kind.service,
            kSecUseDataProtectionKeychain as String: true,
        ]
        if let account { query[kSecAttrAccount as String] = account }
        return query
    }

    /// A query naming exactly one copy: its group and its synchronizable value. Used to read, update or remove the
    /// copy a search (with kSecAttrSynchronizableAny) found, without touching another copy of the same account.
    private func exactQuery(_ kind: ItemKind, account: String, group: String?, synchronizable: Bool) -> [String: Any] {
        var query = baseQuery(kind, account: account)
        if let group { query[kSecAttrAccessGroup as String] = group }
        query[kSecAttrSynchronizable as String] = synchronizable
        return query
    }

    /// The attributes of a new item in the configured place.
    private func newItemAttributes(_ kind: ItemKind, account: String, data: Data) -> [String: Any] {
        var attributes = baseQuery(kind, account: account)
        if let group = configuration.accessGroup { attributes[kSecAttrAccessGroup as String] = group }
        attributes[kSecAttrSynchronizable as String] = kind.sync.isSynchronizable
        attributes[kSecAttrAccessible as String] = configuration.accessibility.secValue
        attributes[kSecAttrLabel as String] = "Tether \(kind.name)"
        attributes[kSecValueData as String] = data
        return attributes
    }

    /// The groups to search, configured one first: `nil` stands for "every group the app may use".
    private var searchGroups: [String?] {
        var groups: [String?] = [configuration.accessGroup]
        for group in configuration.previousAccessGroups where !groups.contains(group) { groups.append(group) }
        return groups
    }

    private func isConfiguredGroup(_ group: String?) -> Bool {
        if let configured = configuration.accessGroup { return group == configured }
        return !configuration.previousAccessGroups.contains(where: { $0 == group })
    }

    // MARK: Reading

    /// A query for the attributes of every copy (synchronized or not) of a kind's items in one group.
    private func attributeSearch(_ kind: ItemKind, account: String?, group: String?) -> [String: Any] {
        var query = baseQuery(kind, account: account)
        if let group { query[kSecAttrAccessGroup as String] = group }
        query[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
        query[kSecReturnAttributes as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        return query
    }

    /// Finds the copies of an item (synchronized or not) in the configured group, else in the previous groups.
    private func locate(_ kind: ItemKind, account: String) throws -> [FoundItem] {
        for (index, group) in searchGroups.enumerated() {
            let query = attributeSearch(kind, account: account, group: group)
            var result: CFTypeRef?
            let status = secItems.copyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { continue }
            if status == errSecMissingEntitlement, index > 0 {
                // An old group the app has lost: nothing can be migrated from it.
                logger.debug(
                    "keychain.previous_group.unavailable",
                    metadata: ["keychain.access_group": "\(group ?? "")"]
                )
                continue
            }
            guard status == errSecSuccess else { throw error(for: status, operation: "search", group: group) }
            let items = (result as? [[String: Any]] ?? []).map { attributes in
                FoundItem(
                    accessGroup: attributes[kSecAttrAccessGroup as String] as? String ?? group,
                    isSynchronizable: attributes[kSecAttrSynchronizable as String] as? Bool ?? false,
                    accessibility: attributes[kSecAttrAccessible as String] as? String
                )
            }
            if !items.isEmpty { return items }
        }
        return []
    }

    /// Reads the preferred copy of an item: one with the configured attributes if any, else the first found.
    func readItem(_ kind: ItemKind, account: String) throws -> (found: FoundItem, data: Data)? {
        let copies = try locate(kind, account: account)
        let preferred =
            copies.first { isCurrent($0, kind) }
            ?? copies.first { isConfiguredGroup($0.accessGroup) && $0.isSynchronizable == kind.sync.isSynchronizable }
            ?? copies.first
        guard let found = preferred else { return nil }
        var query = exactQuery(kind, account: account, group: found.accessGroup, synchronizable: found.isSynchronizable)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = secItems.copyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw error(for: status, operation: "read", group: found.accessGroup) }
        guard let data = result as? Data else {
            throw CredentialStoreError.corrupted.with(
                message: "The keychain returned no data for a Tether \(kind.name)"
            )
        }
        logger.trace(
            "keychain.read",
            metadata: ["keychain.kind": "\(kind.name)", "keychain.synchronizable": "\(found.isSynchronizable)"]
        )
        return (found, data)
    }

    func isCurrent(_ found: FoundItem, _ kind: ItemKind) -> Bool {
        isConfiguredGroup(found.accessGroup)
            && found.isSynchronizable == kind.sync.isSynchronizable
            && found.accessibility == configuration.accessibility.secValue as String
    }

    // MARK: Migration

    /// Moves a copy found with other attributes than the configuration's to the configured ones, best effort:
    /// the caller already has the data, so a failure is logged and the old copy stays readable.
    func migrateIfNeeded(_ kind: ItemKind, account: String, found: FoundItem, data: Data) {
        guard !isCurrent(found, kind) else { return }
        let metadata: Logger.Metadata = [
            "keychain.kind": "\(kind.name)",
            "keychain.access_group": "\(found.accessGroup ?? "")",
            "keychain.synchronizable": "\(found.isSynchronizable)",
            "keychain.accessibility": "\(found.accessibility ?? "")",
        ]
        do {
            if isConfiguredGroup(found.accessGroup), found.isSynchronizable == kind.sync.isSynchronizable {
                // Accessibility is not part of the primary key: change it in place.
                try update(
                    exactQuery(
                        kind,
                        account: account,
                        group: found.accessGroup,
                        synchronizable: found.isSynchronizable
                    ),
                    [kSecAttrAccessible as String: configuration.accessibility.secValue],
                    group: found.accessGroup
                )
            } else {
                // Group or synchronizable differ, so the new copy is another item: add it first, delete the old
                // one only once the new one exists. A crash in between leaves two copies, never none.
                try addOrUpdate(kind, account: account, data: data)
                let status = secItems.delete(
                    exactQuery(kind, account: account, group: found.accessGroup, synchronizable: found.isSynchronizable)
                        as CFDictionary
                )
                guard status == errSecSuccess || status == errSecItemNotFound else {
                    throw error(for: status, operation: "delete", group: found.accessGroup)
                }
            }
            logger.debug("keychain.migrated", metadata: metadata)
        } catch {
            logger.debug(
                "keychain.migration.failed",
                metadata: metadata.merging(["keychain.error": "\(error)"]) { $1 }
            )
        }
    }

    // MARK: Writing

    /// Stores `data` in the configured place, replacing `existing` (the copy the caller read).
    /// - Parameter allowsReplacingUnseen: Whether an item that appears between the read and the add (another
    ///   process) may be overwritten; `false` turns it into a version conflict.
    func put(
        _ kind: ItemKind,
        account: String,
        data: Data,
        replacing existing: FoundItem?,
        allowsReplacingUnseen: Bool
    ) throws {
        if let existing, isConfiguredGroup(existing.accessGroup),
            existing.isSynchronizable == kind.sync.isSynchronizable
        {
            try update(
                exactQuery(
                    kind,
                    account: account,
                    group: existing.accessGroup,
                    synchronizable: existing.isSynchronizable
                ),
                [
                    kSecValueData as String: data,
                    kSecAttrAccessible as String: configuration.accessibility.secValue,
                ],
                group: existing.accessGroup
            )
            return
        }
        let status = secItems.add(newItemAttributes(kind, account: account, data: data) as CFDictionary, nil)
        switch status {
        case errSecSuccess:
            break
        case errSecDuplicateItem where allowsReplacingUnseen:
            try updateConfiguredCopy(kind, account: account, data: data)
        case errSecDuplicateItem:
            throw CredentialStoreError.versionConflict.with(
                message: "A keychain \(kind.name) item appeared while writing; expected none"
            )
        default:
            throw error(for: status, operation: "add", group: configuration.accessGroup)
        }
        if let existing {
            // The record moved (group or synchronizable changed): remove the old copy now that the new one exists.
            let status = secItems.delete(
                exactQuery(
                    kind,
                    account: account,
                    group: existing.accessGroup,
                    synchronizable: existing.isSynchronizable
                )
                    as CFDictionary
            )
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw error(for: status, operation: "delete", group: existing.accessGroup)
            }
        }
    }

    /// Adds the item in the configured place, or updates it there when it already exists.
    private func addOrUpdate(_ kind: ItemKind, account: String, data: Data) throws {
        let status = secItems.add(newItemAttributes(kind, account: account, data: data) as CFDictionary, nil)
        switch status {
        case errSecSuccess: return
        case errSecDuplicateItem: try updateConfiguredCopy(kind, account: account, data: data)
        default: throw error(for: status, operation: "add", group: configuration.accessGroup)
        }
    }

    private func updateConfiguredCopy(_ kind: ItemKind, account: String, data: Data) throws {
        try update(
            exactQuery(
                kind,
                account: account,
                group: configuration.accessGroup,
                synchronizable: kind.sync.isSynchronizable
            ),
            [
                kSecValueData as String: data,
                kSecAttrAccessible as String: configuration.accessibility.secValue,
            ],
            group: configuration.accessGroup
        )
    }

    private func update(_ query: [String: Any], _ attributes: [String: Any], group: String?) throws {
        let status = secItems.update(query as CFDictionary, attributes as CFDictionary)
        guard status == errSecSuccess else { throw error(for: status, operation: "update", group: group) }
    }

    // MARK: Deleting and listing

    /// Deletes every copy, synchronized and local, in the configured and previous groups.
    func deleteAll(_ kind: ItemKind, account: String) throws {
        for (index, group) in searchGroups.enumerated() {
            var query = baseQuery(kind, account: account)
            if let group { query[kSecAttrAccessGroup as String] = group }
            query[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
            // iOS deletes every match at once; the macOS file keychain deletes one per call. Repeat until nothing
            // matches, with a bound in case a keychain keeps answering success.
            var deleted = 0
            deleting: for _ in 0..<16 {
                let status = secItems.delete(query as CFDictionary)
                switch status {
                case errSecSuccess: deleted += 1
                case errSecItemNotFound: break deleting
                case errSecMissingEntitlement where index > 0: break deleting
                default: throw error(for: status, operation: "delete", group: group)
                }
            }
            if deleted > 0 {
                logger.debug(
                    "keychain.delete",
                    metadata: ["keychain.kind": "\(kind.name)", "keychain.access_group": "\(group ?? "")"]
                )
            }
        }
    }

    /// The accounts of every item of a kind, synchronized or not, in the configured and previous groups.
    func listAccounts(_ kind: ItemKind) throws -> [String] {
        var accounts = Set<String>()
        for (index, group) in searchGroups.enumerated() {
            let query = attributeSearch(kind, account: nil, group: group)
            var result: CFTypeRef?
            let status = secItems.copyMatching(query as CFDictionary, &result)
            switch status {
            case errSecSuccess:
                for attributes in result as? [[String: Any]] ?? [] {
                    if let account = attributes[kSecAttrAccount as String] as? String { accounts.insert(account) }
                }
            case errSecItemNotFound: continue
            case errSecMissingEntitlement where index > 0: continue
            default: throw error(for: status, operation: "list", group: group)
            }
        }
        return accounts.sorted()
    }

    // MARK: Errors

    /// Turns a failed status into the store's error; the message names the operation, status and group, never
    /// an item's data.
    func error(for status: OSStatus, operation: String, group: String?) -> CredentialStoreError {
        logger.debug(
            "keychain.failed",
            metadata: ["keychain.operation": "\(operation)", "keychain.status": "\(status)"]
        )
        let groupName = group ?? "the app's default group"
        let cause = KeychainStatus(status: status)
        switch status {
        case errSecInteractionNotAllowed:
            return CredentialStoreError.unavailable.with(
                message: "The keychain cannot be read until the device is unlocked (\(operation), OSStatus \(status))",
                cause: cause
            )
        case errSecMissingEntitlement:
            // On macOS the data-protection keychain answers -34018 above all to a program without an application
            // identifier (not signed with a provisioning profile that grants one), whatever the group.
            return CredentialStoreError.missingEntitlement.with(
                message: "The app is not entitled to keychain access group \(groupName) "
                    + "(\(operation), OSStatus \(status)); add it to keychain-access-groups. On macOS this usually "
                    + "means the program has no application identifier: sign it with a provisioning profile that "
                    + "grants one (a command-line tool cannot use the data-protection keychain without it)",
                cause: cause
            )
        case errSecParam:
            return CredentialStoreError.invalidConfiguration.with(
                message: "The keychain rejected the \(operation) query (OSStatus \(status))",
                cause: cause
            )
        default:
            return CredentialStoreError.io.with(
                message: "The keychain \(operation) failed with OSStatus \(status)",
                cause: cause
            )
        }
    }
}

/// A Security-framework status, kept as an error's cause.
struct KeychainStatus: Error, CustomStringConvertible {
    let status: OSStatus
    var description: String { "OSStatus \(status)" }
}
